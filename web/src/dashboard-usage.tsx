// The dashboard's model table (tokens and cost per model, a cost the price table could not tell
// shown as unknown) and the spans the OTLP door refused (an exporter's default log level hides them).
import { num, time } from './format.tsx';
import type { DashboardQuery } from './generated/graphql.ts';
import { type ModelLine, ModelTable } from './model-table.tsx';

export type Refusal = NonNullable<DashboardQuery['otlpRefusals']>[number];

export function ModelUsage({ lines }: { lines: readonly ModelLine[] }) {
  if (!lines.length) return null;
  return (
    <section class="card" aria-labelledby="models-title">
      <h3 id="models-title">Tokens and cost by model</h3>
      <ModelTable lines={lines} />
    </section>
  );
}

export function RefusedSpans({ refusals }: { refusals: Refusal[] }) {
  if (!refusals.length) return null;
  const total = refusals.reduce((n, r) => n + (r.count ?? 0), 0);
  return (
    <section class="card" aria-labelledby="refusals-title" data-refused={total}>
      <h3 id="refusals-title">Refused spans ({num(total)})</h3>
      <p class="muted">Spans /v1/traces did not store, by reason, with the latest one (exporters log these only at debug level).</p>
      <ul class="refusals">
        {refusals.map((r) => (
          <li key={r.kind} data-kind={r.kind ?? ''}>
            <b>{(r.kind ?? '').replace(/_/g, ' ')}</b> {num(r.count)} · latest {time(r.lastAt)}
            {r.lastSpanId && (
              <>
                {' '}
                · span <code>{r.lastSpanId}</code> of trace <code>{r.lastTraceId}</code>
              </>
            )}
            : {r.lastReason}
          </li>
        ))}
      </ul>
    </section>
  );
}
