// The dashboard's aggregates, computed in PostgreSQL and confined to the tenant. Runs, budget
// exhaustions, steps, tools and latency come from the hourly rollup (rollup.ts, brought up to the
// ledger head first); patterns and retrievals are read raw through the monitor migration's
// indexes. Figures at 1M episodes: docs/BENCHMARKS.md.
import type pg from 'pg';
import { Params, queryRows } from '../db/sql.ts';
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

/** What every statement of a dashboard reads: the tenant, the filter (whole hours) and the buckets' width and origin. */
interface Range {
  tenantId: string;
  filter: DashboardFilter;
  width: string;
  origin: Date;
}

const bucketOf = (p: Params, r: Range, column: string) => `date_bin(${p.add(r.width)}::interval, ${column}, ${p.add(r.origin)}::timestamptz)`;
const inRange = (p: Params, r: Range, column: string) => `${column} >= ${p.add(r.filter.from)} AND ${column} < ${p.add(r.filter.to)}`;
/** A null filter value matches any. */
const matches = (p: Params, column: string, value: string | null) => {
  const placed = p.add(value);
  return `(${placed}::text IS NULL OR ${column} = ${placed})`;
};
/** For rows of other tables that belong to an episode: only when a filter is set (else no join). */
function episodeMatch(p: Params, r: Range, idColumn: string): string {
  const f = r.filter;
  if (f.taskType === null && f.domain === null) return 'true';
  return `EXISTS (SELECT 1 FROM episodes e WHERE e.id = ${idColumn} AND e.tenant_id = ${p.add(r.tenantId)}
    AND ${matches(p, 'e.task_type', f.taskType)} AND ${matches(p, 'e.domain', f.domain)})`;
}
/** Rollup rows of the filter's dimension in the range. */
function rollupWhere(p: Params, r: Range): string {
  const key = rollupKey(r.filter);
  return `tenant_id = ${p.add(r.tenantId)} AND dimension = ${p.add(key.dimension)} AND value = ${p.add(key.value)} AND ${inRange(p, r, 'hour')}`;
}

/** A row of runBuckets' query: the monitor_hours sums of one bucket. */
type RunBucketSqlRow = { start: Date; runs: number; successes: number; partials: number; failures: number; tokens: number; cost: number } & Record<
  (typeof STATUSES)[number],
  number
>;

async function runBuckets(pool: pg.Pool, r: Range): Promise<BucketRow[]> {
  const statuses = STATUSES.map((s) => `sum(${s})::int AS ${s}`).join(', ');
  const p = new Params();
  const sql = `SELECT ${bucketOf(p, r, 'hour')} AS start, sum(runs)::int AS runs, ${statuses}, sum(successes)::int AS successes, sum(partials)::int AS partials,
            sum(failures)::int AS failures, sum(tokens)::float8 AS tokens, sum(cost)::float8 AS cost
       FROM monitor_hours WHERE ${rollupWhere(p, r)} GROUP BY 1`;
  const rows = await queryRows<RunBucketSqlRow>(pool, sql, p);
  return rows.map((row) => ({ ...row, byStatus: Object.fromEntries(STATUSES.map((s) => [s, row[s]])) }));
}

async function budgetBuckets(pool: pg.Pool, r: Range): Promise<{ rows: BucketRow[]; byResource: BudgetExhaustion[] }> {
  const p = new Params();
  const sql = `SELECT ${bucketOf(p, r, 'hour')} AS start, resource, sum(count)::int AS count FROM monitor_hour_budgets WHERE ${rollupWhere(p, r)} GROUP BY 1, 2`;
  const rows = await queryRows<{ start: Date; resource: string; count: number }>(pool, sql, p);
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
async function stepAggregates(pool: pg.Pool, r: Range) {
  const [histogram, tools] = await Promise.all([latencyHistograms(pool, r), toolSums(pool, r)]);
  const perBucket = new Map<number, { start: Date; steps: number; histogram: Array<{ bucket: number; count: number }> }>();
  const bucket = (start: Date) => {
    const found = perBucket.get(start.getTime()) ?? { start, steps: 0, histogram: [] };
    perBucket.set(start.getTime(), found);
    return found;
  };
  for (const h of histogram) bucket(h.start).histogram.push(h);
  const perTool = new Map<string, { calls: number; errors: number; timeouts: number }>();
  for (const t of tools) {
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
  const all = histogram;
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

async function latencyHistograms(pool: pg.Pool, r: Range) {
  const p = new Params();
  const sql = `SELECT ${bucketOf(p, r, 'hour')} AS start, bucket, sum(count)::int AS count FROM monitor_hour_latencies WHERE ${rollupWhere(p, r)} GROUP BY 1, 2`;
  return queryRows<{ start: Date; bucket: number; count: number }>(pool, sql, p);
}

async function toolSums(pool: pg.Pool, r: Range) {
  const p = new Params();
  const sql = `SELECT ${bucketOf(p, r, 'hour')} AS start, tool, sum(calls)::int AS calls, sum(errors)::int AS errors, sum(timeouts)::int AS timeouts
         FROM monitor_hour_tools WHERE ${rollupWhere(p, r)} GROUP BY 1, 2`;
  return queryRows<{ start: Date; tool: string; calls: number; errors: number; timeouts: number }>(pool, sql, p);
}

async function countBuckets(
  pool: pg.Pool,
  r: Range,
  sqlOf: (p: Params, r: Range) => string,
  field: 'patternsLearned' | 'retrievalsServed' | 'retrievalsCredited',
): Promise<BucketRow[]> {
  const p = new Params();
  const rows = await queryRows<{ start: Date; count: number }>(pool, sqlOf(p, r), p);
  return rows.map((row) => ({ start: row.start, [field]: row.count }));
}

/** Patterns first seen in the range that are active now; the domain filter applies (patterns have no task type). */
const patternsSql = (p: Params, r: Range) => `SELECT ${bucketOf(p, r, 'created_at')} AS start, count(*)::int AS count FROM patterns
  WHERE tenant_id = ${p.add(r.tenantId)} AND ${inRange(p, r, 'created_at')} AND status = 'active' AND ${matches(p, 'domain', r.filter.domain)}
  GROUP BY 1`;
/** Receipts carry no task type or domain: the count is the tenant's, whatever the filter. */
const servedSql = (p: Params, r: Range) => `SELECT ${bucketOf(p, r, 'created_at')} AS start, count(*)::int AS count FROM retrievals
  WHERE tenant_id = ${p.add(r.tenantId)} AND ${inRange(p, r, 'created_at')}
  GROUP BY 1`;
const creditedSql = (
  p: Params,
  r: Range,
) => `SELECT ${bucketOf(p, r, 'l.created_at')} AS start, coalesce(sum(jsonb_array_length(l.payload -> 'retrievalIds')), 0)::int AS count
  FROM ledger_events l
  WHERE l.tenant_id = ${p.add(r.tenantId)} AND l.type = 'retrieval.feedback' AND ${inRange(p, r, 'l.created_at')} AND ${episodeMatch(p, r, 'l.episode_id')}
  GROUP BY 1`;

/** When the tenant's first and latest runs started (the index on (tenant_id, started_at) answers it); null when none did. */
export async function runSpan(pool: pg.Pool, tenantId: string): Promise<{ first: Date | null; latest: Date | null }> {
  const p = new Params();
  const sql = `SELECT min(started_at) AS first, max(started_at) AS latest FROM episodes WHERE tenant_id = ${p.add(tenantId)}`;
  const [row] = await queryRows<{ first: Date | null; latest: Date | null }>(pool, sql, p);
  return { first: row?.first ?? null, latest: row?.latest ?? null };
}

export async function loadDashboard(pool: pg.Pool, tenantId: string, asked: DashboardFilter): Promise<Dashboard> {
  const filter = wholeHours(asked);
  await refreshRollup(pool, tenantId);
  const bucketMs = bucketMsFor(filter);
  const r: Range = { tenantId, filter, width: `${bucketMs / 1000} seconds`, origin: alignedStart(filter.from, bucketMs) };
  const [runs, budgets, steps, patterns, served, credited] = await Promise.all([
    runBuckets(pool, r),
    budgetBuckets(pool, r),
    stepAggregates(pool, r),
    countBuckets(pool, r, patternsSql, 'patternsLearned'),
    countBuckets(pool, r, servedSql, 'retrievalsServed'),
    countBuckets(pool, r, creditedSql, 'retrievalsCredited'),
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
