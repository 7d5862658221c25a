// Small shared pieces: numbers, times, bars, and a renderer for values of unknown shape.
import type { ComponentChildren } from 'preact';

const numberFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });
export const num = (n: number | string | null | undefined) => (n === null || n === undefined ? '–' : numberFormat.format(Number(n)));
export const time = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString('en-GB', { hour12: false }) : '–');
/** US dollars: small sums (a model call costs fractions of a cent) with the digits that tell them apart. */
export const usd = (n: number) => `$${n.toFixed(n === 0 ? 2 : n < 0.01 ? 6 : n < 10 ? 4 : 2)}`;
export const shortId = (id: string) => id.slice(0, 8);
/** A duration: milliseconds below a second, then seconds, then minutes and seconds. */
export const duration = (ms: number | null | undefined) => {
  if (ms === null || ms === undefined) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
};

/** Task text past this many characters (or over several lines) is shown clamped, the whole of it one click away. */
export const LONG_TASK = 160;
export const isLongTask = (text: string) => text.length > LONG_TASK || text.includes('\n');

/** The whole task text behind a disclosure, for a task shown clamped; nothing for a short one. */
export function WholeTask({ text }: { text: string }) {
  if (!isLongTask(text)) return null;
  return (
    <details class="whole-task">
      <summary>whole task ({num(text.length)} characters)</summary>
      <pre class="goal">{text}</pre>
    </details>
  );
}
export const label = (name: string) =>
  name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/_/g, ' ')
    .toLowerCase();

/** A horizontal bar for a fraction in [0, 1]. A usage bar turns amber from 80% and red when spent. */
export function Bar({ fraction, usage = false }: { fraction: number; usage?: boolean }) {
  const pct = Math.round(Math.max(0, fraction) * 100);
  const state = !usage ? 'score' : fraction >= 1 ? 'full' : fraction >= 0.8 ? 'high' : 'ok';
  return (
    <span class={`bar ${state}`} role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct} title={`${pct}%`}>
      <span style={{ width: `${Math.min(100, pct)}%` }} />
    </span>
  );
}

export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="card">
      <h3>{title}</h3>
      {children}
    </section>
  );
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Any JSON-ish value: objects as tables (numbers in [0, 1] with a bar), lists as lists. */
export function Value({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span class="muted">–</span>;
  if (typeof value === 'number') return <span class="num">{value >= 0 && value <= 1 ? [num(value), ' ', <Bar fraction={value} />] : num(value)}</span>;
  if (typeof value !== 'object') return <span>{String(value)}</span>;
  if (Array.isArray(value)) {
    if (!value.length) return <span class="muted">none</span>;
    if (value.every(isRecord)) return <Table rows={value} />;
    return (
      <ul>
        {value.map((v, i) => (
          <li key={i}>
            <Value value={v} />
          </li>
        ))}
      </ul>
    );
  }
  return (
    <dl class="kv">
      {Object.entries(value).map(([k, v]) => [
        <dt key={k}>{label(k)}</dt>,
        <dd key={`${k}-v`}>
          <Value value={v} />
        </dd>,
      ])}
    </dl>
  );
}

function Table({ rows }: { rows: Array<Record<string, unknown>> }) {
  const columns = [...new Set(rows.flatMap(Object.keys))];
  return (
    <table>
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c}>{label(c)}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, i) => (
          <tr key={i}>
            {columns.map((c) => (
              <td key={c}>
                <Value value={row[c]} />
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
