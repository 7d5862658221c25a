// One OTLP span as the door reads it (src/otlp/spans.ts), for the pure tests of the mapping, the
// price table and the step order: a child span of a shop agent's trace, `extra` over the defaults.
import type { Attributes, OtlpSpan } from '../../src/otlp/spans.ts';

export const SPAN_TRACE_ID = '5b8efff798038103d269b633813fc60c';

export function otlpSpan(attributes: Attributes, extra: Partial<OtlpSpan> = {}): OtlpSpan {
  return {
    traceId: SPAN_TRACE_ID,
    spanId: 'eee19b7ec3c1b174',
    parentSpanId: 'eee19b7ec3c1b173',
    name: 'span',
    startMs: 1_700_000_000_000,
    endMs: 1_700_000_000_250,
    startUs: (extra.startMs ?? 1_700_000_000_000) * 1_000,
    attributes,
    status: { code: 0, message: '' },
    events: [],
    resource: { 'service.name': 'shop-agent' },
    ...extra,
  };
}
