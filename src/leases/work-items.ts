// Work items in the database. Every write that touches a work item's episodes numbering, its
// leases' accounting or its loop state locks the work item row first, so those writes serialise
// per work item in one lock order (work item, then leases) and cannot deadlock each other.
import type pg from 'pg';
import { NotFoundError } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import type { NewLedgerEvent } from '../core/write-context.ts';
import type { StopReason } from '../stops/stop-reason.ts';

export interface WorkItemRow {
  id: string;
  lastEpisodeNumber: number;
  /** How many episodes the work item's loop may run in all; null is unlimited. */
  maxEpisodes: number | null;
  /** Set once the loop stopped; starts are refused while it is. */
  stopCondition: StopReason | null;
}

export async function lockWorkItem(client: pg.PoolClient, tenantId: string, id: string): Promise<WorkItemRow> {
  if (!isUuid(id)) throw new NotFoundError('WorkItem', id);
  const { rows } = await client.query(
    'SELECT id, last_episode_number, max_episodes, stop_condition FROM work_items WHERE tenant_id = $1 AND id = $2 FOR UPDATE',
    [tenantId, id],
  );
  if (!rows.length) throw new NotFoundError('WorkItem', id);
  const r = rows[0];
  return { id: r.id, lastEpisodeNumber: r.last_episode_number, maxEpisodes: r.max_episodes, stopCondition: r.stop_condition };
}

/** Episodes of the work item: all of them (what its max episodes bounds) or those that ended. */
export async function countEpisodes(client: pg.PoolClient, workItemId: string, which: 'started' | 'ended'): Promise<number> {
  const ended = which === 'ended' ? ` AND status NOT IN ('running', 'blocked')` : '';
  const { rows } = await client.query(`SELECT count(*)::int AS n FROM episodes WHERE work_item_id = $1${ended}`, [workItemId]);
  return rows[0].n;
}

export interface WorkItemInput {
  title: string;
  description: string | null;
  metadata: unknown;
  maxEpisodes: number | null;
}

export async function createWorkItem(client: pg.PoolClient, tenantId: string, input: WorkItemInput, now: Date, events: NewLedgerEvent[]): Promise<string> {
  const { rows } = await client.query(
    'INSERT INTO work_items (tenant_id, title, description, metadata, max_episodes, created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$6) RETURNING id',
    [tenantId, input.title, input.description, JSON.stringify(input.metadata ?? {}), input.maxEpisodes, now],
  );
  events.push({ type: 'work_item.created', workItemId: rows[0].id, payload: { title: input.title, maxEpisodes: input.maxEpisodes } });
  return rows[0].id;
}
