// Why an OTLP span was refused, as a bounded set: the label of /metrics'
// episodic_otlp_spans_refused_total, so a user sees refusals without an exporter's debug logging.

export const REFUSAL_KINDS = [
  /** The span could not be read (bad ids, no trace). */
  'unreadable',
  /** A field over its domain limit (NUL, lone surrogate, tool name, metadata size, time). */
  'limit',
  /** Its root span could not start or end its episode. */
  'root',
  /** The tenant's spans waiting for a root are at their cap. */
  'pending_cap',
  /** The episode refused the step (its step or size limit, budget, blob cap, time order). */
  'step_rejected',
  /** It came after its root completed the episode, past OTLP_LATE_SPAN_GRACE_MS (or the episode ended otherwise). */
  'late',
] as const;

export type RefusalKind = (typeof REFUSAL_KINDS)[number];

export interface SpanRefusal {
  traceId: string;
  spanId: string;
  reason: string;
  kind: RefusalKind;
}
