// Spans the OTLP door refused, for the monitor (src/monitor/refusal-counts.ts). Reads only; tenant-scoped.

import { type RefusalCount, refusalCountsOf } from '../monitor/refusal-counts.ts';
import { builder } from './builder.ts';

const RefusalCountRef = builder.objectRef<RefusalCount>('OtlpRefusalCount').implement({
  description: 'Spans of one refusal reason since the tenant began exporting, and the latest one, named. docs/OTLP.md "Seeing refusals".',
  fields: (t) => ({
    kind: t.exposeString('kind', {
      description: 'unreadable, limit, root, pending_cap, step_rejected or late (the label of episodic_otlp_spans_refused_total).',
    }),
    count: t.exposeFloat('count'),
    lastAt: t.field({ type: 'DateTime', resolve: (r) => r.lastAt }),
    lastTraceId: t.exposeString('lastTraceId', { description: 'Empty for a span that could not be read.' }),
    lastSpanId: t.exposeString('lastSpanId'),
    lastReason: t.exposeString('lastReason', { description: 'Why the latest one was refused (at most 1,000 characters).' }),
  }),
});

builder.queryFields((t) => ({
  otlpRefusals: t.field({
    type: [RefusalCountRef],
    description: "Spans /v1/traces refused for this tenant, per reason, the latest reason first (an exporter's default log level does not show them).",
    resolve: (_root, _args, ctx) => {
      if (!ctx.viewer) throw new Error('monitor query without a viewer');
      return refusalCountsOf(ctx.services.db.pool, ctx.viewer.tenantId);
    },
  }),
}));
