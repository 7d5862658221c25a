// The server's side of the episode loop of a work item: it refuses a start once the loop
// has stopped, decides the stop condition when an episode ends (the rules are pure, in
// src/stops/loop-stop.ts), records it on the work item with a ledger event, and lets an
// operator resume the loop. The work item row is locked by the caller (work-items.ts).
import type pg from 'pg';
import { InputLimitError } from '../core/errors.ts';
import type { NewLedgerEvent } from '../core/write-context.ts';
import { Params } from '../db/sql.ts';
import { type LoopStopInput, loopStopCondition, startRefusal } from '../stops/loop-stop.ts';
import type { StopReason } from '../stops/stop-reason.ts';
import { LoopStoppedError } from './errors.ts';
import { countEpisodes, lockWorkItem, type WorkItemRow } from './work-items.ts';

function describeStop(stop: StopReason): string {
  if (stop.kind === 'budget_exhausted') return `budget_exhausted (${stop.resource})`;
  if (stop.kind === 'max_episodes') return 'max_episodes';
  return 'reason' in stop && stop.reason ? `${stop.kind} (${stop.reason})` : 'message' in stop ? `${stop.kind} (${stop.message})` : stop.kind;
}

/** Throws LoopStoppedError when the work item may not start another episode. */
export async function checkLoopOpen(client: pg.PoolClient, item: WorkItemRow): Promise<void> {
  const started = item.maxEpisodes === null ? 0 : await countEpisodes(client, item.id, 'started');
  const refusal = startRefusal(item, started);
  if (!refusal) return;
  const why = item.stopCondition
    ? `the loop of work item ${item.id} stopped: ${describeStop(refusal)}; resumeWorkItem continues it`
    : `work item ${item.id} has started ${started} of its ${item.maxEpisodes} max episodes`;
  throw new LoopStoppedError(item.id, refusal, why);
}

export interface EndedEpisode {
  id: string;
  leaseId: string | null;
  holonStop: StopReason | null;
}

/**
 * After an episode of the work item ended: the loop's stop condition, recorded the first time it is
 * set (a later ending of a concurrent episode leaves the first stop in place) and returned.
 */
export async function decideLoopStop(
  client: pg.PoolClient,
  item: WorkItemRow,
  episode: EndedEpisode,
  leaseCharge: LoopStopInput['leaseCharge'],
  now: Date,
  events: NewLedgerEvent[],
): Promise<StopReason | null> {
  if (item.stopCondition) return item.stopCondition;
  // Counted only when it can matter (max episodes) or is recorded: endings are frequent.
  const executed = item.maxEpisodes === null ? null : await countEpisodes(client, item.id, 'ended');
  const stop = loopStopCondition({ holonStop: episode.holonStop, leaseCharge, episodesExecuted: executed ?? 0, maxEpisodes: item.maxEpisodes });
  if (!stop) return null;
  const episodesExecuted = executed ?? (await countEpisodes(client, item.id, 'ended'));
  const p = new Params();
  const at = p.add(now);
  await client.query(
    `UPDATE work_items SET stop_condition = ${p.add(JSON.stringify(stop))}, stopped_at = ${at}, updated_at = ${at} WHERE id = ${p.add(item.id)}`,
    p.values,
  );
  events.push({
    type: 'work_item.stopped',
    episodeId: episode.id,
    workItemId: item.id,
    payload: { stopCondition: stop, leaseId: episode.leaseId, episodesExecuted, maxEpisodes: item.maxEpisodes },
  });
  return stop;
}

/**
 * An operator's decision to let a stopped loop go on (with more resources, after unblocking, or
 * overriding the holon's stop), optionally raising max episodes. Refused when max episodes would
 * stop the next start at once.
 */
export async function resumeWorkItem(
  client: pg.PoolClient,
  tenantId: string,
  id: string,
  maxEpisodes: number | null,
  now: Date,
  events: NewLedgerEvent[],
): Promise<void> {
  const item = await lockWorkItem(client, tenantId, id);
  const max = maxEpisodes ?? item.maxEpisodes;
  const started = max === null ? 0 : await countEpisodes(client, id, 'started');
  if (startRefusal({ stopCondition: null, maxEpisodes: max }, started)) {
    throw new InputLimitError([
      {
        field: 'maxEpisodes',
        limit: `> ${started}`,
        actual: String(max),
        message: `maxEpisodes must exceed the ${started} episodes the work item has started`,
      },
    ]);
  }
  if (item.stopCondition === null && max === item.maxEpisodes) return; // nothing changes, so no event
  const p = new Params();
  await client.query(
    `UPDATE work_items SET stop_condition = NULL, stopped_at = NULL, max_episodes = ${p.add(max)}, updated_at = ${p.add(now)} WHERE id = ${p.add(id)}`,
    p.values,
  );
  events.push({ type: 'work_item.resumed', workItemId: id, payload: { previousStopCondition: item.stopCondition, maxEpisodes: max } });
}
