// Every way an episode ends goes through here: status, stop reason, outcome, end time, the
// experience (reward and reflection, when there is an outcome), the lease charge, the work item
// loop's stop condition and the ledger events, in the caller's transaction.
import type pg from 'pg';
import { must } from '../core/must.ts';
import type { NewLedgerEvent } from '../core/write-context.ts';
import { Params, queryRows } from '../db/sql.ts';
import type { Outcome } from '../episodes/outcome.ts';
import { buildRunReceipt } from '../episodes/receipts.ts';
import type { EpisodeRow } from '../episodes/row.ts';
import type { EpisodeStatus } from '../episodes/status.ts';
import type { EpisodeObservation } from '../learning/patterns.ts';
import {
  EPISODE_FACT_COLUMNS,
  type EpisodeFacts,
  type EpisodeFactsSqlRow,
  episodeFactsOf,
  type PendingExperience,
  refreshExperience,
  type StepFactsSqlRow,
} from '../learning/store.ts';
import { chargeEpisodeToLease, type EpisodeLeaseCharge } from '../leases/charge.ts';
import { decideLoopStop } from '../leases/loop.ts';
import { lockWorkItem } from '../leases/work-items.ts';
import { contentHash } from '../ledger/format/hash.ts';
import { indexEpisodeTerms } from '../retrieval/term-index.ts';
import type { StopReason } from '../stops/stop-reason.ts';

export interface EpisodeEnding {
  status: EpisodeStatus;
  stopReason: StopReason;
  outcome: Outcome | null;
  eventType: string;
  /**
   * The holon's own stop for its work item's loop, when this ending is the holon's report
   * (loop-stop.ts); unset for the server's own stops (budget, deadline) and an operator's cancel.
   */
  holonStop?: StopReason | null;
  /** A past run's real end (imported); unset: now. */
  endedAt?: Date;
  /** Set: the ending is one of an import batch's (import-run.ts), which does some of its writes for all its runs at once; unset: done here. */
  batch?: BatchedEnding;
}

/** What an import batch writes for all its endings at once, before commit (import-run.ts). */
export interface BatchedEnding {
  /** The episodes the batch indexes together. */
  indexWith: string[];
  /** The experiences the batch stores in one statement, before its extraction. */
  experiencesWith: PendingExperience[];
  /** The steps of the batch's episodes as the learning rules read them, read once for all of them. */
  stepFacts?: ReadonlyMap<string, readonly StepFactsSqlRow[]>;
}

export interface FinishResult {
  leaseCharge: EpisodeLeaseCharge | null;
  /** The work item loop's stop condition after this episode; null: the loop may go on (or no work item). */
  stopCondition: StopReason | null;
  /** What the experience was computed from, as stored (null without an outcome): extraction later in the transaction starts from it. */
  facts: EpisodeFacts | null;
  /** The ending's observation of the episode (null without an outcome), which extraction later in the transaction reuses. */
  observation: EpisodeObservation | null;
}

export async function finishEpisode(client: pg.PoolClient, ep: EpisodeRow, ending: EpisodeEnding, now: Date, events: NewLedgerEvent[]): Promise<FinishResult> {
  // Lock order for everything touching a work item's leases: the work item, then its leases.
  const item = ep.workItemId ? await lockWorkItem(client, ep.tenantId, ep.workItemId) : null;
  const ended = ending.endedAt ?? now;
  const p = new Params();
  const at = p.add(ended);
  const outcome = ending.outcome ? JSON.stringify(ending.outcome) : null;
  // The row as updated is what the experience is computed from: returned, it needs no second read.
  const [row] = await queryRows<EpisodeFactsSqlRow>(
    client,
    `UPDATE episodes SET status = ${p.add(ending.status)}, stop_reason = ${p.add(JSON.stringify(ending.stopReason))}, outcome = ${p.add(outcome)},
            outcome_kind = ${p.add(ending.outcome?.kind ?? null)}, ended_at = ${at}, updated_at = ${at}, blocked_reason = NULL WHERE id = ${p.add(ep.id)}
     RETURNING ${EPISODE_FACT_COLUMNS}`,
    p,
  );
  // An imported run without times has no wall time: null, never the time its import took.
  const wallMs = ep.timesKnown ? ended.getTime() - ep.startedAt.getTime() : null;
  const usage = { steps: ep.stepCount, tokens: ep.usedTokens, toolCalls: ep.usedToolCalls, wallMs };
  // An ending precedes its extraction, so no pattern has counted it yet.
  const experience =
    ending.outcome && row
      ? await refreshExperience(client, ep.tenantId, ep.id, {
          learningState: 'decide',
          patternsDiscovered: 0,
          facts: await episodeFactsOf(client, row, ending.batch?.stepFacts?.get(ep.id)),
          ...(ending.batch ? { storeWith: ending.batch.experiencesWith } : {}),
        })
      : null;
  events.push({
    type: ending.eventType,
    episodeId: ep.id,
    workItemId: ep.workItemId,
    payload: {
      status: ending.status,
      stopReason: ending.stopReason,
      outcomeHash: ending.outcome ? contentHash(ending.outcome) : null,
      usage,
      ...(experience ? { experience: experience.summary } : {}),
    },
  });
  if (ep.contextPackHash) await appendRunReceipt(client, ep, usage, events);
  const leaseCharge = ep.leaseId ? await chargeEpisodeToLease(client, ep, now, events) : null;
  const stopCondition = item
    ? await decideLoopStop(client, item, { id: ep.id, leaseId: ep.leaseId, holonStop: ending.holonStop ?? null }, leaseCharge, now, events)
    : null;
  // Last: the index's shared rows stay locked until commit (term-index.ts).
  if (ending.outcome && ending.batch) ending.batch.indexWith.push(ep.id);
  else if (ending.outcome) await indexEpisodeTerms(client, ep.tenantId, ep.id);
  return { leaseCharge, stopCondition, facts: experience?.facts ?? null, observation: experience?.observation ?? null };
}

async function appendRunReceipt(
  client: pg.PoolClient,
  ep: EpisodeRow,
  usage: { steps: number; tokens: number; toolCalls: number; wallMs: number | null },
  events: NewLedgerEvent[],
) {
  const p = new Params();
  const [misses] = await queryRows<{ n: number }>(client, `SELECT count(*)::int AS n FROM pack_misses WHERE episode_id = ${p.add(ep.id)}`, p);
  const input = { contextPackHash: must(ep.contextPackHash), manifestHash: ep.manifestHash, packMisses: misses?.n ?? 0, usage };
  events.push({
    type: 'run.receipt',
    episodeId: ep.id,
    workItemId: ep.workItemId,
    payload: (head: { seq: number; hash: string }) => buildRunReceipt(input, head),
  });
}
