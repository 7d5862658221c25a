// relevantEpisodes in SQL: a three-field BM25 over the retrieval index (term-index.ts), then
// relevanceScore (score.ts) over a capped candidate set, with the tenant's learned model as the
// evidence when it has one (ranker.ts, ranker-store.ts). Never a scan of the tenant's episodes.
//
// 1-3 (candidates.ts) are one statement (one round trip, which also reads the tenant's learned
// model), or, from the server's kept copy of the index (term-cache.ts), 1-2 in TypeScript and 3 in
// one statement that also checks the copy is of the index its snapshot holds:
// 1. The query's terms (terms.ts), their document frequencies (episode_term_df) and the field
//    totals give each of the QUERY_TERMS rarest terms its idf (the choice of chooseQueryTerms, bm25.ts).
// 2. Per query term and field, the POSTINGS_PER_TERM best postings by impact, read from the index
//    (tenant, field, term, impact desc, episode) alone; summed per episode and field: BM25 of the
//    task description, of what the episode did and of the change it left (each with its field weight).
// 3. Candidates: the best LEXICAL_CANDIDATES by that sum, and as many of the query's domain.
//    When the words found (almost) nothing: the context's best-reward episodes and trigram
//    similarity (text without spaces, typos).
// Every cut keeps its ties (FETCH FIRST ... WITH TIES) and every sum adds in term order: which
// episodes a cut keeps and the bits of a sum never depend on the order rows were written in (the
// episode ids, random, broke ties before), so the same history gives the same answer.
// 4. relevanceScore in TypeScript, with similarity = BM25 / the best candidate's BM25, the learned
//    model's evidence (when the tenant has a model), and the feedback of each candidate's reported
//    uses by queries resembling this one (feedback.ts).
import type pg from 'pg';
import { nextTurn } from '../core/delay.ts';
import { must } from '../core/must.ts';
import { Params, queryPrepared } from '../db/sql.ts';
import { compareText } from '../learning/facts.ts';
import { BM25, chooseQueryTerms, weightedTerms } from './bm25.ts';
import { calibratedStrength, DEFAULT_CALIBRATION, type StrengthCalibration, type StrengthInputs } from './calibration.ts';
import { type CandidateRow, FALLBACK_BELOW, lexicalCandidates, withFallback } from './candidates.ts';
import { type ChangedFileSignals, changedFileSignals, queryMentions } from './changed-files.ts';
import { queryFeedback, type WeightedTerms } from './feedback.ts';
import { inferredDomain } from './inferred-domain.ts';
import { type CandidateEvidence, contributionSum, contributions, type FeatureVector, features, fieldMaxima, type RankingModel } from './ranker.ts';
import { loadTenantRanking } from './ranker-store.ts';
import { type ContextSide, contextMatch, type RelevanceBreakdown, type RetrievalQuery, relevanceScore } from './score.ts';
import { mentionTerms, taskTerms } from './terms.ts';

export { CONTEXT_CANDIDATES, LEXICAL_CANDIDATES } from './candidates.ts';

export interface EpisodeRetrievalFilter {
  minReward?: number | null;
  endedAfter?: Date | null;
  agent?: string | null;
}

export interface EpisodeRetrieval {
  tenantId: string;
  query: RetrievalQuery;
  /** completed only, or completed and failed ranked together. */
  statuses: ReadonlyArray<'completed' | 'failed'>;
  limit: number;
  filter?: EpisodeRetrievalFilter;
  now: Date;
  /** Filled in when given: how many candidates were scored, and whether the fallback ran. */
  stats?: { candidates: number; fallback: boolean };
  /** Never a candidate (a training query's own episode). */
  excludeId?: string;
  /**
   * The model to rank by: undefined loads the tenant's (ranker-store.ts), null ranks by the fixed
   * formula (what the model is trained on, so training never depends on a previous model).
   */
  model?: RankingModel | null;
  /** The strength's calibration when the model is given (else the tenant's, loaded with its model). */
  calibration?: StrengthCalibration;
}

export interface ScoredEpisode {
  id: string;
  score: RelevanceBreakdown;
  /** BM25 of the task description, and the field weight × BM25 of what the episode did and of its change. */
  taskText: number;
  work: number;
  change: number;
  /** The learned model's features and each one's contribution to its score (null without a model). */
  features: FeatureVector;
  contributions: FeatureVector | null;
  /** taskText + work relative to the best candidate's, in [0, 1]. */
  textRank: number;
  trigramSimilarity: number;
  failed: boolean;
  /** A failed episode's reason and details; null for a completed one. */
  whatWentWrong: string | null;
  /** Reported uses of this episode by queries resembling this one (those that moved score.feedback). */
  feedbackUses: number;
  /** The largest resemblance of any reported use's query to this one, in [0, 1]. */
  feedbackResemblance: number;
  /** The calibrated chance that the run is useful to the task (calibration.ts), non-increasing down the ranking. */
  strength: number;
  /** What the strength was computed from (the query's level with the run's total): what a calibration is fitted on. */
  strengthInputs: StrengthInputs;
}

/** The largest number of distinct query terms looked up (a 10 KB description holds fewer words). */
const LOOKUP_TERMS = 4000;

/** Ranks the candidates; all of them, best first (callers take what they show). */
export async function rankEpisodes(pool: pg.Pool, r: EpisodeRetrieval): Promise<ScoredEpisode[]> {
  return (await rankEpisodesWithTerms(pool, r)).episodes;
}

export interface RankedEpisodes {
  episodes: ScoredEpisode[];
  /** The query's terms as the ranking used them, with their idf (what a receipt stores for feedback). */
  terms: WeightedTerms;
}

/** rankEpisodes, and the terms it ranked by. */
export async function rankEpisodesWithTerms(pool: pg.Pool, r: EpisodeRetrieval): Promise<RankedEpisodes> {
  const counts = taskTerms(r.query.description);
  const words = [...counts.keys()].slice(0, LOOKUP_TERMS);
  const repeated = words
    .filter((w) => (counts.get(w) ?? 0) >= BM25.REPEATED_MIN)
    .sort((a, b) => (counts.get(b) ?? 0) - (counts.get(a) ?? 0) || compareText(a, b))
    .slice(0, BM25.REPEATED_TERMS);
  const mentioned = mentionTerms(r.query.description);
  const mentions = [...mentioned.keys()].slice(0, LOOKUP_TERMS);
  const lookup = [...words, ...mentions];
  // The tenant's model is read by the ranking's own statement (one round trip), or alone without words.
  const found =
    lookup.length > 0
      ? await lexicalCandidates(pool, r, lookup, repeated)
      : { rows: [], stats: [], ranking: r.model === undefined ? await loadTenantRanking(pool, r.tenantId) : null };
  const model = r.model !== undefined ? r.model : (found.ranking?.model ?? null);
  const calibration = r.model !== undefined ? (r.calibration ?? DEFAULT_CALIBRATION) : (found.ranking?.calibration ?? DEFAULT_CALIBRATION);
  // The statement chose the terms as chooseQueryTerms does; over the chosen ones' stats it gives them back with their idf.
  const chosen = chooseQueryTerms(
    found.stats.filter((s) => s.field !== BM25.TRACE_FIELD),
    repeated,
  );
  const lexical = found.rows;
  const fallback = lexical.length < FALLBACK_BELOW;
  const rows = (fallback ? await withFallback(pool, r, lexical) : lexical).filter((row) => row.id !== r.excludeId);
  // Scoring the candidates is the other long stretch: on a turn of its own, as the kept sums (term-cache.ts).
  await nextTurn();
  if (r.stats) Object.assign(r.stats, { candidates: rows.length, fallback });
  const best = Math.max(1e-9, ...rows.map((row) => row.task + row.work + row.change));
  const queryWords = new Set(counts.keys());
  const query: ContextSide = { taskType: r.query.taskType, context: r.query.context };
  // The fixed formula's totals first: the best of them vote for the files the model's fileVote reads.
  // Each candidate's side once (relevanceScore and contextMatch read it up to three times).
  const sides = rows.map(sideOf);
  const feedback = rows.map((row) => queryFeedback(queryWords, row.feedback_uses ?? []));
  const fixed = rows.map((row, i) => fixedScore(row, must(sides[i]), query, (row.task + row.work + row.change) / best, must(feedback[i]).credit));
  const tieKeys = new Map<string, string>();
  const keyOf = (id: string) => tieKeys.get(id) ?? '';
  const readTied = (totals: Array<{ id: string; total: number }>, top: number) => readTieKeys(pool, r.tenantId, tiedIds(totals, top), tieKeys);
  await readTied(
    rows.map((row, i) => ({ id: row.id, total: must(fixed[i]).total })),
    VOTERS,
  );
  const fileSignals = changedFileSignals(
    queryMentions(r.query.description, { words: counts, modules: mentioned }),
    rows.map((row, i) => ({ files: row.files ?? [], total: must(fixed[i]).total, key: keyOf(row.id) })),
  );
  const domain = inferredDomain(
    r.query.context.domain,
    rows.map((row, i) => ({ domain: row.domain, total: must(fixed[i]).total, key: keyOf(row.id) })),
  );
  const evidence = rows.map((row, i) => evidenceOf(domain, row, must(fileSignals[i]), contextMatch(query, must(sides[i]))));
  const maxima = fieldMaxima(evidence);
  // Each candidate's features and the model's contributions, once: the best score scales them all.
  const learned = evidence.map((e) => {
    const x = features(e, maxima);
    const parts = model ? contributions(model, x) : null;
    return { x, parts, score: parts ? contributionSum(parts) : 0 };
  });
  const bestScore = model ? Math.max(...learned.map((l) => l.score)) : 0;
  const scored = rows.map((row, i) => {
    const { x, parts, score } = must(learned[i]);
    const ranking = { textRank: (row.task + row.work + row.change) / best, x, parts, score, bestScore };
    return toScored(row, must(sides[i]), query, ranking, must(feedback[i]), parts ? null : must(fixed[i]));
  });
  // Equal totals (runs of the query's domain with no text in common) are ordered by their content, not by their random ids.
  await readTied(
    scored.map((e) => ({ id: e.id, total: e.score.total })),
    r.limit,
  );
  const episodes = scored.sort((a, b) => b.score.total - a.score.total || compareText(keyOf(a.id), keyOf(b.id)) || compareText(a.id, b.id)).slice(0, r.limit);
  // The strength after the order: monotone in the total within a query, so it follows the order.
  for (const e of episodes) {
    e.strengthInputs = { total: e.score.total, bestText: rows.length > 0 ? best : 0, bestScore };
    e.strength = calibratedStrength(calibration, e.strengthInputs);
  }
  return { episodes, terms: weightedTerms(chosen) };
}

/** The voters of changedFileSignals: the best candidates by the fixed formula. */
const VOTERS = 10;

/**
 * The candidates a sort by total, best first, cut to the `top` best, compares by their tie keys:
 * those whose total another one shares, at or above the `top`-th best total (all of them when a
 * total is NaN). The others' order never reaches a comparison of keys, or lies below the cut.
 */
export function tiedIds(candidates: ReadonlyArray<{ id: string; total: number }>, top: number): string[] {
  const count = new Map<number, number>();
  for (const c of candidates) count.set(c.total, (count.get(c.total) ?? 0) + 1);
  // A NaN total compares as a tie with every other: then every candidate is compared by key.
  if (count.has(Number.NaN)) return candidates.map((c) => c.id);
  if (count.size === candidates.length) return [];
  const cut = candidates.map((c) => c.total).sort((a, b) => b - a)[Math.max(0, Math.min(top, candidates.length) - 1)] ?? Number.NEGATIVE_INFINITY;
  return candidates.filter((c) => (count.get(c.total) ?? 0) > 1 && c.total >= cut).map((c) => c.id);
}

/**
 * Adds to `keys` the tie key of each episode not yet in it: a hash of its task and outcome, which
 * orders equal totals the same way in every tenant with this history. Read only for the tied
 * candidates (tiedIds): hashing every candidate's description was a fifth of the ranking
 * statement's CPU (docs/BENCHMARKS.md, issue 55).
 */
async function readTieKeys(pool: pg.Pool, tenantId: string, ids: readonly string[], keys: Map<string, string>): Promise<void> {
  const missing = ids.filter((id) => !keys.has(id));
  if (missing.length === 0) return;
  const p = new Params();
  const rows = await queryPrepared<TieKeyRow>(
    pool,
    `SELECT e.id, md5(e.task_description || coalesce(e.outcome::text, '')) AS tie_key FROM episodes e
      WHERE e.tenant_id = ${p.add(tenantId)} AND e.id = ANY(${p.add(missing)}::uuid[])`,
    p,
  );
  for (const row of rows) keys.set(row.id, row.tie_key);
}

/** A candidate's evidence for the learned model's features, each member named (no spreads: this runs per candidate). */
function evidenceOf(domain: string | null, row: CandidateRow, files: ChangedFileSignals, match: number): CandidateEvidence {
  return {
    task: row.task,
    work: row.work,
    change: row.change,
    sameDomain: domain !== null && row.domain === domain ? 1 : 0,
    contextMatch: match,
    trigram: row.trigram,
    trace: row.trace,
    namesChangedModule: files.namesChangedModule,
    namesChangedFile: files.namesChangedFile,
    fileVote: files.fileVote,
  };
}

/** The fixed formula's breakdown of a candidate (relevanceScore without a learned model). */
function fixedScore(row: CandidateRow, side: ContextSide, query: ContextSide, textRank: number, feedbackCredit: number): RelevanceBreakdown {
  return relevanceScore(query, {
    taskType: side.taskType,
    context: side.context,
    rewardNormalized: row.reward_score,
    textRank,
    trigramSimilarity: row.trigram,
    ageDays: row.age_days,
    feedbackCredit,
    learnedEvidence: null,
  });
}

/** The candidate's task type and context, as relevanceScore and contextMatch compare them. */
function sideOf(row: CandidateRow): ContextSide {
  return { taskType: row.task_type, context: { domain: row.domain, language: row.language, framework: row.framework, tags: row.tags ?? [] } };
}

interface Ranking {
  textRank: number;
  /** The candidate's features, and their contributions under the tenant's model (null without one). */
  x: FeatureVector;
  parts: FeatureVector | null;
  /** The model's score of this candidate and of the best one: evidence is relative to the best. */
  score: number;
  bestScore: number;
}

/**
 * A candidate as relevantEpisodes answers it; `fixed` is its fixed-formula breakdown when there is
 * no model (computed once, for the file votes), else its breakdown is computed with the model's evidence.
 */
function toScored(
  row: CandidateRow,
  side: ContextSide,
  query: ContextSide,
  ranking: Ranking,
  feedback: ReturnType<typeof queryFeedback>,
  fixed: RelevanceBreakdown | null,
): ScoredEpisode {
  const { x, parts } = ranking;
  // exp(score − best): 1 for the best candidate, and a model-score gap of g leaves e^−g of its evidence,
  // so the priors (a factor within 0.90 to 1.17) reorder only candidates within 0.26 of each other.
  const learnedEvidence = parts ? Math.exp(ranking.score - ranking.bestScore) : null;
  return {
    id: row.id,
    taskText: row.task,
    work: row.work,
    change: row.change,
    features: x,
    contributions: parts,
    textRank: ranking.textRank,
    trigramSimilarity: row.trigram,
    failed: row.status === 'failed',
    whatWentWrong: row.status === 'failed' ? row.what_went_wrong : null,
    feedbackUses: feedback.uses,
    feedbackResemblance: feedback.resemblance,
    strength: 0,
    strengthInputs: { total: 0, bestText: 0, bestScore: 0 },
    // Each member named, not spread (relevanceScore's comment says why).
    score:
      fixed ??
      relevanceScore(query, {
        taskType: side.taskType,
        context: side.context,
        rewardNormalized: row.reward_score,
        textRank: ranking.textRank,
        trigramSimilarity: row.trigram,
        ageDays: row.age_days,
        feedbackCredit: feedback.credit,
        learnedEvidence,
      }),
  };
}

/** A hash of an episode's task and outcome (readTieKeys): orders equal totals the same way in every tenant with this history. */
interface TieKeyRow {
  id: string;
  tie_key: string;
}
