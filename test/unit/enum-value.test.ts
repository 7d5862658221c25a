import { describe, expect, it } from 'vitest';
import { enumValue } from '../../src/graphql/enum-value.ts';

describe('enumValue', () => {
  const STATUSES = ['RUNNING', 'DRY_RUN'] as const;

  it('maps a stored value to its enum value', () => {
    expect(enumValue(STATUSES, 'running')).toBe('RUNNING');
    expect(enumValue(STATUSES, 'dry_run')).toBe('DRY_RUN');
  });

  it('fails on a value the enum lacks instead of passing it on', () => {
    expect(() => enumValue(STATUSES, 'paused')).toThrow('"paused" is not one of RUNNING, DRY_RUN');
  });
});
