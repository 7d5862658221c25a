// Small SVG charts: stacked bars and lines over the dashboard's buckets. Plain SVG scaled by its
// viewBox (no chart library: two shapes do not justify 50 KB), each with an accessible name and a
// legend, and a <title> per bar or point for the exact value on hover.
import { num } from './format.tsx';

export interface SeriesDef {
  key: string;
  label: string;
  color: string;
}

export type Row = Record<string, number | null> & { t: number };

const W = 600;
const H = 180;
const PAD = { left: 58, right: 8, top: 8, bottom: 22 };
const plotW = W - PAD.left - PAD.right;
const plotH = H - PAD.top - PAD.bottom;

const tickTime = (t: number, daily: boolean) => {
  const d = new Date(t);
  return daily ? `${d.getUTCMonth() + 1}/${d.getUTCDate()}` : `${String(d.getUTCHours()).padStart(2, '0')}:00`;
};

const compactFormat = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
/** Axis labels: short, so they fit the margin (1.5K, 20K, 0.02). */
export const compact = (n: number) => (Math.abs(n) < 1 && n !== 0 ? String(Number(n.toPrecision(2))) : compactFormat.format(n));

/** A round upper bound for the axis: 1, 2 or 5 times a power of ten. */
export function niceMax(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 5, 10].find((m) => m * power >= value) ?? 10) * power;
}

function Axes({ max, rows, daily, format }: { max: number; rows: Row[]; daily: boolean; format: (n: number) => string }) {
  const ticks = [0, 0.5, 1];
  const every = Math.max(1, Math.ceil(rows.length / 6));
  const step = plotW / Math.max(1, rows.length);
  return (
    <g class="axes" aria-hidden="true">
      {ticks.map((f) => {
        const y = PAD.top + plotH * (1 - f);
        return (
          <g key={f}>
            <line x1={PAD.left} x2={W - PAD.right} y1={y} y2={y} />
            <text x={PAD.left - 4} y={y + 4} text-anchor="end">
              {format(max * f)}
            </text>
          </g>
        );
      })}
      {rows.map((r, i) =>
        i % every === 0 ? (
          <text key={r.t} x={PAD.left + step * i + step / 2} y={H - 6} text-anchor="middle">
            {tickTime(r.t, daily)}
          </text>
        ) : null,
      )}
    </g>
  );
}

function Legend({ series }: { series: SeriesDef[] }) {
  return (
    <ul class="legend">
      {series.map((s) => (
        <li key={s.key}>
          <span class="swatch" style={{ background: s.color }} />
          {s.label}
        </li>
      ))}
    </ul>
  );
}

interface ChartProps {
  title: string;
  rows: Row[];
  series: SeriesDef[];
  daily: boolean;
  format?: (n: number) => string;
  /** Fixed top of the axis (e.g. 1 for rates); otherwise from the data. */
  max?: number;
  /** Axis labels; compact numbers unless given. */
  axis?: (n: number) => string;
}

export function StackedBars({ title, rows, series, daily, format = num, axis = compact }: ChartProps) {
  const totals = rows.map((r) => series.reduce((acc, s) => acc + (r[s.key] ?? 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const step = plotW / Math.max(1, rows.length);
  const width = Math.max(1, step * 0.8);
  return (
    <figure class="chart" data-chart={title}>
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${title}: ${num(totals.reduce((a, b) => a + b, 0))} in all`}>
        <Axes max={max} rows={rows} daily={daily} format={axis} />
        {rows.map((r, i) => {
          let y = PAD.top + plotH;
          return (
            <g key={r.t}>
              {series.map((s) => {
                const h = ((r[s.key] ?? 0) / max) * plotH;
                y -= h;
                return h > 0 ? (
                  <rect
                    key={s.key}
                    class="bar-rect"
                    x={PAD.left + step * i + (step - width) / 2}
                    y={y}
                    width={width}
                    height={h}
                    fill={s.color}
                    data-series={s.key}
                    data-value={r[s.key] ?? 0}
                  >
                    <title>{`${tickTime(r.t, daily)} ${s.label}: ${format(r[s.key] ?? 0)}`}</title>
                  </rect>
                ) : null;
              })}
            </g>
          );
        })}
      </svg>
      <Legend series={series} />
    </figure>
  );
}

export function Lines({ title, rows, series, daily, format = num, max: fixedMax, axis = compact }: ChartProps) {
  const values = rows.flatMap((r) => series.map((s) => r[s.key] ?? 0));
  const max = fixedMax ?? niceMax(Math.max(0, ...values));
  const step = plotW / Math.max(1, rows.length);
  const x = (i: number) => PAD.left + step * i + step / 2;
  const y = (v: number) => PAD.top + plotH * (1 - v / max);
  return (
    <figure class="chart" data-chart={title}>
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={title}>
        <Axes max={max} rows={rows} daily={daily} format={axis} />
        {series.map((s) => {
          const points = rows.flatMap((r, i) => (r[s.key] === null || r[s.key] === undefined ? [] : [[x(i), y(r[s.key] as number), r] as const]));
          return (
            <g key={s.key} data-series={s.key}>
              <polyline
                points={points.map(([px, py]) => `${px},${py}`).join(' ')}
                fill="none"
                stroke={s.color}
                stroke-width="2"
                vector-effect="non-scaling-stroke"
              />
              {points.map(([px, py, r]) => (
                <circle key={r.t} class="point" cx={px} cy={py} r="2.5" fill={s.color} data-value={r[s.key]}>
                  <title>{`${tickTime(r.t, daily)} ${s.label}: ${format(r[s.key] ?? 0)}`}</title>
                </circle>
              ))}
            </g>
          );
        })}
      </svg>
      <Legend series={series} />
    </figure>
  );
}

/** Horizontal bars for named values in [0, 1] (tool error rates). */
export function RateBars({ title, items }: { title: string; items: Array<{ label: string; rate: number; detail: string }> }) {
  return (
    <figure class="chart" data-chart={title}>
      <figcaption>{title}</figcaption>
      {items.length === 0 ? (
        <p class="muted">No tool calls in this range.</p>
      ) : (
        <ul class="rates">
          {items.map((it) => (
            <li key={it.label} data-tool={it.label}>
              <span class="rate-label" title={it.label}>
                {it.label}
              </span>
              <span
                class="rate-track"
                role="meter"
                aria-label={`${it.label} error rate`}
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={Math.round(it.rate * 100)}
              >
                <span style={{ width: `${Math.min(100, it.rate * 100)}%` }} />
              </span>
              <span class="num">{`${(it.rate * 100).toFixed(1)}%`}</span>
              <span class="muted rate-detail">{it.detail}</span>
            </li>
          ))}
        </ul>
      )}
    </figure>
  );
}
