// Retrieval receipts and feedback. Every relevantEpisodes / relevantPatterns answer is stored as a
// receipt (what was asked, as a hash, and exactly which ids were served) with a `retrieval.served`
// ledger event. completeEpisode(usedRetrievals) then moves the feedback credit of what those
// retrievals served towards the outcome (+1 success, -1 failure, partial in between) and appends
// `retrieval.feedback`; ranking reads the credit (score.ts, pattern-score.ts).
import type pg from 'pg';
import { InputLimitError, NotFoundError } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import type { WriteContext } from '../core/write-context.ts';
import type { Outcome } from '../episodes/outcome.ts';
import { baseReward } from '../learning/reward.ts';
import { contentHash } from '../ledger/hash.ts';

/** Credit moves this share of the way to the target per use: after n helpful uses, 1 − 0.7^n. */
export const FEEDBACK_RATE = 0.3;
export const MAX_USED_RETRIEVALS = 32;

export interface Receipt {
  kind: 'episodes' | 'patterns';
  /** Everything that decided the answer (task, limit, filters), hashed canonically. */
  query: unknown;
  episodeIds?: string[];
  warningIds?: string[];
  patternIds?: string[];
}

export async function recordRetrieval(ctx: WriteContext, receipt: Receipt): Promise<string> {
  const ids = { episodes: receipt.episodeIds ?? [], warnings: receipt.warningIds ?? [], patterns: receipt.patternIds ?? [] };
  const queryHash = contentHash(receipt.query);
  const resultsHash = contentHash(ids);
  const { rows } = await ctx.client.query(
    `INSERT INTO retrievals (tenant_id, kind, query_hash, results_hash, episode_ids, warning_ids, pattern_ids, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
    [ctx.tenantId, receipt.kind, queryHash, resultsHash, ids.episodes, ids.warnings, ids.patterns, ctx.now],
  );
  const retrievalId = rows[0].id as string;
  ctx.events.push({
    type: 'retrieval.served',
    payload: {
      retrievalId,
      kind: receipt.kind,
      queryHash,
      resultsHash,
      counts: { episodes: ids.episodes.length, warnings: ids.warnings.length, patterns: ids.patterns.length },
    },
  });
  return retrievalId;
}

export interface FeedbackReport {
  retrievalIds: string[];
  /** +1 success, -1 failure, 2 × completed share − 1 for partial. */
  target: number;
  episodes: number;
  patterns: number;
}

/** Credits (or debits) everything the used retrievals served, in the completing transaction. */
export async function creditRetrievals(
  ctx: WriteContext,
  episodeId: string,
  retrievalIds: readonly string[],
  outcome: Outcome,
): Promise<FeedbackReport | null> {
  const ids = [...new Set(retrievalIds.map((id) => String(id).toLowerCase()))];
  if (ids.length === 0) return null;
  if (ids.length > MAX_USED_RETRIEVALS) {
    throw new InputLimitError([
      {
        field: 'usedRetrievals',
        limit: `${MAX_USED_RETRIEVALS} items`,
        actual: String(ids.length),
        message: `at most ${MAX_USED_RETRIEVALS} retrievals per completion`,
      },
    ]);
  }
  // !== undefined: an empty string is a malformed id too, not "none missing".
  const missing = ids.find((id) => !isUuid(id));
  if (missing !== undefined) throw new NotFoundError('Retrieval', missing);
  const { rows } = await ctx.client.query<{ id: string; episode_ids: string[] | null; pattern_ids: string[] | null }>(
    'SELECT id, episode_ids, pattern_ids FROM retrievals WHERE tenant_id = $1 AND id = ANY($2::uuid[])',
    [ctx.tenantId, ids],
  );
  const unknown = ids.find((id) => !rows.some((r) => r.id === id));
  if (unknown !== undefined) throw new NotFoundError('Retrieval', unknown);
  const target = 2 * baseReward(outcome) - 1;
  const episodes = await credit(
    ctx.client,
    'episodes',
    ctx.tenantId,
    rows.flatMap((r) => r.episode_ids ?? []),
    target,
  );
  const patterns = await credit(
    ctx.client,
    'patterns',
    ctx.tenantId,
    rows.flatMap((r) => r.pattern_ids ?? []),
    target,
  );
  const report = { retrievalIds: ids, target, episodes, patterns };
  ctx.events.push({ type: 'retrieval.feedback', episodeId, payload: { ...report, rate: FEEDBACK_RATE, outcome: outcome.kind } });
  return report;
}

/** Moves each row's credit towards the target; rows are locked in id order, so concurrent credits cannot deadlock. */
async function credit(client: pg.PoolClient, table: 'episodes' | 'patterns', tenantId: string, ids: string[], target: number): Promise<number> {
  const unique = [...new Set(ids)].sort();
  if (unique.length === 0) return 0;
  await client.query(`SELECT id FROM ${table} WHERE tenant_id = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR UPDATE`, [tenantId, unique]);
  const { rowCount } = await client.query(
    `UPDATE ${table} SET feedback_credit = LEAST(1, GREATEST(-1, feedback_credit + $3 * ($4 - feedback_credit))) WHERE tenant_id = $1 AND id = ANY($2::uuid[])`,
    [tenantId, unique, FEEDBACK_RATE, target],
  );
  return rowCount ?? 0;
}
