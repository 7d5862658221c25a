// Work items in the database. Every write that touches a work item's episodes numbering, its
// leases' accounting or its loop state locks the work item row first, so those writes serialise
// per work item in one lock order (work item, then leases) and cannot deadlock each other.
import type pg from 'pg';
import { NotFoundError } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { must } from '../core/must.ts';
import type { NewLedgerEvent } from '../core/write-context.ts';
import { insertInto, Params, queryRows } from '../db/sql.ts';
import type { StopReason } from '../stops/stop-reason.ts';

export interface WorkItemRow {
  id: string;
  lastEpisodeNumber: number;
  /** How many episodes the work item's loop may run in all; null is unlimited. */
  maxEpisodes: number | null;
  /** Set once the loop stopped; starts are refused while it is. */
  stopCondition: StopReason | null;
}

interface WorkItemSqlRow {
  id: string;
  last_episode_number: number;
  max_episodes: number | null;
  stop_condition: StopReason | null;
}

export async function lockWorkItem(client: pg.PoolClient, tenantId: string, id: string): Promise<WorkItemRow> {
  if (!isUuid(id)) throw new NotFoundError('WorkItem', id);
  const p = new Params();
  const sql = `SELECT id, last_episode_number, max_episodes, stop_condition FROM work_items WHERE tenant_id = ${p.add(tenantId)} AND id = ${p.add(id)} FOR UPDATE`;
  const r = (await queryRows<WorkItemSqlRow>(client, sql, p))[0];
  if (!r) throw new NotFoundError('WorkItem', id);
  return { id: r.id, lastEpisodeNumber: r.last_episode_number, maxEpisodes: r.max_episodes, stopCondition: r.stop_condition };
}

/** Episodes of the work item: all of them (what its max episodes bounds) or those that ended. */
export async function countEpisodes(client: pg.PoolClient, workItemId: string, which: 'started' | 'ended'): Promise<number> {
  const ended = which === 'ended' ? ` AND status NOT IN ('running', 'blocked')` : '';
  const p = new Params();
  const rows = await queryRows<{ n: number }>(client, `SELECT count(*)::int AS n FROM episodes WHERE work_item_id = ${p.add(workItemId)}${ended}`, p);
  return must(rows[0]).n;
}

export interface WorkItemInput {
  title: string;
  description: string | null;
  metadata: unknown;
  maxEpisodes: number | null;
}

export async function createWorkItem(client: pg.PoolClient, tenantId: string, input: WorkItemInput, now: Date, events: NewLedgerEvent[]): Promise<string> {
  const p = new Params();
  const insert = insertInto(p, 'work_items', {
    tenant_id: tenantId,
    title: input.title,
    description: input.description,
    metadata: JSON.stringify(input.metadata ?? {}),
    max_episodes: input.maxEpisodes,
    created_at: now,
    updated_at: now,
  });
  const id = must((await queryRows<{ id: string }>(client, `${insert} RETURNING id`, p))[0]).id;
  events.push({ type: 'work_item.created', workItemId: id, payload: { title: input.title, maxEpisodes: input.maxEpisodes } });
  return id;
}
