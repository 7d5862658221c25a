// The limits of spans waiting for their trace's root (pending.ts): per tenant, a count and a byte
// cap, and an expiry. An unbounded wait let ten rootless spans of 12 MB each grow the table by
// 119 MB in seconds; a span over a cap is refused in partialSuccess instead, and one left waiting
// past the expiry (its root never came) is dropped. Pure.
import type { OtlpSpan } from './spans.ts';

export interface PendingLimits {
  maxSpansPerTenant: number;
  /** OTLP_PENDING_MAX_BYTES. */
  maxBytesPerTenant: number;
  /** OTLP_PENDING_EXPIRY_MS. */
  expiryMs: number;
}

/** Spans one tenant may keep waiting for their root, whatever their size. */
export const MAX_PENDING_SPANS_PER_TENANT = 100_000;

/** What the tenant keeps waiting now. */
export interface PendingHeld {
  spans: number;
  bytes: number;
}

export interface PendingCandidate {
  span: OtlpSpan;
  /** Its JSON, as kept. */
  json: string;
  bytes: number;
}

/** The spans that fit beside what the tenant holds, in order, and the reason each other one is refused. */
export function admitPending(
  candidates: readonly PendingCandidate[],
  held: PendingHeld,
  limits: PendingLimits,
): { kept: PendingCandidate[]; refused: Array<{ span: OtlpSpan; reason: string }> } {
  const kept: PendingCandidate[] = [];
  const refused: Array<{ span: OtlpSpan; reason: string }> = [];
  let { spans, bytes } = held;
  for (const candidate of candidates) {
    const reason =
      spans + 1 > limits.maxSpansPerTenant
        ? `no root span yet, and ${limits.maxSpansPerTenant} spans of this tenant already wait for theirs (the limit)`
        : bytes + candidate.bytes > limits.maxBytesPerTenant
          ? `no root span yet, and this span's ${candidate.bytes} bytes would grow this tenant's waiting spans to ${bytes + candidate.bytes} bytes; the limit is ${limits.maxBytesPerTenant} bytes (OTLP_PENDING_MAX_BYTES)`
          : null;
    if (reason) refused.push({ span: candidate.span, reason });
    else {
      kept.push(candidate);
      spans += 1;
      bytes += candidate.bytes;
    }
  }
  return { kept, refused };
}

/** Spans that came before this time have waited past the expiry. */
export const expiredBefore = (limits: PendingLimits, now: number): Date => new Date(now - limits.expiryMs);
