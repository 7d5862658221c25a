// Forgetting a whole episode (docs/LEDGER.md §3.4), on an admin's request or by RUN_RETENTION_DAYS:
// in one transaction, its retrieval index entries and pattern observations go (computed from its
// texts, so first), its steps' content and blobs go with their steps.forgotten event, then its
// record's texts, outcome, critique, reward, reflection and checkpoint states are deleted and an
// episode.forgotten event names each deleted value with the hash of what was stored, why, and who
// asked. Verifiers accept those values as gone only where that event names them with exactly the
// hash their latest claim carries. A run still going is refused: it would write again.
import { IllegalTransitionError, InputLimitError } from '../core/errors.ts';
import type { WriteContext } from '../core/write-context.ts';
import type { CheckpointsRow, EpisodesRow } from '../db/rows.ts';
import { Params, queryRows } from '../db/sql.ts';
import { lockEpisode } from '../episodes/row.ts';
import { isTerminal } from '../episodes/status.ts';
import { forgetEpisodePatterns } from '../learning/forget.ts';
import { EPISODE_RECORD_COLUMNS, type EpisodeRecordColumns, episodeRecord, FORGOTTEN_RECORD_SET } from '../ledger/format/episode-record.ts';
import { EPISODE_FORGOTTEN } from '../ledger/format/forgotten.ts';
import { contentHash } from '../ledger/format/hash.ts';
import type { HashedRowKind } from '../ledger/format/hashed-rows.ts';
import { unindexEpisodesTerms } from '../retrieval/term-index.ts';
import { type ForgetActor, forgetStepsRecorded, reasonViolations } from '../steps/forget.ts';

export interface ForgetEpisodeResult {
  episodeId: string;
  /** False when the episode had been forgotten before (nothing done, no event). */
  forgotten: boolean;
  /** Step numbers whose content this call forgot. */
  stepsForgotten: number[];
  blobsDeleted: number;
  /** Hashed values deleted (record, outcome, critique, reward, reflection, checkpoint states). */
  rowsForgotten: number;
}

type StoredValues = Pick<EpisodesRow, 'outcome' | 'critique' | 'reward' | 'reflection'> & EpisodeRecordColumns;

/** Each hashed value the episode holds, with the hash of it as stored now (what its claims must carry). */
async function hashedValues(w: WriteContext, episodeId: string): Promise<Array<{ kind: HashedRowKind; id: string; hash: string }>> {
  const p = new Params();
  const [row] = await queryRows<StoredValues>(
    w.client,
    `SELECT outcome, critique, reward, reflection, ${EPISODE_RECORD_COLUMNS} FROM episodes WHERE tenant_id = ${p.add(w.tenantId)} AND id = ${p.add(episodeId)}`,
    p,
  );
  if (!row) return [];
  const values: Array<[HashedRowKind, unknown]> = [
    ['episode.record', episodeRecord(row)],
    ['episode.outcome', row.outcome],
    ['episode.critique', row.critique],
    ['episode.reward', row.reward],
    ['episode.reflection', row.reflection],
  ];
  const out = values.flatMap(([kind, value]) => (value == null ? [] : [{ kind, id: episodeId, hash: contentHash(value) }]));
  const c = new Params();
  const states = await queryRows<Pick<CheckpointsRow, 'id' | 'state'>>(
    w.client,
    `SELECT id, state FROM checkpoints WHERE tenant_id = ${c.add(w.tenantId)} AND episode_id = ${c.add(episodeId)} ORDER BY created_at, id`,
    c,
  );
  for (const s of states) out.push({ kind: 'checkpoint.state', id: s.id, hash: contentHash(s.state) });
  return out;
}

/** Deletes the record's texts and the values derived from the run, and its checkpoints. */
async function deleteValues(w: WriteContext, episodeId: string): Promise<void> {
  const p = new Params();
  const tenant = p.add(w.tenantId);
  const id = p.add(episodeId);
  await w.client.query(
    `UPDATE episodes SET ${FORGOTTEN_RECORD_SET}, outcome = NULL, critique = NULL, reward = NULL, reflection = NULL, reward_score = NULL,
            learning_state = CASE WHEN learning_state IS NULL THEN NULL ELSE 'skipped' END, forgotten_at = ${p.add(w.now)}, updated_at = ${p.add(w.now)}
      WHERE tenant_id = ${tenant} AND id = ${id}`,
    p.values,
  );
  const c = new Params();
  await w.client.query(`DELETE FROM checkpoints WHERE tenant_id = ${c.add(w.tenantId)} AND episode_id = ${c.add(episodeId)}`, c.values);
}

/** Forgets the episode and queues its steps.forgotten and episode.forgotten events, in the caller's transaction. */
export async function forgetEpisodeRecorded(w: WriteContext, req: { episodeId: string; reason: string }, actor: ForgetActor): Promise<ForgetEpisodeResult> {
  const violations = reasonViolations(req.reason);
  if (violations.length) throw new InputLimitError(violations);
  const ep = await lockEpisode(w.client, w.tenantId, req.episodeId);
  if (ep.forgotten) return { episodeId: ep.id, forgotten: false, stepsForgotten: [], blobsDeleted: 0, rowsForgotten: 0 };
  if (!isTerminal(ep.status)) throw new IllegalTransitionError(ep.status, 'forget', [], `Cannot forget an episode that is ${ep.status}: end it first`);
  const rows = await hashedValues(w, ep.id);
  // The index and the patterns are computed from the texts and steps: taken out before they go.
  await unindexEpisodesTerms(w.client, w.tenantId, [ep.id]);
  await forgetEpisodePatterns(w.client, w.tenantId, [ep.id]);
  const steps = await forgetStepsRecorded(w, { episodeId: ep.id, stepNumbers: null, reason: req.reason }, actor);
  await deleteValues(w, ep.id);
  w.events.push({
    type: EPISODE_FORGOTTEN,
    episodeId: ep.id,
    workItemId: ep.workItemId,
    payload: { rows, reason: req.reason, ...('keyId' in actor ? { byKeyId: actor.keyId } : { byRetention: { days: actor.retentionDays } }) },
  });
  return { episodeId: ep.id, forgotten: true, stepsForgotten: steps.forgotten, blobsDeleted: steps.blobsDeleted, rowsForgotten: rows.length };
}
