// The dashboard's model table (tokens and cost per model, a cost the price table could not tell
// shown as unknown) and the spans the OTLP door refused (an exporter's default log level hides them).
import { num, time, usd } from './format.tsx';

export interface ModelLine {
  model: string | null;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  tokens: number;
  cost: number | null;
  knownCost: number;
}

export interface Refusal {
  kind: string;
  count: number;
  lastAt: string;
  lastTraceId: string;
  lastSpanId: string;
  lastReason: string;
}

export const USAGE_FIELDS = 'usageByModel { model calls inputTokens outputTokens tokens cost knownCost }';
export const REFUSAL_FIELDS = 'otlpRefusals { kind count lastAt lastTraceId lastSpanId lastReason }';

export function ModelUsage({ lines }: { lines: ModelLine[] }) {
  if (!lines.length) return null;
  return (
    <section class="card" aria-labelledby="models-title">
      <h3 id="models-title">Tokens and cost by model</h3>
      <div class="table-wrap">
        <table class="models">
          <thead>
            <tr>
              <th>Model</th>
              <th>Calls</th>
              <th>Tokens</th>
              <th>Cost</th>
            </tr>
          </thead>
          <tbody>
            {lines.map((m) => (
              <tr key={m.model ?? ''} data-model={m.model ?? ''}>
                <td>{m.model ?? 'no model named'}</td>
                <td>{num(m.calls)}</td>
                <td title={`${num(m.inputTokens)} in · ${num(m.outputTokens)} out`}>{num(m.tokens)}</td>
                <td>{m.cost === null ? (m.knownCost > 0 ? `unknown (${usd(m.knownCost)} known)` : 'unknown') : usd(m.cost)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

export function RefusedSpans({ refusals }: { refusals: Refusal[] }) {
  if (!refusals.length) return null;
  const total = refusals.reduce((n, r) => n + r.count, 0);
  return (
    <section class="card" aria-labelledby="refusals-title" data-refused={total}>
      <h3 id="refusals-title">Refused spans ({num(total)})</h3>
      <p class="muted">Spans /v1/traces did not store, by reason, with the latest one (exporters log these only at debug level).</p>
      <ul class="refusals">
        {refusals.map((r) => (
          <li key={r.kind} data-kind={r.kind}>
            <b>{r.kind.replace(/_/g, ' ')}</b> {num(r.count)} · latest {time(r.lastAt)}
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
