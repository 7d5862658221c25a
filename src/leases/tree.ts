// A lease with everything issued under it, and what their live episodes hold: the input of the
// accounting rules (accounting.ts). Reservations are computed from these rows on every use instead
// of being stored, so they cannot drift, and an expired child releases its budget the moment it
// expires without any job having to run.
import type pg from 'pg';
import { Params } from '../db/sql.ts';
import { type LeaseNode, type LeaseStanding, leaseStanding, reservedAmounts } from './accounting.ts';
import { LEASE_COLUMNS, type LeaseSqlRow, toLeaseRow } from './row.ts';
import type { LeaseUsage } from './rules.ts';

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** The lease `id` of the tenant and every lease under it, each with what its live episodes hold. */
function treeSql(p: Params, tenantId: string, id: string): string {
  const tenant = p.add(tenantId);
  return `
  WITH RECURSIVE tree AS (
    SELECT id FROM leases WHERE tenant_id = ${tenant} AND id = ${p.add(id)}
    UNION ALL
    SELECT l.id FROM leases l JOIN tree t ON l.parent_id = t.id WHERE l.tenant_id = ${tenant}
  )
  SELECT ${LEASE_COLUMNS}, h.held_episodes, h.held_tool_calls, h.held_tokens, h.held_wall_ms
    FROM leases JOIN tree USING (id)
    CROSS JOIN LATERAL (
      SELECT coalesce(sum((e.lease_hold->>'episodes')::float8), 0) AS held_episodes,
             coalesce(sum((e.lease_hold->>'toolCalls')::float8), 0) AS held_tool_calls,
             coalesce(sum((e.lease_hold->>'tokens')::float8), 0) AS held_tokens,
             coalesce(sum((e.lease_hold->>'wallMs')::float8), 0) AS held_wall_ms
        FROM episodes e
       -- Running and blocked episodes hold their part of the lease; an ending releases it.
       WHERE e.lease_id = leases.id AND e.status IN ('running', 'blocked')
    ) h`;
}

/** A row of treeSql: the lease's columns and what its live episodes hold. */
interface LeaseTreeSqlRow extends LeaseSqlRow {
  held_episodes: number;
  held_tool_calls: number;
  held_tokens: number;
  held_wall_ms: number;
}

/** The subtree rooted at lease `id` (empty when the lease does not exist in the tenant). */
export async function loadLeaseTree(db: Queryable, tenantId: string, id: string): Promise<LeaseNode[]> {
  const p = new Params();
  const { rows } = await db.query<LeaseTreeSqlRow>(treeSql(p, tenantId, id), p.values);
  return rows.map((r) => {
    const { id: leaseId, parentId, lease } = toLeaseRow(r);
    const held: LeaseUsage = { episodes: r.held_episodes, toolCalls: r.held_tool_calls, tokens: r.held_tokens, wallMs: r.held_wall_ms };
    return { id: leaseId, parentId, lease, held };
  });
}

/** What lease `id` has reserved (holds of its live episodes and what its children may still spend). */
export async function leaseReserved(db: Queryable, tenantId: string, id: string, now: Date): Promise<LeaseUsage> {
  return reservedAmounts(await loadLeaseTree(db, tenantId, id), id, now.getTime());
}

/** consumed, reserved and remaining of a lease, for the API. */
export async function readLeaseStanding(db: Queryable, tenantId: string, id: string, now: Date): Promise<LeaseStanding | null> {
  const nodes = await loadLeaseTree(db, tenantId, id);
  return nodes.length ? leaseStanding(nodes, id, now.getTime()) : null;
}
