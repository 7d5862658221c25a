// The dashboard's pure rules: which filters are allowed, how a time range is cut into buckets, how
// the rows PostgreSQL aggregated become a gap-free series with totals No I/O.
import type { LimitViolation } from '../core/errors.ts';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** The dashboard counts whole hours: the range is widened to them (the rollup keeps hours). */
export function wholeHours<T extends Pick<DashboardFilter, 'from' | 'to'>>(f: T): T {
  return { ...f, from: new Date(Math.floor(f.from.getTime() / HOUR_MS) * HOUR_MS), to: new Date(Math.ceil(f.to.getTime() / HOUR_MS) * HOUR_MS) };
}

/** Which rollup rows answer a filter: the dimension and its value (task type and domain joined by U+001F). */
export function rollupKey(f: Pick<DashboardFilter, 'taskType' | 'domain'>): { dimension: string; value: string } {
  if (f.taskType !== null && f.domain !== null) return { dimension: 'task_type_domain', value: `${f.taskType}\u001f${f.domain}` };
  if (f.taskType !== null) return { dimension: 'task_type', value: f.taskType };
  if (f.domain !== null) return { dimension: 'domain', value: f.domain };
  return { dimension: 'all', value: '' };
}

/**
 * A percentile from a latency histogram whose bucket b holds (base^(b-1), base^b] ms (bucket 0:
 * at most 1 ms): the nearest-rank sample's bucket, interpolated linearly inside it. Null when empty.
 */
export function histogramPercentile(histogram: ReadonlyArray<{ bucket: number; count: number }>, p: number, base: number): number | null {
  const sorted = [...histogram].filter((h) => h.count > 0).sort((a, b) => a.bucket - b.bucket);
  const total = sorted.reduce((n, h) => n + h.count, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(p * total));
  let before = 0;
  for (const h of sorted) {
    if (before + h.count >= rank) {
      const lower = h.bucket <= 0 ? 0 : base ** (h.bucket - 1);
      const upper = h.bucket <= 0 ? 1 : base ** h.bucket;
      return lower + ((upper - lower) * (rank - before)) / h.count;
    }
    before += h.count;
  }
  return null;
}

/** Ranges up to this are cut into hours (at most 336 buckets); longer ones into days. */
const HOURLY_UP_TO_MS = 14 * DAY_MS;
/** Ranges up to this are cut into days (at most 731 buckets); longer ones into weeks. */
const DAILY_UP_TO_MS = 731 * DAY_MS;
export const WEEK_MS = 7 * DAY_MS;
/** Ten years of imported history: at most 522 weekly buckets. */
export const MAX_RANGE_DAYS = 3653;
const MAX_RANGE_MS = MAX_RANGE_DAYS * DAY_MS;
const MAX_FILTER_TEXT = 200;
/** Tools listed with their error rate, most used first. */
export const TOP_TOOLS = 12;

export const STATUSES = ['running', 'blocked', 'completed', 'failed', 'cancelled', 'escalated'] as const;

export interface DashboardFilter {
  /** The start of the range; the resolver sets it to the first run's hour when the caller asks for all time. */
  from: Date;
  to: Date;
  taskType: string | null;
  domain: string | null;
}

export function validateDashboardFilter(f: DashboardFilter): LimitViolation[] {
  const violations: LimitViolation[] = [];
  const span = f.to.getTime() - f.from.getTime();
  if (!(span > 0))
    violations.push({ field: 'filter.to', limit: 'after filter.from', actual: f.to.toISOString(), message: 'filter.to must be after filter.from' });
  if (span > MAX_RANGE_MS)
    violations.push({
      field: 'filter.to',
      limit: `${MAX_RANGE_DAYS} days after filter.from`,
      actual: `${Math.ceil(span / DAY_MS)} days`,
      message: `the range may span at most ${MAX_RANGE_DAYS} days`,
    });
  for (const field of ['taskType', 'domain'] as const) {
    const value = f[field];
    if (value !== null && value.length > MAX_FILTER_TEXT) {
      violations.push({
        field: `filter.${field}`,
        limit: `${MAX_FILTER_TEXT} characters`,
        actual: String(value.length),
        message: `filter.${field} may hold at most ${MAX_FILTER_TEXT} characters`,
      });
    }
  }
  return violations;
}

/** Bucket width for a range: hours up to 14 days, days up to 731 days, weeks beyond. */
export function bucketMsFor(f: Pick<DashboardFilter, 'from' | 'to'>): number {
  const span = f.to.getTime() - f.from.getTime();
  return span <= HOURLY_UP_TO_MS ? HOUR_MS : span <= DAILY_UP_TO_MS ? DAY_MS : WEEK_MS;
}

/** The end of the hour `at` falls in (exclusive): a range's `to` when the caller gives none. */
export function endOfHour(at: Date): Date {
  return new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS + HOUR_MS);
}

/**
 * Where a range without `to` ends: after the hour of the tenant's latest run when the range is all
 * time (imported history a year old fills the chart instead of one bar at its left edge), else
 * (or with no run yet) at the end of the current hour.
 */
export function rangeEnd(latestRun: Date | null, allTime: boolean, now: Date): Date {
  return allTime && latestRun ? endOfHour(latestRun) : endOfHour(now);
}

/**
 * The range "all time": from the hour of the tenant's first run (null: none yet, then the last
 * day) to `to`.
 */
export function allTimeFrom(firstRun: Date | null, to: Date): Date {
  const from = firstRun ?? new Date(to.getTime() - DAY_MS);
  return new Date(Math.floor(Math.min(from.getTime(), to.getTime() - HOUR_MS) / HOUR_MS) * HOUR_MS);
}

/** Bucket starts are aligned to whole hours (days: UTC midnight; weeks: a Thursday, as the Unix epoch) so a moving range keeps its buckets. */
export function alignedStart(from: Date, bucketMs: number): Date {
  return new Date(Math.floor(from.getTime() / bucketMs) * bucketMs);
}

/** One bucket of the series; counts are zero where PostgreSQL found nothing. */
export interface Bucket {
  start: Date;
  runs: number;
  byStatus: Record<string, number>;
  successes: number;
  partials: number;
  failures: number;
  tokens: number;
  cost: number;
  budgetExhaustions: number;
  patternsLearned: number;
  retrievalsServed: number;
  retrievalsCredited: number;
  latencyP50: number | null;
  latencyP95: number | null;
  steps: number;
}

export type BucketRow = Partial<Omit<Bucket, 'start'>> & { start: Date };

function emptyBucket(start: Date): Bucket {
  return {
    start,
    runs: 0,
    byStatus: {},
    successes: 0,
    partials: 0,
    failures: 0,
    tokens: 0,
    cost: 0,
    budgetExhaustions: 0,
    patternsLearned: 0,
    retrievalsServed: 0,
    retrievalsCredited: 0,
    latencyP50: null,
    latencyP95: null,
    steps: 0,
  };
}

/** Every bucket from the aligned start to `to`, with the rows of each source merged in. */
export function buildSeries(f: Pick<DashboardFilter, 'from' | 'to'>, bucketMs: number, sources: BucketRow[][]): Bucket[] {
  const series = new Map<number, Bucket>();
  for (let t = alignedStart(f.from, bucketMs).getTime(); t < f.to.getTime(); t += bucketMs) series.set(t, emptyBucket(new Date(t)));
  for (const rows of sources) {
    for (const row of rows) {
      const bucket = series.get(row.start.getTime());
      if (bucket) Object.assign(bucket, { ...row, start: bucket.start, byStatus: { ...bucket.byStatus, ...row.byStatus } });
    }
  }
  return [...series.values()];
}

export interface Totals {
  runs: number;
  ended: number;
  successes: number;
  partials: number;
  failures: number;
  /** successes / ended (a partial outcome is not a success); null when nothing ended. */
  successRate: number | null;
  tokens: number;
  cost: number;
  budgetExhaustions: number;
  patternsLearned: number;
  retrievalsServed: number;
  retrievalsCredited: number;
}

export function totalsOf(series: readonly Bucket[]): Totals {
  const sum = (pick: (b: Bucket) => number) => series.reduce((acc, b) => acc + pick(b), 0);
  const successes = sum((b) => b.successes);
  const partials = sum((b) => b.partials);
  const failures = sum((b) => b.failures);
  const ended = successes + partials + failures;
  return {
    runs: sum((b) => b.runs),
    ended,
    successes,
    partials,
    failures,
    successRate: successRate(successes, ended),
    tokens: sum((b) => b.tokens),
    cost: sum((b) => b.cost),
    budgetExhaustions: sum((b) => b.budgetExhaustions),
    patternsLearned: sum((b) => b.patternsLearned),
    retrievalsServed: sum((b) => b.retrievalsServed),
    retrievalsCredited: sum((b) => b.retrievalsCredited),
  };
}

export const successRate = (successes: number, ended: number): number | null => (ended > 0 ? successes / ended : null);

export interface ToolStats {
  tool: string;
  calls: number;
  errors: number;
  timeouts: number;
  /** (errors + timeouts) / calls */
  errorRate: number;
}

export function toolErrorRate(calls: number, errors: number, timeouts: number): number {
  return calls > 0 ? (errors + timeouts) / calls : 0;
}
