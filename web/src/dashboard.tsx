// The dashboard: how the agents are doing over a time range, filtered by task type and domain.
// Every figure comes from the `dashboard` query (aggregated in PostgreSQL); it reloads shortly
// after the ledger stream shows an episode or a retrieval changed, so it follows runs live.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from './api.ts';
import { compact, Lines, RateBars, type Row, StackedBars } from './charts.tsx';
import { ModelUsage, type Refusal, RefusedSpans } from './dashboard-usage.tsx';
import { duration, num } from './format.tsx';
import { graphql } from './generated/gql.ts';
import type { DashboardQuery } from './generated/graphql.ts';

const RANGES = [
  { value: '24h', label: 'Last 24 hours', hours: 24 },
  { value: '7d', label: 'Last 7 days', hours: 24 * 7 },
  { value: '30d', label: 'Last 30 days', hours: 24 * 30 },
  { value: '90d', label: 'Last 90 days', hours: 24 * 90 },
  { value: '365d', label: 'Last 365 days', hours: 24 * 365 },
  { value: 'all', label: 'All time', hours: null },
] as const;

const RELOAD_MS = 1_000;
// Checked against schema.graphql by `npm run codegen` (web/src/generated).
const QUERY = graphql(`
  query Dashboard($filter: DashboardFilter!) {
    dashboard(filter: $filter) {
      __typename
      ... on Dashboard {
        from bucketSeconds steps latencyP50 latencyP95
        totals { runs ended successes partials failures successRate tokens cost budgetExhaustions patternsLearned retrievalsServed retrievalsCredited }
        series {
          start runs running blocked completed failed cancelled escalated successes partials failures tokens cost budgetExhaustions
          patternsLearned retrievalsServed retrievalsCredited steps latencyP50 latencyP95
        }
        tools { tool calls errors timeouts errorRate }
        budgetExhaustions { resource count }
        usageByModel { ...ModelUsageLine }
      }
      ... on InputLimitError { message }
    }
    otlpRefusals { kind count lastAt lastTraceId lastSpanId lastReason }
  }
`);

type DashboardData = Extract<DashboardQuery['dashboard'], { __typename: 'Dashboard' }>;
type Bucket = NonNullable<DashboardData['series']>[number];
type Totals = NonNullable<DashboardData['totals']>;
interface Filter {
  range: string;
  taskType: string;
  domain: string;
}

const STATUS_SERIES = [
  { key: 'completed', label: 'completed', color: '#1f8a4c' },
  { key: 'failed', label: 'failed', color: '#c23a3a' },
  { key: 'running', label: 'running', color: '#3156d3' },
  { key: 'blocked', label: 'blocked', color: '#c7851a' },
  { key: 'escalated', label: 'escalated', color: '#8a3fb8' },
  { key: 'cancelled', label: 'cancelled', color: '#8a93a6' },
];
const pct = (n: number | null | undefined) => (n === null || n === undefined ? '–' : `${(n * 100).toFixed(1)}%`);
const money = (n: number) => `$${n.toFixed(n < 10 ? 4 : 2)}`;

function variables(f: Filter) {
  const hours = RANGES.find((r) => r.value === f.range)?.hours;
  const match = { taskType: f.taskType || null, domain: f.domain || null };
  // All time: no start and no end, the server spans the tenant's first to latest run (imported history included).
  if (hours === null) return { filter: { from: null, to: null, ...match } };
  const to = new Date(Math.ceil((Date.now() + 1) / 3_600_000) * 3_600_000); // the end of this hour
  return { filter: { from: new Date(to.getTime() - (hours ?? 24) * 3_600_000).toISOString(), to: to.toISOString(), ...match } };
}

/** The range the dashboard opens on; with no run in it (an import of older runs) it opens on all time instead. */
const OPENING_RANGE = '24h';

const bucketName = (seconds: number) => (seconds >= 7 * 86_400 ? 'week' : seconds >= 86_400 ? 'day' : 'hour');

function toRows(series: readonly Bucket[]): Row[] {
  return series.map(({ start, ...counts }) => {
    const ended = (counts.successes ?? 0) + (counts.partials ?? 0) + (counts.failures ?? 0);
    const row: Row = { ...counts, t: Date.parse(start ?? ''), successRate: ended ? (counts.successes ?? 0) / ended : null };
    return row;
  });
}

function Tile({ label, value, detail }: { label: string; value: string; detail?: string }) {
  return (
    <div class="tile" data-tile={label}>
      <span class="tile-label">{label}</span>
      <span class="tile-value">{value}</span>
      {detail && <span class="muted tile-detail">{detail}</span>}
    </div>
  );
}

function Charts({ d }: { d: DashboardData }) {
  const rows = toRows(d.series ?? []);
  const bucketSeconds = d.bucketSeconds ?? 3600;
  const daily = bucketSeconds >= 86_400;
  const per = bucketName(bucketSeconds);
  return (
    <div class="charts">
      <StackedBars title={`Runs per ${per} by status`} rows={rows} series={STATUS_SERIES} daily={daily} />
      <Lines
        title="Success rate (ended runs)"
        rows={rows}
        series={[{ key: 'successRate', label: 'success rate', color: '#1f8a4c' }]}
        daily={daily}
        max={1}
        format={pct}
        axis={(n) => `${Math.round(n * 100)}%`}
      />
      <StackedBars title={`Tokens per ${per}`} rows={rows} series={[{ key: 'tokens', label: 'tokens', color: '#3156d3' }]} daily={daily} />
      <Lines
        title={`Cost per ${per}`}
        rows={rows}
        series={[{ key: 'cost', label: 'cost (USD)', color: '#c7851a' }]}
        daily={daily}
        format={(n) => money(n)}
        axis={(n) => `$${compact(n)}`}
      />
      <Lines
        title="Step latency"
        rows={rows}
        series={[
          { key: 'latencyP50', label: 'p50', color: '#3156d3' },
          { key: 'latencyP95', label: 'p95', color: '#c23a3a' },
        ]}
        daily={daily}
        format={duration}
        axis={(n) => `${compact(n)} ms`}
      />
      <RateBars
        title="Tool error rates"
        items={(d.tools ?? []).map((t) => ({
          label: t.tool ?? '',
          rate: t.errorRate ?? 0,
          detail: `${num((t.errors ?? 0) + (t.timeouts ?? 0))} of ${num(t.calls)} calls`,
        }))}
      />
      <StackedBars
        title={`Budget exhaustions per ${per}`}
        rows={rows}
        series={[{ key: 'budgetExhaustions', label: 'budget exhausted', color: '#c23a3a' }]}
        daily={daily}
      />
      <StackedBars
        title={`Patterns learned per ${per}`}
        rows={rows}
        series={[{ key: 'patternsLearned', label: 'patterns learned', color: '#8a3fb8' }]}
        daily={daily}
      />
      <Lines
        title="Retrievals served and credited"
        rows={rows}
        series={[
          { key: 'retrievalsServed', label: 'served', color: '#3156d3' },
          { key: 'retrievalsCredited', label: 'credited', color: '#1f8a4c' },
        ]}
        daily={daily}
      />
    </div>
  );
}

function Tiles({ data, t }: { data: DashboardData; t: Totals }) {
  return (
    <div class="tiles">
      <Tile label="Runs" value={num(t.runs)} detail={`${num(t.ended)} ended`} />
      <Tile label="Success rate" value={pct(t.successRate)} detail={`${num(t.successes)} ok · ${num(t.partials)} partial · ${num(t.failures)} failed`} />
      <Tile label="Tokens" value={num(t.tokens)} />
      <Tile label="Cost" value={money(t.cost ?? 0)} />
      <Tile label="Step latency" value={`p50 ${duration(data.latencyP50)}`} detail={`p95 ${duration(data.latencyP95)} · ${num(data.steps)} steps`} />
      <Tile
        label="Budget exhaustions"
        value={num(t.budgetExhaustions)}
        detail={(data.budgetExhaustions ?? []).map((b) => `${b.resource} ${b.count}`).join(' · ') || undefined}
      />
      <Tile label="Patterns learned" value={num(t.patternsLearned)} />
      <Tile label="Retrievals" value={`${num(t.retrievalsServed)} served`} detail={`${num(t.retrievalsCredited)} credited`} />
    </div>
  );
}

/** The range, task type and domain the dashboard shows; `status` says when it last loaded. */
function FilterForm({ filter, onApply, status }: { filter: Filter; onApply: (event: Event) => void; status: string }) {
  return (
    <form class="filters" onSubmit={onApply} aria-label="Dashboard filters">
      <label>
        Range{' '}
        <select name="range" key={filter.range}>
          {RANGES.map((r) => (
            <option key={r.value} value={r.value} selected={r.value === filter.range}>
              {r.label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Task type <input name="taskType" defaultValue={filter.taskType} placeholder="any" />
      </label>
      <label>
        Domain <input name="domain" defaultValue={filter.domain} placeholder="any" />
      </label>
      <button type="submit">Apply</button>
      {status && (
        <span class="muted" aria-live="polite">
          {status}
        </span>
      )}
    </form>
  );
}

/** `changed` moves whenever the ledger shows a new event: the dashboard reloads shortly after. */
export function Dashboard({ api, changed }: { api: Api; changed: string | undefined }) {
  const [filter, setFilter] = useState<Filter>({ range: OPENING_RANGE, taskType: '', domain: '' });
  // Set once the opening range was empty and all time shown instead; the user's own choice clears it.
  const [widened, setWidened] = useState(false);
  const chosen = useRef(false);
  const [data, setData] = useState<DashboardData | null>(null);
  const [refusals, setRefusals] = useState<Refusal[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [loadedAt, setLoadedAt] = useState<string>('');

  const lastLoad = useRef(0);

  // At most one reload per RELOAD_MS however fast the ledger moves (a debounce alone would never
  // fire under a steady stream of events), and at once when the filter changes.
  useEffect(() => {
    const wait = changed ? Math.max(0, lastLoad.current + RELOAD_MS - Date.now()) : 0;
    const timer = setTimeout(() => {
      lastLoad.current = Date.now();
      api
        .query(QUERY, variables(filter))
        .then(({ dashboard, otlpRefusals }) => {
          setRefusals(otlpRefusals ?? []);
          if (dashboard?.__typename !== 'Dashboard') return setError(dashboard?.message ?? 'no dashboard');
          if (!chosen.current && filter.range === OPENING_RANGE && dashboard.totals?.runs === 0) {
            setWidened(true);
            return setFilter({ ...filter, range: 'all' });
          }
          setData(dashboard);
          setError(null);
          setLoadedAt(new Date().toLocaleTimeString('en-GB', { hour12: false }));
        })
        .catch((err: Error) => setError(err.message));
    }, wait);
    return () => clearTimeout(timer);
  }, [api, filter, changed]);

  const apply = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    chosen.current = true;
    setWidened(false);
    setFilter({
      range: String(form.get('range') ?? OPENING_RANGE),
      taskType: String(form.get('taskType') ?? '').trim(),
      domain: String(form.get('domain') ?? '').trim(),
    });
  };
  const t = data?.totals;
  return (
    <section class="dashboard" aria-labelledby="dashboard-title">
      <h2 id="dashboard-title">Dashboard</h2>
      <FilterForm filter={filter} onApply={apply} status={loadedAt && `updated ${loadedAt}${data?.from ? ` · since ${data.from.slice(0, 10)}` : ''}`} />
      {widened && (
        <p class="muted" data-widened>
          No run started in the last 24 hours: showing all time.
        </p>
      )}
      {error && <p class="alert">{error}</p>}
      {data && t && (
        <>
          <Tiles data={data} t={t} />
          <RefusedSpans refusals={refusals} />
          <Charts d={data} />
          <ModelUsage lines={data.usageByModel ?? []} />
        </>
      )}
      {!data && !error && <p class="muted">Loading…</p>}
    </section>
  );
}
