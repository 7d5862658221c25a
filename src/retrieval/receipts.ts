// Retrieval receipts and feedback. Every relevantEpisodes / relevantPatterns answer is stored as a
// receipt (what was asked, as a hash, and exactly which ids were served) with a `retrieval.served`
// ledger event. completeEpisode(usedRetrievals) then moves the feedback credit of what those
// retrievals served towards the outcome (+1 success, -1 failure, partial in between) and appends
// `retrieval.feedback`. For episodes the credit that ranks is query-relative: each use is stored
// with its retrieval (whose receipt keeps the query's terms), and a later query applies it only as
// far as it resembles that query (feedback.ts); episodes.feedback_credit keeps the overall credit.
// Patterns rank by their overall credit (pattern-score.ts).
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { InputLimitError, NotFoundError } from '../core/errors.ts';
import { canonicalId, isUuid } from '../core/ids.ts';
import type { WriteContext } from '../core/write-context.ts';
import type { EpisodesRow } from '../db/rows.ts';
import { insertWhere, Params, queryRows, unnestAs } from '../db/sql.ts';
import type { Outcome } from '../episodes/outcome.ts';
import { lockLearning } from '../learning/lock.ts';
import { baseReward } from '../learning/reward.ts';
import { contentHash } from '../ledger/format/hash.ts';
import type { Writer } from '../write.ts';
import { groundedTarget, type WeightedTerms } from './feedback.ts';

/** Credit moves this share of the way to the target per use: after n helpful uses, 1 − 0.7^n. */
export const FEEDBACK_RATE = 0.3;
const MAX_USED_RETRIEVALS = 32;

export interface Receipt {
  /** files: a relevantFiles answer, whose evidence runs are its episodeIds. */
  kind: 'episodes' | 'patterns' | 'files';
  /** Everything that decided the answer (task, limit, filters), hashed canonically. */
  query: unknown;
  episodeIds?: string[];
  warningIds?: string[];
  patternIds?: string[];
  /** The query's terms as the ranking used them, with their idf (episode retrievals): what feedback is relative to. */
  terms?: WeightedTerms;
  /** Served under an experiment (src/experiments): its arm. */
  arm?: ReceiptArm;
}

/** The experiment arm a receipt records; teams: interleaving's team of each served episode, in order. */
export interface ReceiptArm {
  experimentId: string;
  name: string;
  teams: readonly string[];
}

/**
 * Starts recording the receipt and its `retrieval.served` event (one statement: Writer.runStatement).
 * The id is known at once; `written` settles when the receipt has committed (or failed): the
 * answer naming the id must not leave before it (RetrievalDeps.beforeAnswer).
 */
export function recordRetrieval(writer: Writer, tenantId: string, receipt: Receipt): { retrievalId: string; written: Promise<void> } {
  const ids = { episodes: receipt.episodeIds ?? [], warnings: receipt.warningIds ?? [], patterns: receipt.patternIds ?? [] };
  const queryHash = contentHash(receipt.query);
  const resultsHash = contentHash(ids);
  const retrievalId = randomUUID();
  const row = (p: Params, when: string) =>
    insertWhere(
      p,
      'retrievals',
      {
        id: [retrievalId, 'uuid'],
        tenant_id: [tenantId, 'uuid'],
        kind: [receipt.kind, 'text'],
        query_hash: [queryHash, 'text'],
        results_hash: [resultsHash, 'text'],
        episode_ids: [ids.episodes, 'uuid[]'],
        warning_ids: [ids.warnings, 'uuid[]'],
        pattern_ids: [ids.patterns, 'uuid[]'],
        query_terms: [receipt.terms?.terms ?? [], 'text[]'],
        query_weights: [receipt.terms?.weights ?? [], 'float8[]'],
        arm: [receipt.arm?.name ?? null, 'text'],
        experiment_id: [receipt.arm?.experimentId ?? null, 'uuid'],
        teams: [[...(receipt.arm?.teams ?? [])], 'text[]'],
        created_at: [new Date(), 'timestamptz'],
      },
      when,
    );
  const served = {
    type: 'retrieval.served',
    payload: {
      retrievalId,
      kind: receipt.kind,
      queryHash,
      resultsHash,
      counts: { episodes: ids.episodes.length, warnings: ids.warnings.length, patterns: ids.patterns.length },
      ...(receipt.arm ? { experimentId: receipt.arm.experimentId, arm: receipt.arm.name } : {}),
    },
  };
  return { retrievalId, written: writer.runStatement(tenantId, row, [served]) };
}

export interface FeedbackReport {
  retrievalIds: string[];
  /** +1 success, -1 failure, 2 × completed share − 1 for partial. */
  target: number;
  episodes: number;
  patterns: number;
  /** (retrieval, episode) uses recorded: the query-relative credit (feedback.ts). */
  uses: number;
  /** Served episodes credited positively: for a success with artifacts, those that changed one of its files. */
  confirmed: number;
}

/** Credits (or debits) everything the used retrievals served, in the completing transaction. */
export async function creditRetrievals(
  ctx: WriteContext,
  episodeId: string,
  retrievalIds: readonly string[],
  outcome: Outcome,
): Promise<FeedbackReport | null> {
  const ids = [...new Set(retrievalIds.map(canonicalId))];
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
  const p = new Params();
  // The arrays are nullable columns (Prisma's lists), so the row type says so rather than RetrievalsRow's.
  const rows = await queryRows<{ id: string; episode_ids: string[] | null; pattern_ids: string[] | null }>(
    ctx.client,
    `SELECT id, episode_ids, pattern_ids FROM retrievals WHERE tenant_id = ${p.add(ctx.tenantId)} AND id = ANY(${p.add(ids)}::uuid[])`,
    p,
  );
  const unknown = ids.find((id) => !rows.some((r) => r.id === id));
  if (unknown !== undefined) throw new NotFoundError('Retrieval', unknown);
  const target = 2 * baseReward(outcome) - 1;
  // Credit locks episode and pattern rows that pattern extraction locks too: after the learning lock (lock.ts).
  await lockLearning(ctx.client, ctx.tenantId);
  const targets = await episodeTargets(
    ctx,
    rows.flatMap((r) => r.episode_ids ?? []),
    target,
    outcome.artifacts ?? [],
  );
  const episodes = await credit(ctx.client, 'episodes', ctx.tenantId, [...targets.keys()], (id) => targets.get(id) ?? 0);
  const patterns = await credit(
    ctx.client,
    'patterns',
    ctx.tenantId,
    rows.flatMap((r) => r.pattern_ids ?? []),
    () => target,
  );
  const uses = await recordUses(ctx, episodeId, rows, targets);
  const confirmed = [...targets.values()].filter((t) => t > 0).length;
  const report = { retrievalIds: ids, target, episodes, patterns, uses, confirmed };
  ctx.events.push({ type: 'retrieval.feedback', episodeId, payload: { ...report, rate: FEEDBACK_RATE, outcome: outcome.kind, credit: 'query-relative' } });
  return report;
}

/** Each served episode (of this tenant) and its use's target, grounded in the artifacts both changed (groundedTarget). */
async function episodeTargets(ctx: WriteContext, served: string[], target: number, usedByArtifacts: readonly string[]): Promise<Map<string, number>> {
  const unique = [...new Set(served)].sort();
  if (unique.length === 0) return new Map();
  const p = new Params();
  const sql = `SELECT id, CASE WHEN jsonb_typeof(outcome->'artifacts') = 'array' THEN ARRAY(SELECT jsonb_array_elements_text(outcome->'artifacts')) END AS artifacts
       FROM episodes WHERE tenant_id = ${p.add(ctx.tenantId)} AND id = ANY(${p.add(unique)}::uuid[]) ORDER BY id`;
  const rows = await queryRows<Pick<EpisodesRow, 'id'> & { artifacts: string[] | null }>(ctx.client, sql, p);
  return new Map(rows.map((r) => [r.id, groundedTarget(target, usedByArtifacts, r.artifacts ?? [])]));
}

/** One use per (retrieval, episode it served): ranking applies it to queries resembling the retrieval's (feedback.ts). */
async function recordUses(
  ctx: WriteContext,
  usedBy: string,
  rows: ReadonlyArray<{ id: string; episode_ids: string[] | null }>,
  targets: ReadonlyMap<string, number>,
): Promise<number> {
  const uses = rows.flatMap((r) =>
    [...new Set(r.episode_ids ?? [])]
      .filter((episode) => targets.has(episode))
      .map((episode) => ({ retrieval: r.id, episode, target: targets.get(episode) ?? 0 })),
  );
  if (uses.length === 0) return 0;
  const p = new Params();
  const { rowCount } = await ctx.client.query(
    `INSERT INTO episode_feedback (tenant_id, episode_id, retrieval_id, used_by, target, created_at)
     SELECT ${p.add(ctx.tenantId)}, u.episode, u.retrieval, ${p.add(usedBy)}, u.target, ${p.add(ctx.now)}
       FROM ${unnestAs(p, 'u', {
         retrieval: [uses.map((u) => u.retrieval), 'uuid'],
         episode: [uses.map((u) => u.episode), 'uuid'],
         target: [uses.map((u) => u.target), 'float8'],
       })}`,
    p.values,
  );
  return rowCount ?? 0;
}

/** Moves each row's credit towards its target; rows are locked in id order, so concurrent credits cannot deadlock. */
async function credit(
  client: pg.PoolClient,
  table: 'episodes' | 'patterns',
  tenantId: string,
  ids: string[],
  targetOf: (id: string) => number,
): Promise<number> {
  const unique = [...new Set(ids)].sort();
  if (unique.length === 0) return 0;
  const lock = new Params();
  await client.query(
    `SELECT id FROM ${table} WHERE tenant_id = ${lock.add(tenantId)} AND id = ANY(${lock.add(unique)}::uuid[]) ORDER BY id FOR UPDATE`,
    lock.values,
  );
  const p = new Params();
  const { rowCount } = await client.query(
    `UPDATE ${table} x SET feedback_credit = LEAST(1, GREATEST(-1, x.feedback_credit + ${p.add(FEEDBACK_RATE)} * (u.target - x.feedback_credit)))
       FROM ${unnestAs(p, 'u', { id: [unique, 'uuid'], target: [unique.map(targetOf), 'float8'] })}
      WHERE x.tenant_id = ${p.add(tenantId)} AND x.id = u.id`,
    p.values,
  );
  return rowCount ?? 0;
}
