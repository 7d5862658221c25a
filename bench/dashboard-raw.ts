// The baseline of bench:dashboard: the dashboard's runs and step aggregates computed from the raw
// rows at read time (what src/monitor/store.ts did before the rollup): episodes grouped per bucket
// over (tenant_id, started_at), steps' latency percentiles and tool errors in one GROUPING SETS scan.
import type pg from 'pg';
import { alignedStart, bucketMsFor, type DashboardFilter, STATUSES } from '../src/monitor/dashboard.ts';

export async function rawDashboard(pool: pg.Pool, tenantId: string, f: DashboardFilter): Promise<{ totals: { runs: number } }> {
  const bucketMs = bucketMsFor(f);
  const params = [tenantId, f.from, f.to, `${bucketMs / 1000} seconds`, alignedStart(f.from, bucketMs), f.taskType, f.domain];
  const bucket = (column: string) => `date_bin($4::interval, ${column}, $5::timestamptz)`;
  const filter = (alias: string) => `($6::text IS NULL OR ${alias}.task_type = $6) AND ($7::text IS NULL OR ${alias}.domain = $7)`;
  const statuses = STATUSES.map((s) => `count(*) FILTER (WHERE status = '${s}')::int AS ${s}`).join(', ');
  const [episodes] = await Promise.all([
    pool.query<{ runs: number }>(
      `SELECT ${bucket('started_at')} AS start, count(*)::int AS runs, ${statuses},
              count(*) FILTER (WHERE outcome_kind = 'success')::int AS successes, count(*) FILTER (WHERE outcome_kind = 'partial')::int AS partials,
              count(*) FILTER (WHERE outcome_kind = 'failure')::int AS failures, coalesce(sum(used_tokens), 0)::float8 AS tokens, coalesce(sum(used_cost), 0)::float8 AS cost
         FROM episodes e WHERE tenant_id = $1 AND started_at >= $2 AND started_at < $3 AND ${filter('e')} GROUP BY 1`,
      params,
    ),
    pool.query(
      `SELECT ${bucket('s.created_at')} AS start, s.tool, count(*)::int AS steps,
              count(*) FILTER (WHERE s.result_kind = 'error')::int AS errors, count(*) FILTER (WHERE s.result_kind = 'timeout')::int AS timeouts,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY s.latency_ms) AS p50, percentile_cont(0.95) WITHIN GROUP (ORDER BY s.latency_ms) AS p95
         FROM steps s
        WHERE s.tenant_id = $1 AND s.created_at >= $2 AND s.created_at < $3
          AND ($6::text IS NULL AND $7::text IS NULL OR EXISTS (SELECT 1 FROM episodes e WHERE e.id = s.episode_id AND ${filter('e')}))
        GROUP BY GROUPING SETS ((${bucket('s.created_at')}), (s.tool), ())`,
      params,
    ),
  ]);
  return { totals: { runs: episodes.rows.reduce((n, r) => n + r.runs, 0) } };
}
