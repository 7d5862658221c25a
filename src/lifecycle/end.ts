// The calls that end an episode (complete, fail, cancel, escalate): checked, then finished through
// finish.ts in the call's transaction.
import { throwIfViolations } from '../core/errors.ts';
import type { WriteContext } from '../core/write-context.ts';
import { Params, queryRows } from '../db/sql.ts';
import { timeRangeViolations } from '../episodes/import-limits.ts';
import { checkEpisodeSize } from '../episodes/limits.ts';
import { holonStopForOutcome, type Outcome } from '../episodes/outcome.ts';
import { validateOutcome } from '../episodes/outcome-limits.ts';
import { type EpisodeRow, lockEpisode } from '../episodes/row.ts';
import { requireTransition } from '../episodes/status.ts';
import type { StopReason } from '../stops/stop-reason.ts';
import { jsonBytes } from '../validation/json.ts';
import { type BatchedEnding, type FinishResult, finishEpisode } from './finish.ts';

/**
 * When the episode ended: the given time (not before it started), else for an imported run the
 * time of its last dated step (or its start), else now. An imported run without times records
 * when it was imported (ordering only) and refuses an end time it has no start to measure from.
 */
async function endTime(ctx: WriteContext, ep: EpisodeRow, endedAt: Date | null): Promise<Date> {
  if (!ep.timesKnown) {
    if (endedAt)
      throwIfViolations([
        {
          field: 'endedAt',
          limit: 'a known startedAt',
          message: 'endedAt needs a start time: this imported episode was started without startedAt, so its times are unknown',
        },
      ]);
    return ctx.now;
  }
  if (endedAt) {
    throwIfViolations(timeRangeViolations('startedAt', 'endedAt', ep.startedAt, endedAt, ctx.now));
    return endedAt;
  }
  if (!ep.historical) return ctx.now;
  const p = new Params();
  const sql = `SELECT max(coalesce(ended_at, started_at)) AS last FROM steps WHERE episode_id = ${p.add(ep.id)}`;
  const [row] = await queryRows<{ last: Date | null }>(ctx.client, sql, p);
  return row?.last ?? ep.startedAt;
}

export async function completeEpisode(
  ctx: WriteContext,
  episodeId: string,
  outcome: Outcome,
  endedAt: Date | null = null,
  batch?: BatchedEnding,
  locked?: EpisodeRow,
): Promise<FinishResult> {
  throwIfViolations(validateOutcome(outcome));
  const ep = locked ?? (await lockEpisode(ctx.client, ctx.tenantId, episodeId));
  requireTransition(ep, 'complete');
  throwIfViolations(checkEpisodeSize(ep.sizeBytes, jsonBytes(outcome), 'input.outcome'));
  const ended = await endTime(ctx, ep, endedAt);
  const failed = outcome.kind === 'failure';
  return finishEpisode(
    ctx.client,
    ep,
    {
      status: failed ? 'failed' : 'completed',
      stopReason: failed ? { kind: 'failed', reason: outcome.reason } : { kind: 'completed' },
      outcome,
      eventType: failed ? 'episode.failed' : 'episode.completed',
      holonStop: holonStopForOutcome(outcome),
      endedAt: ended,
      ...(batch ? { batch } : {}),
    },
    ctx.now,
    ctx.events,
  );
}

export type Ending = 'fail' | 'cancel' | 'escalate';

const ENDINGS: Record<Ending, { status: 'failed' | 'cancelled' | 'escalated'; eventType: string }> = {
  fail: { status: 'failed', eventType: 'episode.failed' },
  cancel: { status: 'cancelled', eventType: 'episode.cancelled' },
  escalate: { status: 'escalated', eventType: 'episode.escalated' },
};

export async function endEpisode(ctx: WriteContext, episodeId: string, action: Ending, reason: string, recoverable = false): Promise<FinishResult> {
  const ep = await lockEpisode(ctx.client, ctx.tenantId, episodeId);
  requireTransition(ep, action);
  const stopReason: StopReason =
    action === 'fail' ? { kind: 'error', message: reason, recoverable } : action === 'cancel' ? { kind: 'cancelled', reason } : { kind: 'escalated', reason };
  const outcome: Outcome | null = action === 'fail' ? { kind: 'failure', reason, details: recoverable ? 'recoverable' : undefined } : null;
  // fail and escalate are the holon's own stop for its loop; a cancel is an operator's, not the holon's.
  const holonStop = action === 'cancel' ? null : stopReason;
  const ending = {
    status: ENDINGS[action].status,
    stopReason,
    outcome: outcome && JSON.parse(JSON.stringify(outcome)),
    eventType: ENDINGS[action].eventType,
    holonStop,
  };
  return finishEpisode(ctx.client, ep, ending, ctx.now, ctx.events);
}
