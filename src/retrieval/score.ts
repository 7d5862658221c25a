/**
 * Episode retrieval scoring. Two formulas live here:
 *
 * - seed003Score: the keyword-ranking baseline (an in-memory scan), as its reference code computes it
 *   (d-o-hub/rust-self-learning-memory memory-core/src/memory/retrieval/scoring.rs and context.rs).
 *   It is the baseline the benchmark compares against, so it keeps that code's quirks: reward is
 *   the raw total (not normalised), context saturates at 0.4, description words must be longer than
 *   3 characters, and similarity divides by all query words.
 * - relevanceScore: our ranking, which the SQL in the episode store mirrors term by term. Text
 *   similarity arrives as numbers computed by PostgreSQL, never as strings.
 *
 * docs/LEARNING.md gives both formulas and the weights' rationale.
 */
import { type ContextFacts, clamp, compareText } from '../learning/facts.ts';
import { signalWeights, type WeightedSignal } from './signals.ts';

export interface RetrievalQuery {
  description: string;
  taskType: string | null;
  context: ContextFacts;
}

// ---- keyword-ranking baseline ----

export interface Seed003Episode {
  id: string;
  description: string;
  context: ContextFacts;
  /** Reward.total, unnormalised, as the baseline uses it; null when the episode has no reward. */
  rewardTotal: number | null;
}

const SEED003 = {
  reward: 0.3,
  description: 0.3,
  contextCap: 0.4,
  domain: 0.4,
  language: 0.3,
  framework: 0.2,
  perSharedTag: 0.1,
  /** The baseline keeps words with `len() > 3`; we count code points, not UTF-8 bytes. */
  minWordChars: 4,
} as const;

/** What the baseline derives from the query: its words, the long ones, and its tags as a set. */
interface PreparedQuery {
  all: string[];
  long: string[];
  tags: Set<string>;
}

function prepareQuery(query: RetrievalQuery): PreparedQuery {
  const all = query.description
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== '');
  return { all, long: all.filter((word) => Array.from(word).length >= SEED003.minWordChars), tags: new Set(query.context.tags) };
}

/** The baseline's candidate filter (is_relevant_episode), applied before scoring. */
export function seed003Matches(query: RetrievalQuery, episode: Seed003Episode): boolean {
  return matchesWith(query, prepareQuery(query), episode, episode.description.toLowerCase());
}

/** The baseline's score (calculate_relevance_score). */
export function seed003Score(query: RetrievalQuery, episode: Seed003Episode): number {
  return scoreWith(query, prepareQuery(query), episode, episode.description.toLowerCase());
}

/**
 * The baseline's in-memory scan: filter, score, best first (ties by id, which the baseline leaves unordered).
 * The query is tokenised once and each description lowercased once, as a scan written for speed
 * would: the baseline is measured as well implemented as ours.
 */
export function rankBySeed003(query: RetrievalQuery, episodes: Iterable<Seed003Episode>, limit: number): Array<{ id: string; score: number }> {
  const prepared = prepareQuery(query);
  const scored: Array<{ id: string; score: number }> = [];
  for (const episode of episodes) {
    const description = episode.description.toLowerCase();
    if (matchesWith(query, prepared, episode, description)) scored.push({ id: episode.id, score: scoreWith(query, prepared, episode, description) });
  }
  return scored.sort((a, b) => b.score - a.score || compareText(a.id, b.id)).slice(0, Math.max(0, limit));
}

function matchesWith(query: RetrievalQuery, prepared: PreparedQuery, episode: Seed003Episode, description: string): boolean {
  return (
    sameValue(query.context.domain, episode.context.domain) ||
    sameValue(query.context.language, episode.context.language) ||
    sameValue(query.context.framework, episode.context.framework) ||
    episode.context.tags.some((tag) => prepared.tags.has(tag)) ||
    prepared.long.some((word) => description.includes(word))
  );
}

function scoreWith(query: RetrievalQuery, prepared: PreparedQuery, episode: Seed003Episode, description: string): number {
  const reward = episode.rewardTotal === null ? 0 : SEED003.reward * episode.rewardTotal;
  const sharedTags = episode.context.tags.filter((tag) => prepared.tags.has(tag)).length;
  const context =
    (sameValue(query.context.domain, episode.context.domain) ? SEED003.domain : 0) +
    (sameValue(query.context.language, episode.context.language) ? SEED003.language : 0) +
    (sameValue(query.context.framework, episode.context.framework) ? SEED003.framework : 0) +
    SEED003.perSharedTag * sharedTags;
  const matched = prepared.long.filter((word) => description.includes(word)).length;
  const similarity = prepared.all.length === 0 ? 0 : matched / prepared.all.length;
  return reward + Math.min(SEED003.contextCap, context) + SEED003.description * similarity;
}

// The baseline's domain is a required string; ours is optional, and two missing values are no match.
function sameValue(a: string | null, b: string | null): boolean {
  return a !== null && a === b;
}

// ---- our ranking ----

/**
 * The fixed formula's weights (the ranking below a minimum of history, and the evidence of a
 * tenant without a learned model), from the signals' table (signals.ts). contextMatch and
 * similarity are the task evidence; reward, recency and feedback are priors that only reorder runs
 * of comparable evidence (evidenceFirst); feedback applies to a signed credit.
 */
export const RELEVANCE_WEIGHTS: Readonly<Record<WeightedSignal, number>> = signalWeights();

/** Shares of contextMatch; fields the query leaves empty drop out and the rest are rescaled. */
export const CONTEXT_FIELD_WEIGHTS = {
  domain: 0.3,
  taskType: 0.2,
  language: 0.25,
  framework: 0.15,
  tags: 0.1,
} as const;

export const RECENCY_HALF_LIFE_DAYS = 30;

/** The largest factor the priors can apply (all at their best) and the smallest (feedback at -1). */
export const PRIOR_FACTOR = {
  max: 1 + RELEVANCE_WEIGHTS.reward + RELEVANCE_WEIGHTS.recency + RELEVANCE_WEIGHTS.feedback,
  min: 1 - RELEVANCE_WEIGHTS.feedback,
} as const;
/**
 * Evidence first: a run whose evidence is at most this share of another's never outranks it,
 * whatever its reward, recency and feedback (PRIOR_FACTOR.min / PRIOR_FACTOR.max, about 0.77).
 */
export const COMPARABLE_EVIDENCE = PRIOR_FACTOR.min / PRIOR_FACTOR.max;

export interface ContextSide {
  taskType: string | null;
  context: ContextFacts;
}

export interface RankingCandidate extends ContextSide {
  /** Reward.normalized; null counts as 0. */
  rewardNormalized: number | null;
  /** Full-text rank in [0, 1]: BM25 relative to the best candidate's. */
  textRank: number;
  /** pg_trgm similarity of the descriptions, in [0, 1]. */
  trigramSimilarity: number;
  /** Days since the episode ended; negative (clock skew) counts as 0; null when unknown (neutral recency). */
  ageDays: number | null;
  /** Retrieval-feedback credit in [-1, 1]; 0 when none. */
  feedbackCredit: number;
  /** The learned model's evidence in [0, 1] (ranker.ts); null without a model (the fixed formula's evidence). */
  learnedEvidence?: number | null;
}

export interface RelevanceBreakdown {
  /** Each component in [0, 1], except feedback in [-1, 1]. */
  contextMatch: number;
  reward: number;
  similarity: number;
  recency: number;
  feedback: number;
  /** The task evidence in [0, 1]: the learned model's, or the fixed formula's. */
  evidence: number;
  /** evidence × the priors' factor (evidenceFirst), in [0, PRIOR_FACTOR.max]. */
  total: number;
}

/** Neutral recency for a run whose end time is unknown: that of a run half a life old. */
export const NEUTRAL_RECENCY = 2 ** -1;

export function relevanceScore(query: ContextSide, candidate: RankingCandidate): RelevanceBreakdown {
  const components = {
    contextMatch: contextMatch(query, candidate),
    reward: clamp(candidate.rewardNormalized ?? 0, 0, 1),
    // Either signal alone is evidence: full text needs words a dictionary can split, trigrams do not.
    similarity: Math.max(clamp(candidate.textRank, 0, 1), clamp(candidate.trigramSimilarity, 0, 1)),
    recency: candidate.ageDays === null ? NEUTRAL_RECENCY : recencyWeight(candidate.ageDays),
    feedback: clamp(candidate.feedbackCredit, -1, 1),
  };
  const evidence = candidate.learnedEvidence != null ? clamp(candidate.learnedEvidence, 0, 1) : fixedEvidence(components.contextMatch, components.similarity);
  return { ...components, evidence, total: evidenceFirst(evidence, components) };
}

/** The fixed formula's evidence: weighted context match and text similarity, in [0, 1]. */
export function fixedEvidence(context: number, similarity: number): number {
  return (
    (RELEVANCE_WEIGHTS.contextMatch * context + RELEVANCE_WEIGHTS.similarity * similarity) / (RELEVANCE_WEIGHTS.contextMatch + RELEVANCE_WEIGHTS.similarity)
  );
}

/**
 * Evidence first: the priors scale the evidence by a factor in [PRIOR_FACTOR.min, PRIOR_FACTOR.max]
 * instead of adding to it, so they reorder runs of comparable evidence and never lift a run with
 * next to no overlap above one with real overlap (a property test states it).
 */
export function evidenceFirst(evidence: number, priors: { reward: number; recency: number; feedback: number }): number {
  const factor =
    1 +
    RELEVANCE_WEIGHTS.reward * clamp(priors.reward, 0, 1) +
    RELEVANCE_WEIGHTS.recency * clamp(priors.recency, 0, 1) +
    RELEVANCE_WEIGHTS.feedback * clamp(priors.feedback, -1, 1);
  return clamp(evidence, 0, 1) * factor;
}

/**
 * Weighted share of the query's context that the candidate matches, in [0, 1]. Values compare
 * exactly; tags score |query tags ∩ candidate tags| / |query tags|. 0 when the query gives no context.
 */
export function contextMatch(query: ContextSide, candidate: ContextSide): number {
  const queryTags = new Set(query.context.tags);
  const candidateTags = new Set(candidate.context.tags);
  const terms: Array<[weight: number, specified: boolean, score: number]> = [
    fieldTerm(CONTEXT_FIELD_WEIGHTS.domain, query.context.domain, candidate.context.domain),
    fieldTerm(CONTEXT_FIELD_WEIGHTS.taskType, query.taskType, candidate.taskType),
    fieldTerm(CONTEXT_FIELD_WEIGHTS.language, query.context.language, candidate.context.language),
    fieldTerm(CONTEXT_FIELD_WEIGHTS.framework, query.context.framework, candidate.context.framework),
    [CONTEXT_FIELD_WEIGHTS.tags, queryTags.size > 0, [...queryTags].filter((tag) => candidateTags.has(tag)).length / Math.max(1, queryTags.size)],
  ];
  const specified = terms.filter(([, isSpecified]) => isSpecified);
  const weight = specified.reduce((sum, [termWeight]) => sum + termWeight, 0);
  if (weight === 0) return 0;
  return specified.reduce((sum, [termWeight, , score]) => sum + termWeight * score, 0) / weight;
}

function fieldTerm(weight: number, queryValue: string | null, candidateValue: string | null): [number, boolean, number] {
  return [weight, queryValue !== null, sameValue(queryValue, candidateValue) ? 1 : 0];
}

/** 2^(-ageDays / RECENCY_HALF_LIFE_DAYS): 1 for a fresh episode, 0.5 after 30 days. */
export function recencyWeight(ageDays: number): number {
  return 2 ** (-Math.max(0, ageDays) / RECENCY_HALF_LIFE_DAYS);
}

// ---- evaluation ----

/**
 * NDCG@k with exponential gain: DCG = Σ_{i=1..k} (2^rel_i − 1) / log2(i + 1), divided by the DCG of
 * the ideal order of all judged relevances. Unjudged ids have relevance 0; an id repeated in the
 * ranking gains only at its first position. 0 when nothing is relevant or k <= 0.
 */
export function ndcgAtK(rankedIds: readonly string[], relevanceById: ReadonlyMap<string, number> | Readonly<Record<string, number>>, k: number): number {
  const relevance = relevanceById instanceof Map ? relevanceById : new Map(Object.entries(relevanceById));
  const seen = new Set<string>();
  const gains = rankedIds.slice(0, Math.max(0, k)).map((id) => {
    const first = !seen.has(id);
    seen.add(id);
    return first ? (relevance.get(id) ?? 0) : 0;
  });
  const ideal = [...relevance.values()].sort((a, b) => b - a).slice(0, Math.max(0, k));
  const idealDcg = dcg(ideal);
  return idealDcg === 0 ? 0 : dcg(gains) / idealDcg;
}

function dcg(relevances: readonly number[]): number {
  return relevances.reduce((sum, rel, index) => sum + (2 ** Math.max(0, rel) - 1) / Math.log2(index + 2), 0);
}
