import { describe, expect, it } from 'vitest';
import type { SignedTreeHead } from '../../src/ledger/format/signed-head.ts';
import { retryAfterMs } from '../../src/ledger/store/retry-after.ts';

const signedAt = (iso: string) => ({ issuedAt: iso }) as SignedTreeHead;
const T = Date.parse('2026-11-26T12:00:00.000Z');

describe('NotCheckpointedError.retryAfterMs', () => {
  it('is the time left until one interval after the latest checkpoint', () => {
    expect(retryAfterMs(signedAt('2026-11-26T12:00:00.000Z'), 10_000, T + 3_500)).toBe(6_500);
  });
  it('is one interval when no checkpoint exists yet', () => {
    expect(retryAfterMs(null, 10_000, T)).toBe(10_000);
  });
  it('is a short pause, never zero or negative, when the checkpoint is overdue', () => {
    expect(retryAfterMs(signedAt('2026-11-26T12:00:00.000Z'), 10_000, T + 60_000)).toBe(100);
  });
  it('is at most one interval (a clock ahead of the signer)', () => {
    expect(retryAfterMs(signedAt('2026-11-26T12:00:05.000Z'), 10_000, T)).toBe(10_000);
  });
});
