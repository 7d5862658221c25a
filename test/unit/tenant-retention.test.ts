// A tenant's retention periods (src/lifecycle/tenant-retention.ts): whole days from 1 to 36,500, or
// null for the server's default; each violation names its field and limit.
import { describe, expect, it } from 'vitest';
import { retentionViolations } from '../../src/lifecycle/tenant-retention.ts';

describe('retentionViolations', () => {
  it('accepts whole days in range, and null for the default', () => {
    expect(retentionViolations({ stepDays: 1, runDays: 36_500 })).toEqual([]);
    expect(retentionViolations({ stepDays: null, runDays: null })).toEqual([]);
  });

  it('names each period out of range or not whole, with the limit', () => {
    const violations = retentionViolations({ stepDays: 0, runDays: 2.5 });
    expect(violations.map((v) => [v.field, v.limit])).toEqual([
      ['stepDays', 'integer from 1 to 36500'],
      ['runDays', 'integer from 1 to 36500'],
    ]);
  });
});
