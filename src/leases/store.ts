// Leases in the database: locking, conversion to the pure rules' shape, charging.
import type pg from 'pg';
import type { NewLedgerEvent } from '../ledger/store.ts';
import { LeaseError, NotFoundError } from '../schema/errors.ts';
import { isUuid } from '../schema/ids.ts';
import { chargeLease, checkChildLease, type Lease, type LeaseCharge, type LeaseUsage } from './rules.ts';

export interface LeaseRow {
  id: string;
  workItemId: string;
  parentId: string | null;
  lease: Lease;
}

const COLUMNS = `id, work_item_id, parent_id, scope, expires_at, revoked_at, max_episodes, max_tool_calls,
  max_tokens::float8 AS max_tokens, max_wall_ms::float8 AS max_wall_ms, used_episodes, used_tool_calls,
  used_tokens::float8 AS used_tokens, used_wall_ms::float8 AS used_wall_ms`;

function toLeaseRow(r: any): LeaseRow {
  return {
    id: r.id,
    workItemId: r.work_item_id,
    parentId: r.parent_id,
    lease: {
      budget: { episodes: r.max_episodes, toolCalls: r.max_tool_calls, tokens: r.max_tokens, wallMs: r.max_wall_ms },
      consumed: { episodes: r.used_episodes, toolCalls: r.used_tool_calls, tokens: r.used_tokens, wallMs: r.used_wall_ms },
      scope: r.scope ?? [],
      expiresAtMs: r.expires_at ? (r.expires_at as Date).getTime() : null,
      revoked: r.revoked_at !== null,
    },
  };
}

export async function lockLease(client: pg.PoolClient, tenantId: string, id: string): Promise<LeaseRow> {
  if (!isUuid(id)) throw new NotFoundError('Lease', id);
  const { rows } = await client.query(`SELECT ${COLUMNS} FROM leases WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, [tenantId, id]);
  if (!rows.length) throw new NotFoundError('Lease', id);
  return toLeaseRow(rows[0]);
}

/** Charges one finished episode to its lease (seed 000 INV-EP03) and records an exhausted lease. */
export async function chargeEpisodeToLease(
  client: pg.PoolClient,
  tenantId: string,
  leaseId: string,
  usage: LeaseUsage,
  events: NewLedgerEvent[],
): Promise<LeaseCharge> {
  const row = await lockLease(client, tenantId, leaseId);
  const charge = chargeLease(row.lease, usage);
  await client.query(
    `UPDATE leases SET used_episodes = $2, used_tool_calls = $3, used_tokens = $4, used_wall_ms = $5 WHERE id = $1`,
    [leaseId, charge.consumed.episodes, charge.consumed.toolCalls, Math.round(charge.consumed.tokens), Math.round(charge.consumed.wallMs)],
  );
  events.push({ type: 'lease.charged', workItemId: row.workItemId, payload: { leaseId, charge: usage, consumed: charge.consumed, exhausted: charge.exhausted } });
  return charge;
}

export interface WorkItemInput {
  title: string;
  description: string | null;
  metadata: unknown;
}

export async function createWorkItem(client: pg.PoolClient, tenantId: string, input: WorkItemInput, now: Date, events: NewLedgerEvent[]): Promise<string> {
  const { rows } = await client.query(
    'INSERT INTO work_items (tenant_id, title, description, metadata, created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$5) RETURNING id',
    [tenantId, input.title, input.description, JSON.stringify(input.metadata ?? {}), now],
  );
  events.push({ type: 'work_item.created', workItemId: rows[0].id, payload: { title: input.title } });
  return rows[0].id;
}

export interface IssueLeaseInput {
  workItemId: string;
  parentLeaseId: string | null;
  issuer: string;
  holder: string;
  scope: string[];
  expiresAt: Date;
  budget: { episodes: number | null; toolCalls: number | null; tokens: number | null; wallMs: number | null };
}

/** Issues a lease; a child lease (parentLeaseId) may only narrow its parent (seed 000). */
export async function issueLease(client: pg.PoolClient, tenantId: string, input: IssueLeaseInput, now: Date, events: NewLedgerEvent[]): Promise<string> {
  if (!isUuid(input.workItemId) || !(await client.query('SELECT 1 FROM work_items WHERE tenant_id = $1 AND id = $2', [tenantId, input.workItemId])).rowCount) {
    throw new NotFoundError('WorkItem', input.workItemId);
  }
  if (input.parentLeaseId) {
    const parent = await lockLease(client, tenantId, input.parentLeaseId);
    if (parent.workItemId !== input.workItemId) throw new LeaseError(parent.id, 'wrong_work_item', `parent lease ${parent.id} belongs to work item ${parent.workItemId}`);
    const violations = checkChildLease(parent.lease, { budget: input.budget, scope: input.scope, expiresAtMs: input.expiresAt.getTime() }, now.getTime());
    if (violations.length) {
      throw new LeaseError(parent.id, violations[0]!.rule, violations.map((v) => v.message).join('; '),
        violations.map((v) => ({ field: v.field, limit: v.rule, actual: null, message: v.message })));
    }
  }
  const b = input.budget;
  const { rows } = await client.query(
    `INSERT INTO leases (tenant_id, work_item_id, parent_id, issuer, holder, scope, expires_at, max_episodes, max_tool_calls, max_tokens, max_wall_ms, created_at)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12) RETURNING id`,
    [tenantId, input.workItemId, input.parentLeaseId, input.issuer, input.holder, input.scope, input.expiresAt, b.episodes, b.toolCalls, b.tokens, b.wallMs, now],
  );
  events.push({ type: 'lease.issued', workItemId: input.workItemId, payload: { leaseId: rows[0].id, parentLeaseId: input.parentLeaseId, holder: input.holder, scope: input.scope, expiresAt: input.expiresAt.toISOString(), budget: b } });
  return rows[0].id;
}

/** Revokes a lease and every lease derived from it. */
export async function revokeLease(client: pg.PoolClient, tenantId: string, id: string, now: Date, events: NewLedgerEvent[]): Promise<void> {
  const lease = await lockLease(client, tenantId, id);
  const { rows } = await client.query(
    `WITH RECURSIVE tree AS (SELECT id FROM leases WHERE id = $2 AND tenant_id = $1
                             UNION SELECT l.id FROM leases l JOIN tree t ON l.parent_id = t.id WHERE l.tenant_id = $1)
     UPDATE leases SET revoked_at = $3 WHERE id IN (SELECT id FROM tree) AND revoked_at IS NULL RETURNING id`,
    [tenantId, id, now],
  );
  events.push({ type: 'lease.revoked', workItemId: lease.workItemId, payload: { leaseId: id, revoked: rows.map((r: any) => r.id).sort() } });
}
