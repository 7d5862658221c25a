// Lease rows: the columns the rules decide on, converted to the pure rules' shape, and locking.
import type pg from 'pg';
import { NotFoundError } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { Params, queryRows } from '../db/sql.ts';
import type { Lease } from './rules.ts';

export interface LeaseRow {
  id: string;
  workItemId: string;
  parentId: string | null;
  lease: Lease;
}

export const LEASE_COLUMNS = `id, work_item_id, parent_id, scope, expires_at, revoked_at, max_episodes, max_tool_calls,
  max_tokens::float8 AS max_tokens, max_wall_ms::float8 AS max_wall_ms, used_episodes, used_tool_calls,
  used_tokens::float8 AS used_tokens, used_wall_ms::float8 AS used_wall_ms`;

/** A row of LEASE_COLUMNS as pg returns it (the float8 casts make the bigints numbers). */
export interface LeaseSqlRow {
  id: string;
  work_item_id: string;
  parent_id: string | null;
  scope: string[] | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  max_episodes: number | null;
  max_tool_calls: number | null;
  max_tokens: number | null;
  max_wall_ms: number | null;
  used_episodes: number;
  used_tool_calls: number;
  used_tokens: number;
  used_wall_ms: number;
}

export function toLeaseRow(r: LeaseSqlRow): LeaseRow {
  return {
    id: r.id,
    workItemId: r.work_item_id,
    parentId: r.parent_id,
    lease: {
      budget: { episodes: r.max_episodes, toolCalls: r.max_tool_calls, tokens: r.max_tokens, wallMs: r.max_wall_ms },
      consumed: { episodes: r.used_episodes, toolCalls: r.used_tool_calls, tokens: r.used_tokens, wallMs: r.used_wall_ms },
      scope: r.scope ?? [],
      expiresAtMs: r.expires_at ? r.expires_at.getTime() : null,
      revoked: r.revoked_at !== null,
    },
  };
}

async function selectLease(client: pg.PoolClient, tenantId: string, id: string, lock: boolean): Promise<LeaseRow> {
  if (!isUuid(id)) throw new NotFoundError('Lease', id);
  const p = new Params();
  const sql = `SELECT ${LEASE_COLUMNS} FROM leases WHERE tenant_id = ${p.add(tenantId)} AND id = ${p.add(id)}${lock ? ' FOR UPDATE' : ''}`;
  const [row] = await queryRows<LeaseSqlRow>(client, sql, p);
  if (!row) throw new NotFoundError('Lease', id);
  return toLeaseRow(row);
}

/** Reads a lease without locking it: callers learn its work item, lock that first, then lockLease. */
export const readLease = (client: pg.PoolClient, tenantId: string, id: string) => selectLease(client, tenantId, id, false);

export const lockLease = (client: pg.PoolClient, tenantId: string, id: string) => selectLease(client, tenantId, id, true);
