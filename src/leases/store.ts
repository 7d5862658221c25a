// Issuing and revoking leases. A child reserves its budget on its parent when issued and gives the
// unspent part back when revoked (accounting.ts); both lock the work item first (work-items.ts).
import type pg from 'pg';
import { LeaseError } from '../core/errors.ts';
import { sameId } from '../core/ids.ts';
import { must } from '../core/must.ts';
import type { NewLedgerEvent } from '../core/write-context.ts';
import type { LeasesRow } from '../db/rows.ts';
import { insertInto, Params, queryRows } from '../db/sql.ts';
import { addUsage, childReservation, type LeaseNode, shareOnParent, subtractUsage } from './accounting.ts';
import { type LeaseRow, lockLease, readLease } from './row.ts';
import { checkChildLease, type LeaseBudget, type LeaseUsage, remainingLeaseBudget } from './rules.ts';
import { leaseReserved, loadLeaseTree } from './tree.ts';
import { lockWorkItem } from './work-items.ts';

export { createWorkItem, type WorkItemInput } from './work-items.ts';

export interface IssueLeaseInput {
  workItemId: string;
  parentLeaseId: string | null;
  issuer: string;
  holder: string;
  scope: string[];
  expiresAt: Date;
  budget: LeaseBudget;
}

interface ParentReservation {
  reserved: LeaseUsage;
  parentRemaining: LeaseBudget;
}

/** Checks a child against what its parent has left unreserved; what it will reserve there. */
async function reserveOnParent(client: pg.PoolClient, tenantId: string, input: IssueLeaseInput, now: Date): Promise<ParentReservation> {
  const parent = await lockLease(client, tenantId, must(input.parentLeaseId));
  if (!sameId(parent.workItemId, input.workItemId))
    throw new LeaseError(parent.id, 'wrong_work_item', `parent lease ${parent.id} belongs to work item ${parent.workItemId}`);
  const reservedBefore = await leaseReserved(client, tenantId, parent.id, now);
  const child = { budget: input.budget, scope: input.scope, expiresAtMs: input.expiresAt.getTime() };
  const violations = checkChildLease(parent.lease, child, now.getTime(), reservedBefore);
  if (violations.length) {
    throw new LeaseError(
      parent.id,
      must(violations[0]).rule,
      violations.map((v) => v.message).join('; '),
      violations.map((v) => ({ field: v.field, limit: v.rule, actual: null, message: v.message })),
    );
  }
  const reserved = childReservation(parent.lease.budget, input.budget);
  return { reserved, parentRemaining: remainingLeaseBudget(parent.lease, addUsage(reservedBefore, reserved)) };
}

/** Issues a lease; a child lease (parentLeaseId) may only narrow its parent and reserves its budget there. */
export async function issueLease(client: pg.PoolClient, tenantId: string, input: IssueLeaseInput, now: Date, events: NewLedgerEvent[]): Promise<string> {
  await lockWorkItem(client, tenantId, input.workItemId);
  const onParent = input.parentLeaseId !== null ? await reserveOnParent(client, tenantId, input, now) : null;
  const b = input.budget;
  const p = new Params();
  const insert = insertInto(p, 'leases', {
    tenant_id: tenantId,
    work_item_id: input.workItemId,
    parent_id: input.parentLeaseId,
    issuer: input.issuer,
    holder: input.holder,
    scope: input.scope,
    expires_at: input.expiresAt,
    max_episodes: b.episodes,
    max_tool_calls: b.toolCalls,
    max_tokens: b.tokens,
    max_wall_ms: b.wallMs,
    created_at: now,
  });
  const leaseId = must((await queryRows<{ id: string }>(client, `${insert} RETURNING id`, p))[0]).id;
  events.push({
    type: 'lease.issued',
    workItemId: input.workItemId,
    payload: {
      leaseId,
      parentLeaseId: input.parentLeaseId,
      holder: input.holder,
      scope: input.scope,
      expiresAt: input.expiresAt.toISOString(),
      budget: b,
      ...(onParent ? { reservedOnParent: onParent.reserved, parentRemaining: onParent.parentRemaining } : {}),
    },
  });
  return leaseId;
}

const markRevoked = (nodes: LeaseNode[], ids: Set<string>): LeaseNode[] =>
  nodes.map((n) => (ids.has(n.id) ? { ...n, lease: { ...n.lease, revoked: true } } : n));

/** Revokes a lease and every lease derived from it; the unspent part of its reservation returns to its parent. */
export async function revokeLease(client: pg.PoolClient, tenantId: string, asked: string, now: Date, events: NewLedgerEvent[]): Promise<void> {
  const found: LeaseRow = await readLease(client, tenantId, asked);
  // The stored id from here on: the one asked for may be in upper case, and the ledger keeps one spelling.
  const id = found.id;
  await lockWorkItem(client, tenantId, found.workItemId);
  const lease = await lockLease(client, tenantId, id);
  const nodes = await loadLeaseTree(client, tenantId, id);
  const p = new Params();
  const sql = `UPDATE leases SET revoked_at = ${p.add(now)} WHERE tenant_id = ${p.add(tenantId)} AND id = ANY(${p.add(nodes.map((n) => n.id))}::uuid[]) AND revoked_at IS NULL RETURNING id`;
  const revoked = (await queryRows<Pick<LeasesRow, 'id'>>(client, sql, p)).map((r) => r.id).sort();
  // What the revoked lease weighed on its parent before and after: the difference goes back. Live
  // episodes under it keep their holds until they end, so the parent is never overdrawn by them.
  const released = lease.parentId
    ? subtractUsage(shareOnParent(nodes, id, now.getTime()), shareOnParent(markRevoked(nodes, new Set(revoked)), id, now.getTime()))
    : null;
  events.push({
    type: 'lease.revoked',
    workItemId: lease.workItemId,
    payload: { leaseId: id, parentLeaseId: lease.parentId, revoked, releasedToParent: released },
  });
}
