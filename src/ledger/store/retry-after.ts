// When to ask again for a proof of an event no signed checkpoint covers yet (docs/LEDGER.md §5.3).
import type { SignedTreeHead } from '../format/signed-head.ts';

const MIN_RETRY_MS = 100;

/**
 * The time left until the timer signs the head: one interval after the latest checkpoint, at
 * least a short pause (the signing itself), at most one interval (also when there is none yet).
 */
export function retryAfterMs(latest: SignedTreeHead | null, intervalMs: number, now: number): number {
  if (!latest) return intervalMs;
  return Math.min(intervalMs, Math.max(MIN_RETRY_MS, Date.parse(latest.issuedAt) + intervalMs - now));
}
