// A retrieval: rank (read-only, on the pool), then record its receipt and ledger event (one write),
// only when the caller may write (`record`): a read-scope key never writes (docs/SECURITY.md). The
// receipt commits while the caller reads the answer's episodes; the answer waits for it (beforeAnswer).
import type pg from 'pg';
import type { Writer } from '../write.ts';
import { failedWorkOf } from './failures.ts';
import type { WeightedTerms } from './feedback.ts';
import { type PatternTask, rankPatterns, type ScoredPattern } from './pattern-store.ts';
import { type Receipt, type ReceiptArm, recordRetrieval } from './receipts.ts';
import type { RetrievalQuery } from './score.ts';
import { sharedRun } from './shared-rankings.ts';
import { CONTEXT_CANDIDATES, type EpisodeRetrievalFilter, LEXICAL_CANDIDATES, rankEpisodesWithTerms, type ScoredEpisode } from './store.ts';

/** What a retrieval reads with (the pool, read-only) and records through (the one write path). */
export interface RetrievalDeps {
  pool: pg.Pool;
  writer: Writer;
  /** Holds the answer until the receipt's write has settled (Context.writesBeforeAnswer). */
  beforeAnswer(write: Promise<void>): void;
  /**
   * Waits for the caller's turn to rank: while another key is active, one key's retrievals start no
   * faster than PACED_RETRIEVALS_PER_SECOND, however they come (100 aliases of one request cost
   * what 100 calls of an MCP batch cost); a key alone only yields a turn of the event loop.
   */
  turn(): Promise<void>;
}

/** Records the receipt without waiting for its commit, which the answer waits for instead; its id. */
export function startReceipt(deps: RetrievalDeps, tenantId: string, receipt: Receipt): string {
  const { retrievalId, written } = recordRetrieval(deps.writer, tenantId, receipt);
  deps.beforeAnswer(written);
  return retrievalId;
}

/** Every candidate, so the warnings can be the best failed ones however far down they rank. */
const RANKED_FOR_WARNINGS = LEXICAL_CANDIDATES + CONTEXT_CANDIDATES;

export interface EpisodeRetrievalResult {
  /** Null when nothing was recorded (the caller may not write). */
  retrievalId: string | null;
  episodes: ScoredEpisode[];
  warnings: ScoredEpisode[];
}

export interface EpisodeRetrievalRequest {
  query: RetrievalQuery;
  limit: number;
  includeFailures: boolean;
  filter: EpisodeRetrievalFilter;
  record: boolean;
}

/** What one ranking served, before its receipt. */
export interface RankedEpisodes {
  episodes: ScoredEpisode[];
  warnings: ScoredEpisode[];
  terms: WeightedTerms;
}

/** How an experiment (src/experiments) ranks instead: the fixed formula, or every candidate (to reorder them). */
export interface RankingOptions {
  model?: null;
  allCandidates?: boolean;
}

export async function retrieveEpisodes(deps: RetrievalDeps, tenantId: string, request: EpisodeRetrievalRequest): Promise<EpisodeRetrievalResult> {
  return recordEpisodeRetrieval(deps, tenantId, request, await rankEpisodeRetrieval(deps, tenantId, request));
}

/** The ranking of a retrieval (read-only): the served list and the warnings. */
export function rankEpisodeRetrieval(
  deps: RetrievalDeps,
  tenantId: string,
  request: EpisodeRetrievalRequest,
  options: RankingOptions = {},
): Promise<RankedEpisodes> {
  // Concurrent identical questions of a tenant share a ranking that starts after each arrived (shared-rankings.ts).
  return sharedRun(deps.pool, rankingKey(tenantId, request, options), () => rankNow(deps, tenantId, request, options));
}

/** Everything a ranking's answer depends on (not `record`: whether a receipt is written is the caller's). */
function rankingKey(tenantId: string, request: EpisodeRetrievalRequest, options: RankingOptions): string {
  const { query, filter } = request;
  const { domain, language, framework, tags } = query.context;
  return JSON.stringify([
    tenantId,
    query.description,
    query.taskType,
    [domain, language, framework, tags],
    request.limit,
    request.includeFailures,
    [filter.minReward ?? null, filter.endedAfter?.toISOString() ?? null, filter.agent ?? null],
    options.model === null,
    options.allCandidates === true,
  ]);
}

async function rankNow(deps: RetrievalDeps, tenantId: string, request: EpisodeRetrievalRequest, options: RankingOptions): Promise<RankedEpisodes> {
  const now = new Date();
  const common = { tenantId, query: request.query, filter: request.filter, now, ...(options.model === null ? { model: null } : {}) };
  const ranked = options.allCandidates || request.includeFailures ? RANKED_FOR_WARNINGS : request.limit;
  // One ranking serves both lists: failed episodes are ranked among the completed ones (evidence
  // of what did not work), and the warnings are the best failed ones of the same candidates.
  const { episodes, terms } = await rankEpisodesWithTerms(deps.pool, {
    ...common,
    limit: ranked,
    statuses: request.includeFailures ? ['completed', 'failed'] : ['completed'],
  });
  const served = options.allCandidates ? episodes : episodes.slice(0, request.limit);
  const described = await withFailedWork(deps.pool, tenantId, served, warningsOf(episodes, request.limit));
  return { ...described, terms };
}

/** Records what was served (when the caller may write), with the experiment arm that served it. */
export function recordEpisodeRetrieval(
  deps: RetrievalDeps,
  tenantId: string,
  request: EpisodeRetrievalRequest,
  ranked: RankedEpisodes,
  arm?: ReceiptArm,
): EpisodeRetrievalResult {
  const { episodes, warnings, terms } = ranked;
  if (!request.record) return { retrievalId: null, episodes, warnings };
  const query = {
    task: request.query,
    limit: request.limit,
    includeFailures: request.includeFailures,
    filter: { minReward: request.filter.minReward ?? null, endedAfter: request.filter.endedAfter?.toISOString() ?? null, agent: request.filter.agent ?? null },
  };
  const receipt: Receipt = { kind: 'episodes', query, episodeIds: episodes.map((e) => e.id), warningIds: warnings.map((e) => e.id), terms };
  const retrievalId = startReceipt(deps, tenantId, arm ? { ...receipt, arm } : receipt);
  return { retrievalId, episodes, warnings };
}

/**
 * A warning is a failed run whose text is as similar to the task as WARNING_FLOOR of the most
 * similar candidate's, and whose score is WARNING_FLOOR of the best answer's (a failed run that
 * barely matches is noise: a shared context alone gives half the fixed formula's evidence), not
 * already among the runs served, each once, best first.
 */
const WARNING_FLOOR = 0.5;

export function warningsOf(ranked: readonly ScoredEpisode[], limit: number): ScoredEpisode[] {
  const served = new Set(ranked.slice(0, limit).map((e) => e.id));
  const best = ranked[0]?.score.total ?? 0;
  const similar = Math.max(0, ...ranked.map((e) => e.score.similarity));
  return ranked
    .filter((e) => e.failed && !served.has(e.id) && e.score.total > 0 && e.score.total >= WARNING_FLOOR * best && e.score.similarity >= WARNING_FLOOR * similar)
    .slice(0, limit);
}

/** Each failed run's whatWentWrong: what went wrong in its work (failures.ts), its verdict only when no step failed. */
async function withFailedWork(pool: pg.Pool, tenantId: string, episodes: ScoredEpisode[], warnings: ScoredEpisode[]) {
  const failed = [...episodes, ...warnings].filter((e) => e.failed).map((e) => e.id);
  const work = await failedWorkOf(pool, tenantId, failed);
  const described = (e: ScoredEpisode) => (e.failed ? { ...e, whatWentWrong: work.get(e.id) ?? e.whatWentWrong } : e);
  return { episodes: episodes.map(described), warnings: warnings.map(described) };
}

export interface PatternRetrievalResult {
  retrievalId: string | null;
  patterns: ScoredPattern[];
}

export async function retrievePatterns(
  deps: RetrievalDeps,
  tenantId: string,
  task: PatternTask,
  limit: number,
  record: boolean,
): Promise<PatternRetrievalResult> {
  await deps.turn();
  const patterns = await rankPatterns(deps.pool, tenantId, task, limit);
  if (!record) return { retrievalId: null, patterns };
  const retrievalId = startReceipt(deps, tenantId, { kind: 'patterns', query: { task, limit }, patternIds: patterns.map((p) => p.id) });
  return { retrievalId, patterns };
}
