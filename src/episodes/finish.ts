// Every way an episode ends goes through here: status, stop reason, outcome, end time, the
// experience (reward and reflection, when there is an outcome), the lease charge and the ledger
// event, in the caller's transaction.
import type pg from 'pg';
import { contentHash } from '../ledger/hash.ts';
import type { NewLedgerEvent } from '../ledger/store.ts';
import { chargeEpisodeToLease } from '../leases/store.ts';
import { refreshExperience } from '../learning/store.ts';
import type { LeaseCharge } from '../leases/rules.ts';
import type { Outcome } from './outcome.ts';
import type { EpisodeRow } from './row.ts';
import type { EpisodeStatus } from './status.ts';
import type { StopReason } from './stop-reason.ts';
import { buildRunReceipt } from './receipts.ts';

export interface EpisodeEnding {
  status: EpisodeStatus;
  stopReason: StopReason;
  outcome: Outcome | null;
  eventType: string;
}

export async function finishEpisode(
  client: pg.PoolClient,
  ep: EpisodeRow,
  ending: EpisodeEnding,
  now: Date,
  events: NewLedgerEvent[],
): Promise<LeaseCharge | null> {
  await client.query(
    `UPDATE episodes SET status = $2, stop_reason = $3, outcome = $4, outcome_kind = $5, ended_at = $6, updated_at = $6,
            blocked_reason = NULL WHERE id = $1`,
    [ep.id, ending.status, JSON.stringify(ending.stopReason), ending.outcome ? JSON.stringify(ending.outcome) : null, ending.outcome?.kind ?? null, now],
  );
  const usage = { steps: ep.stepCount, tokens: ep.usedTokens, toolCalls: ep.usedToolCalls, wallMs: now.getTime() - ep.startedAt.getTime() };
  const experience = ending.outcome ? await refreshExperience(client, ep.tenantId, ep.id, 'decide') : null;
  events.push({
    type: ending.eventType,
    episodeId: ep.id,
    workItemId: ep.workItemId,
    payload: {
      status: ending.status,
      stopReason: ending.stopReason,
      outcomeHash: ending.outcome ? contentHash(ending.outcome) : null,
      usage,
      ...(experience ? { experience } : {}),
    },
  });
  if (ep.contextPackHash) await appendRunReceipt(client, ep, usage, events);
  if (!ep.leaseId) return null;
  return chargeEpisodeToLease(client, ep.tenantId, ep.leaseId, { episodes: 1, toolCalls: usage.toolCalls, tokens: usage.tokens, wallMs: usage.wallMs }, events);
}

async function appendRunReceipt(client: pg.PoolClient, ep: EpisodeRow, usage: { steps: number; tokens: number; toolCalls: number; wallMs: number }, events: NewLedgerEvent[]) {
  const { rows } = await client.query('SELECT count(*)::int AS n FROM pack_misses WHERE episode_id = $1', [ep.id]);
  const input = { contextPackHash: ep.contextPackHash!, manifestHash: ep.manifestHash, packMisses: rows[0].n as number, usage };
  events.push({ type: 'run.receipt', episodeId: ep.id, workItemId: ep.workItemId, payload: (head: { seq: number; hash: string }) => buildRunReceipt(input, head) });
}
