// Forgetting a step's content (docs/LEDGER.md §3.4): its content columns and salt are deleted, the
// blobs no kept step references any more are deleted (and leave the tenant's blob usage), and a
// steps.forgotten event, committed in the same transaction, names each step forgotten with the
// hash steps.logged gave it and the admin key that asked. The row keeps its number, kind, counters
// and content_hash, so the episode's numbering and usage stay; verifiers accept a forgotten step
// only where a steps.forgotten event names it with its logged hash.
import { InputLimitError } from '../core/errors.ts';
import type { WriteContext } from '../core/write-context.ts';
import { Params, queryRows } from '../db/sql.ts';
import { lockEpisode } from '../episodes/row.ts';
import { FORGOTTEN_MEMBERS } from '../ledger/format/forgotten.ts';
import { contentHash } from '../ledger/format/hash.ts';
import { stepKeptMembers, stepRowFromColumns } from '../ledger/format/step-hash.ts';
import { countViolations, textViolations } from '../validation/violations.ts';

const FORGET_LIMITS = { reasonChars: 500, stepNumbers: 10_000 } as const;

export interface ForgetStepsRequest {
  episodeId: string;
  /** The steps to forget; null: every step of the episode. */
  stepNumbers: readonly number[] | null;
  reason: string;
}

/** Who asked: an admin key, or the operator's retention setting (STEP_RETENTION_DAYS, RUN_RETENTION_DAYS). */
export type ForgetActor = { keyId: string } | { retentionDays: number };

export interface ForgetStepsResult {
  episodeId: string;
  /** The step numbers forgotten now (steps forgotten before, or absent, are not repeated). */
  forgotten: number[];
  blobsDeleted: number;
}

/** The columns a forgotten step loses (FORGOTTEN_MEMBERS, which verifyLedger requires empty). */
const CONTENT_COLUMNS = FORGOTTEN_MEMBERS.map((m) => m.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));

/** A forgetting's reason is stored in a jsonb payload: non-empty, at most 500 characters, no NUL, no lone surrogate. */
export function reasonViolations(reason: string) {
  return textViolations('reason', reason, { nonEmpty: true, maxChars: FORGET_LIMITS.reasonChars });
}

function checkRequest(req: ForgetStepsRequest): void {
  const violations = reasonViolations(req.reason);
  if (req.stepNumbers) violations.push(...countViolations('stepNumbers', req.stepNumbers.length, FORGET_LIMITS.stepNumbers, 'step numbers'));
  if (violations.length) throw new InputLimitError(violations);
}

/** Blob hashes a step's content_refs names ({field: {hash, sizeBytes, stored}}). */
function blobHashes(refs: unknown): string[] {
  if (typeof refs !== 'object' || refs === null) return [];
  return Object.values(refs as Record<string, { hash?: unknown; stored?: unknown }>).flatMap((r) =>
    r && typeof r.hash === 'string' && r.stored !== false ? [r.hash] : [],
  );
}

/** Deletes the blobs among `hashes` that no step of the tenant references any more; their bytes leave the usage. */
async function deleteUnreferencedBlobs(w: WriteContext, hashes: string[]): Promise<number> {
  if (!hashes.length) return 0;
  const p = new Params();
  const tenant = p.add(w.tenantId);
  const [deleted] = await queryRows<{ n: number; bytes: number }>(
    w.client,
    `WITH gone AS (
       DELETE FROM blobs b WHERE b.tenant_id = ${tenant} AND b.hash = ANY(${p.add(hashes)}::text[])
         AND NOT EXISTS (SELECT 1 FROM steps s, jsonb_each(s.content_refs) r
                          WHERE s.tenant_id = ${tenant} AND s.content_refs IS NOT NULL AND r.value->>'hash' = b.hash)
       RETURNING size_bytes),
     used AS (UPDATE blob_usage SET bytes = greatest(0, bytes - (SELECT coalesce(sum(size_bytes), 0) FROM gone)) WHERE tenant_id = ${tenant})
     SELECT count(*)::int AS n, coalesce(sum(size_bytes), 0)::float8 AS bytes FROM gone`,
    p,
  );
  return deleted?.n ?? 0;
}

/**
 * Forgets the content of the episode's steps (all, or those numbered) and queues their
 * steps.forgotten event, in the caller's transaction. The episode is locked first, so no step is
 * logged or forgotten beside it.
 */
export async function forgetStepsRecorded(w: WriteContext, req: ForgetStepsRequest, actor: ForgetActor): Promise<ForgetStepsResult> {
  checkRequest(req);
  const ep = await lockEpisode(w.client, w.tenantId, req.episodeId);
  const p = new Params();
  const only = req.stepNumbers ? ` AND step_number = ANY(${p.add([...new Set(req.stepNumbers)])}::int[])` : '';
  const rows = await queryRows<{ step_number: number; content_hash: string; content_refs: unknown }>(
    w.client,
    `SELECT * FROM steps
      WHERE tenant_id = ${p.add(w.tenantId)} AND episode_id = ${p.add(ep.id)} AND forgotten_at IS NULL${only}
      ORDER BY step_number FOR UPDATE`,
    p,
  );
  if (!rows.length) return { episodeId: ep.id, forgotten: [], blobsDeleted: 0 };
  const u = new Params();
  const numbers = rows.map((r) => r.step_number);
  await w.client.query(
    `UPDATE steps SET ${CONTENT_COLUMNS.map((c) => `${c} = NULL`).join(', ')}, forgotten_at = ${u.add(w.now)}
      WHERE tenant_id = ${u.add(w.tenantId)} AND episode_id = ${u.add(ep.id)} AND step_number = ANY(${u.add(numbers)}::int[])`,
    u.values,
  );
  const blobsDeleted = await deleteUnreferencedBlobs(w, [...new Set(rows.flatMap((r) => blobHashes(r.content_refs)))]);
  w.events.push({
    type: 'steps.forgotten',
    episodeId: ep.id,
    workItemId: ep.workItemId,
    payload: {
      // keptHash covers what the row keeps (kind, result kind, latency, tokens, cost, side-effect key, times), unsalted.
      steps: rows.map((r) => ({ n: r.step_number, hash: r.content_hash, keptHash: contentHash(stepKeptMembers(stepRowFromColumns(r))) })),
      reason: req.reason,
      ...('keyId' in actor ? { byKeyId: actor.keyId } : { byRetention: { days: actor.retentionDays } }),
    },
  });
  return { episodeId: ep.id, forgotten: numbers, blobsDeleted };
}
