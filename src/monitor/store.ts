// The dashboard's aggregates, computed in PostgreSQL and confined to the tenant. Runs, budget
// exhaustions, steps, tools and latency come from the hourly rollup (rollup.ts, brought up to the
// ledger head first); patterns and retrievals are read raw through the monitor migration's
// indexes. Figures at 1M episodes: docs/BENCHMARKS.md.
import type pg from 'pg';
import {
  alignedStart,
  type Bucket,
  type BucketRow,
  bucketMsFor,
  buildSeries,
  type DashboardFilter,
  histogramPercentile,
  rollupKey,
  STATUSES,
  TOP_TOOLS,
  type ToolStats,
  type Totals,
  toolErrorRate,
  totalsOf,
  wholeHours,
} from './dashboard.ts';
import { LATENCY_BASE, refreshRollup } from './rollup.ts';

export interface BudgetExhaustion {
  resource: string;
  count: number;
}

export interface Dashboard {
  filter: DashboardFilter;
  bucketMs: number;
  series: Bucket[];
  totals: Totals;
  latencyP50: number | null;
  latencyP95: number | null;
  steps: number;
  tools: ToolStats[];
  budgetExhaustions: BudgetExhaustion[];
}

/** $1 tenant, $2 from, $3 to, $4 bucket width, $5 bucket origin; queries that filter add $6 and $7. */
type Params = [string, Date, Date, string, Date];

const bucketOf = (column: string) => `date_bin($4::interval, ${column}, $5::timestamptz)`;
const EPISODE_FILTER = '($6::text IS NULL OR task_type = $6) AND ($7::text IS NULL OR domain = $7)';
const isFiltered = (f: DashboardFilter) => f.taskType !== null || f.domain !== null;
const filtered = (p: Params, f: DashboardFilter): [...Params, string | null, string | null] => [...p, f.taskType, f.domain];
/** For rows of other tables that belong to an episode: only when a filter is set (else no join). */
const episodeMatch = (f: DashboardFilter, idColumn: string) =>
  !isFiltered(f)
    ? 'true'
    : `EXISTS (SELECT 1 FROM episodes e WHERE e.id = ${idColumn} AND e.tenant_id = $1 AND ${EPISODE_FILTER.replaceAll('task_type', 'e.task_type').replaceAll('domain', 'e.domain')})`;
/** Rollup rows of the filter's dimension: $6 dimension, $7 value. */
const ROLLUP_WHERE = 'tenant_id = $1 AND dimension = $6 AND value = $7 AND hour >= $2 AND hour < $3';
const keyed = (p: Params, f: DashboardFilter): [...Params, string, string] => {
  const key = rollupKey(f);
  return [...p, key.dimension, key.value];
};

/** A row of runBuckets' query: the monitor_hours sums of one bucket. */
type RunBucketSqlRow = { start: Date; runs: number; successes: number; partials: number; failures: number; tokens: number; cost: number } & Record<
  (typeof STATUSES)[number],
  number
>;

async function runBuckets(pool: pg.Pool, p: Params, f: DashboardFilter): Promise<BucketRow[]> {
  const statuses = STATUSES.map((s) => `sum(${s})::int AS ${s}`).join(', ');
  const { rows } = await pool.query<RunBucketSqlRow>(
    `SELECT ${bucketOf('hour')} AS start, sum(runs)::int AS runs, ${statuses}, sum(successes)::int AS successes, sum(partials)::int AS partials,
            sum(failures)::int AS failures, sum(tokens)::float8 AS tokens, sum(cost)::float8 AS cost
       FROM monitor_hours WHERE ${ROLLUP_WHERE} GROUP BY 1`,
    keyed(p, f),
  );
  return rows.map((r) => ({ ...r, byStatus: Object.fromEntries(STATUSES.map((s) => [s, r[s]])) }));
}

async function budgetBuckets(pool: pg.Pool, p: Params, f: DashboardFilter): Promise<{ rows: BucketRow[]; byResource: BudgetExhaustion[] }> {
  const { rows } = await pool.query<{ start: Date; resource: string; count: number }>(
    `SELECT ${bucketOf('hour')} AS start, resource, sum(count)::int AS count FROM monitor_hour_budgets WHERE ${ROLLUP_WHERE} GROUP BY 1, 2`,
    keyed(p, f),
  );
  const perBucket = new Map<number, BucketRow>();
  const perResource = new Map<string, number>();
  for (const r of rows) {
    const bucket = perBucket.get(r.start.getTime()) ?? { start: r.start, budgetExhaustions: 0 };
    bucket.budgetExhaustions = (bucket.budgetExhaustions ?? 0) + r.count;
    perBucket.set(r.start.getTime(), bucket);
    perResource.set(r.resource, (perResource.get(r.resource) ?? 0) + r.count);
  }
  const byResource = [...perResource]
    .map(([resource, count]) => ({ resource, count }))
    .sort((a, b) => b.count - a.count || a.resource.localeCompare(b.resource));
  return { rows: [...perBucket.values()], byResource };
}

/** Steps per bucket and latency percentiles from the rollup's histograms, and calls and errors per tool. */
async function stepAggregates(pool: pg.Pool, p: Params, f: DashboardFilter) {
  const params = keyed(p, f);
  const [histogram, tools] = await Promise.all([
    pool.query<{ start: Date; bucket: number; count: number }>(
      `SELECT ${bucketOf('hour')} AS start, bucket, sum(count)::int AS count FROM monitor_hour_latencies WHERE ${ROLLUP_WHERE} GROUP BY 1, 2`,
      params,
    ),
    pool.query<{ start: Date; tool: string; calls: number; errors: number; timeouts: number }>(
      `SELECT ${bucketOf('hour')} AS start, tool, sum(calls)::int AS calls, sum(errors)::int AS errors, sum(timeouts)::int AS timeouts
         FROM monitor_hour_tools WHERE ${ROLLUP_WHERE} GROUP BY 1, 2`,
      params,
    ),
  ]);
  const perBucket = new Map<number, { start: Date; steps: number; histogram: Array<{ bucket: number; count: number }> }>();
  const bucket = (start: Date) => {
    const found = perBucket.get(start.getTime()) ?? { start, steps: 0, histogram: [] };
    perBucket.set(start.getTime(), found);
    return found;
  };
  for (const h of histogram.rows) bucket(h.start).histogram.push(h);
  const perTool = new Map<string, { calls: number; errors: number; timeouts: number }>();
  for (const t of tools.rows) {
    bucket(t.start).steps += t.calls;
    if (!t.tool) continue;
    const sum = perTool.get(t.tool) ?? { calls: 0, errors: 0, timeouts: 0 };
    perTool.set(t.tool, { calls: sum.calls + t.calls, errors: sum.errors + t.errors, timeouts: sum.timeouts + t.timeouts });
  }
  const buckets: BucketRow[] = [...perBucket.values()].map((b) => ({
    start: b.start,
    steps: b.steps,
    latencyP50: histogramPercentile(b.histogram, 0.5, LATENCY_BASE),
    latencyP95: histogramPercentile(b.histogram, 0.95, LATENCY_BASE),
  }));
  const all = histogram.rows;
  const toolStats: ToolStats[] = [...perTool]
    .map(([tool, t]) => ({ tool, ...t, errorRate: toolErrorRate(t.calls, t.errors, t.timeouts) }))
    .sort((a, b) => b.calls - a.calls || a.tool.localeCompare(b.tool))
    .slice(0, TOP_TOOLS);
  return {
    buckets,
    tools: toolStats,
    steps: [...perBucket.values()].reduce((n, b) => n + b.steps, 0),
    latencyP50: histogramPercentile(all, 0.5, LATENCY_BASE),
    latencyP95: histogramPercentile(all, 0.95, LATENCY_BASE),
  };
}

async function countBuckets(
  pool: pg.Pool,
  p: Params | [...Params, string | null] | [...Params, string | null, string | null],
  sql: string,
  field: 'patternsLearned' | 'retrievalsServed' | 'retrievalsCredited',
): Promise<BucketRow[]> {
  const { rows } = await pool.query<{ start: Date; count: number }>(sql, p);
  return rows.map((r) => ({ start: r.start, [field]: r.count }));
}

/** Patterns first seen in the range that are active now; the domain filter applies (patterns have no task type). */
const PATTERNS_SQL = `SELECT ${bucketOf('created_at')} AS start, count(*)::int AS count FROM patterns
  WHERE tenant_id = $1 AND created_at >= $2 AND created_at < $3 AND status = 'active' AND ($6::text IS NULL OR domain = $6)
  GROUP BY 1`;
/** Receipts carry no task type or domain: the count is the tenant's, whatever the filter. */
const SERVED_SQL = `SELECT ${bucketOf('created_at')} AS start, count(*)::int AS count FROM retrievals
  WHERE tenant_id = $1 AND created_at >= $2 AND created_at < $3
  GROUP BY 1`;
const creditedSql = (
  f: DashboardFilter,
) => `SELECT ${bucketOf('l.created_at')} AS start, coalesce(sum(jsonb_array_length(l.payload -> 'retrievalIds')), 0)::int AS count
  FROM ledger_events l
  WHERE l.tenant_id = $1 AND l.type = 'retrieval.feedback' AND l.created_at >= $2 AND l.created_at < $3 AND ${episodeMatch(f, 'l.episode_id')}
  GROUP BY 1`;

/** When the tenant's first run started (the index on (tenant_id, started_at) answers it); null when none did. */
export async function firstRunAt(pool: pg.Pool, tenantId: string): Promise<Date | null> {
  const { rows } = await pool.query<{ first: Date | null }>('SELECT min(started_at) AS first FROM episodes WHERE tenant_id = $1', [tenantId]);
  return rows[0]?.first ?? null;
}

export async function loadDashboard(pool: pg.Pool, tenantId: string, asked: DashboardFilter): Promise<Dashboard> {
  const filter = wholeHours(asked);
  await refreshRollup(pool, tenantId);
  const bucketMs = bucketMsFor(filter);
  const p: Params = [tenantId, filter.from, filter.to, `${bucketMs / 1000} seconds`, alignedStart(filter.from, bucketMs)];
  const [runs, budgets, steps, patterns, served, credited] = await Promise.all([
    runBuckets(pool, p, filter),
    budgetBuckets(pool, p, filter),
    stepAggregates(pool, p, filter),
    countBuckets(pool, [...p, filter.domain], PATTERNS_SQL, 'patternsLearned'),
    countBuckets(pool, p, SERVED_SQL, 'retrievalsServed'),
    countBuckets(pool, isFiltered(filter) ? filtered(p, filter) : p, creditedSql(filter), 'retrievalsCredited'),
  ]);
  const series = buildSeries(filter, bucketMs, [runs, budgets.rows, steps.buckets, patterns, served, credited]);
  return {
    filter,
    bucketMs,
    series,
    totals: totalsOf(series),
    latencyP50: steps.latencyP50,
    latencyP95: steps.latencyP95,
    steps: steps.steps,
    tools: steps.tools,
    budgetExhaustions: budgets.byResource,
  };
}
