// The dashboard's hourly rollup. Scanning raw rows does not stay fast: at 1M episodes a 30-day
// range read 333k episodes and 1M steps (3 s). So runs, tools and a step latency histogram are
// kept per hour and per filter dimension (all, task type, domain, both), and the dashboard sums
// hours. Every figure counts in the hour its run started (the episode's own time, historical for
// an imported run), steps, tokens and tool errors included: counted by when they were journaled,
// a year of imported runs showed 3 runs beside 14,000 steps. The rollup follows the ledger: before
// each read, the hours of the episodes with events after the tenant's watermark are rebuilt from
// the raw rows, in one transaction that holds the tenant's state row (concurrent readers wait,
// then find it current). Nothing is added to the write path. The first read of a tenant (no state
// yet) builds every hour.
import type pg from 'pg';
import type { LedgerHeadsRow, MonitorRollupStatesRow } from '../db/rows.ts';
import { Params, queryRows } from '../db/sql.ts';
import { withTransaction } from '../db/tx.ts';
import { STATUSES } from './dashboard.ts';

/** Latency histogram: bucket b holds (1.1^(b-1), 1.1^b] ms, so a percentile is within 5%. */
export const LATENCY_BASE = 1.1;

const DIMENSIONS = `(VALUES ('all', ''), ('task_type', e.task_type), ('domain', coalesce(e.domain, '')), ('task_type_domain', e.task_type || chr(31) || coalesce(e.domain, ''))) AS d(dimension, value)`;
const BUCKET = `CASE WHEN s.latency_ms <= 1 THEN 0 ELSE ceil(ln(s.latency_ms) / ln(${LATENCY_BASE}))::int END`;

/** Hours to rebuild: null for every hour of the tenant. */
type Hours = Date[] | null;

/** Rows of the listed hours; the hours' bounds, as values too, let the plan use the time indexes. */
function hourFilter(p: Params, column: string, hours: Hours): string {
  if (hours === null) return 'true';
  const times = hours.map((h) => h.getTime());
  const [from, to] = [new Date(Math.min(...times)), new Date(Math.max(...times) + 3_600_000)];
  return `date_trunc('hour', ${column}) = ANY(${p.add(hours)}::timestamptz[]) AND ${column} >= ${p.add(from)} AND ${column} < ${p.add(to)}`;
}

async function rebuild(client: pg.PoolClient, tenantId: string, hours: Hours): Promise<void> {
  for (const table of ['monitor_hours', 'monitor_hour_budgets', 'monitor_hour_tools', 'monitor_hour_latencies']) {
    const p = new Params();
    await client.query(
      `DELETE FROM ${table} WHERE tenant_id = ${p.add(tenantId)} AND ${hours === null ? 'true' : `hour = ANY(${p.add(hours)}::timestamptz[])`}`,
      p.values,
    );
  }
  for (const statement of [runsSql, budgetsSql, toolsSql, latenciesSql]) {
    const p = new Params();
    const tenant = p.add(tenantId);
    await client.query(statement(tenant, `e.tenant_id = ${tenant} AND ${hourFilter(p, 'e.started_at', hours)}`), p.values);
  }
}

// Each statement rebuilds one rollup table from the episodes `where` selects (of the tenant `tenant`).

function runsSql(tenant: string, where: string): string {
  const statuses = STATUSES.map((s) => `count(*) FILTER (WHERE e.status = '${s}')`).join(', ');
  return `INSERT INTO monitor_hours (tenant_id, dimension, value, hour, runs, ${STATUSES.join(', ')}, successes, partials, failures, tokens, cost)
     SELECT ${tenant}, d.dimension, d.value, date_trunc('hour', e.started_at), count(*), ${statuses},
            count(*) FILTER (WHERE e.outcome_kind = 'success'), count(*) FILTER (WHERE e.outcome_kind = 'partial'),
            count(*) FILTER (WHERE e.outcome_kind = 'failure'), coalesce(sum(e.used_tokens), 0), coalesce(sum(e.used_cost), 0)
       FROM episodes e CROSS JOIN LATERAL ${DIMENSIONS}
      WHERE ${where}
      GROUP BY 2, 3, 4`;
}

function budgetsSql(tenant: string, where: string): string {
  return `INSERT INTO monitor_hour_budgets (tenant_id, dimension, value, hour, resource, count)
     SELECT ${tenant}, d.dimension, d.value, date_trunc('hour', e.started_at), coalesce(e.stop_reason ->> 'resource', 'unknown'), count(*)
       FROM episodes e CROSS JOIN LATERAL ${DIMENSIONS}
      WHERE ${where} AND (e.stop_reason ->> 'kind') = 'budget_exhausted'
      GROUP BY 2, 3, 4, 5`;
}

// Steps in the hour their episode started, under its task type and domain (the episodes are
// found through their time index, their steps through (episode_id, step_number)).
const stepsOf = (where: string) => `FROM episodes e JOIN steps s ON s.episode_id = e.id CROSS JOIN LATERAL ${DIMENSIONS} WHERE ${where}`;

function toolsSql(tenant: string, where: string): string {
  return `INSERT INTO monitor_hour_tools (tenant_id, dimension, value, hour, tool, calls, errors, timeouts)
     SELECT ${tenant}, d.dimension, d.value, date_trunc('hour', e.started_at), coalesce(s.tool, ''), count(*),
            count(*) FILTER (WHERE s.result_kind = 'error'), count(*) FILTER (WHERE s.result_kind = 'timeout')
       ${stepsOf(where)}
      GROUP BY 2, 3, 4, 5`;
}

function latenciesSql(tenant: string, where: string): string {
  return `INSERT INTO monitor_hour_latencies (tenant_id, dimension, value, hour, bucket, count)
     SELECT ${tenant}, d.dimension, d.value, date_trunc('hour', e.started_at), ${BUCKET}, count(*)
       ${stepsOf(where)} AND s.latency_ms IS NOT NULL
      GROUP BY 2, 3, 4, 5`;
}

/** The hours of the episodes with events after `afterSeq`: when they started. */
async function touchedHours(client: pg.PoolClient, tenantId: string, afterSeq: string, headSeq: string): Promise<Date[]> {
  // The ids first, as a value: joined as a subquery, the planner guessed many and scanned every step.
  const t = new Params();
  const touched = await queryRows<{ id: string }>(
    client,
    `SELECT DISTINCT episode_id AS id FROM ledger_events
      WHERE tenant_id = ${t.add(tenantId)} AND seq > ${t.add(afterSeq)} AND seq <= ${t.add(headSeq)} AND episode_id IS NOT NULL`,
    t,
  );
  if (touched.length === 0) return [];
  const h = new Params();
  const sql = `SELECT DISTINCT date_trunc('hour', started_at) AS hour FROM episodes WHERE id = ANY(${h.add(touched.map((r) => r.id))}::uuid[])`;
  return (await queryRows<{ hour: Date }>(client, sql, h)).map((r) => r.hour);
}

/** Brings the tenant's rollup up to its ledger head. Returns the hours rebuilt (null: all). */
export async function refreshRollup(pool: pg.Pool, tenantId: string): Promise<Hours | 'current'> {
  // Most reads find the rollup current: say so without a transaction or a row lock.
  const p = new Params();
  const tenant = p.add(tenantId);
  const [check] = await queryRows<{ current: boolean }>(
    pool,
    `SELECT coalesce((SELECT seq FROM monitor_rollup_states WHERE tenant_id = ${tenant}), -1) = coalesce((SELECT seq FROM ledger_heads WHERE tenant_id = ${tenant}), 0) AS current`,
    p,
  );
  if (check?.current) return 'current';
  return withTransaction(pool, async (client): Promise<Hours | 'current'> => {
    // p holds the tenant alone: each statement below places it as ${tenant}.
    await client.query(`INSERT INTO monitor_rollup_states (tenant_id, seq) VALUES (${tenant}, -1) ON CONFLICT (tenant_id) DO NOTHING`, p.values);
    const [state] = await queryRows<Pick<MonitorRollupStatesRow, 'seq'>>(
      client,
      `SELECT seq FROM monitor_rollup_states WHERE tenant_id = ${tenant} FOR UPDATE`,
      p,
    );
    const [head] = await queryRows<Pick<LedgerHeadsRow, 'seq'>>(client, `SELECT seq FROM ledger_heads WHERE tenant_id = ${tenant}`, p);
    const seen = String(state?.seq ?? -1);
    const headSeq = String(head?.seq ?? 0);
    if (seen === headSeq) {
      return 'current';
    }
    const hours = seen === '-1' ? null : await touchedHours(client, tenantId, seen, headSeq);
    if (hours === null || hours.length > 0) await rebuild(client, tenantId, hours);
    const u = new Params();
    await client.query(`UPDATE monitor_rollup_states SET seq = ${u.add(headSeq)} WHERE tenant_id = ${u.add(tenantId)}`, u.values);
    return hours;
  });
}
