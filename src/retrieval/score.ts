/**
 * relevantEpisodes' score of one candidate, pure: the episode store (store.ts) finds the candidates
 * by BM25 over the retrieval index and hands each one here with its numbers (textRank, its BM25
 * relative to the best candidate's; pg_trgm similarity; age; feedback credit; the learned model's
 * evidence when the tenant has a model, ranker.ts).
 *
 * - Evidence: the learned model's, else the fixed formula's (fixedEvidence): the evidence signals
 *   of the signals' table (signals.ts: contextMatch and similarity, the larger of textRank and
 *   trigram similarity), weighted by it.
 * - Priors: the table's prior signals (reward, recency and feedback) scale the evidence
 *   (evidenceFirst) instead of adding to it, so they only reorder runs of comparable evidence.
 *
 * docs/LEARNING.md gives the formula and the weights' rationale. The keyword baseline the
 * benchmark compares against is benchmark code (test/support/retrieval-baseline.ts).
 */
import { type ContextFacts, clamp } from '../learning/facts.ts';
import { EVIDENCE_SIGNALS, type EvidenceSignal, PRIOR_SIGNALS, type PriorSignal, signalWeights, type WeightedSignal } from './signals.ts';

export interface RetrievalQuery {
  description: string;
  taskType: string | null;
  context: ContextFacts;
}

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

/** The largest factor the priors can apply (all at their best) and the smallest (all at their worst: feedback at -1). */
export const PRIOR_FACTOR = {
  max: PRIOR_SIGNALS.reduce((factor, s) => factor + s.weight * s.range[1], 1),
  min: PRIOR_SIGNALS.reduce((factor, s) => factor + s.weight * s.range[0], 1),
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

/** Each weighted signal of the table (signals.ts), in its range, and what they add up to. */
export type RelevanceBreakdown = Record<WeightedSignal, number> & {
  /** The task evidence in [0, 1]: the learned model's, or the fixed formula's. */
  evidence: number;
  /** evidence × the priors' factor (evidenceFirst), in [0, PRIOR_FACTOR.max]. */
  total: number;
};

/** Neutral recency for a run whose end time is unknown: that of a run half a life old. */
export const NEUTRAL_RECENCY = 2 ** -1;

export function relevanceScore(query: ContextSide, candidate: RankingCandidate): RelevanceBreakdown {
  // Built whole and then completed, not spread: this runs for every candidate of every retrieval,
  // and a spread into a literal took most of the ranking's JavaScript time.
  const breakdown: RelevanceBreakdown = {
    contextMatch: contextMatch(query, candidate),
    reward: clamp(candidate.rewardNormalized ?? 0, 0, 1),
    // Either signal alone is evidence: full text needs words a dictionary can split, trigrams do not.
    similarity: Math.max(clamp(candidate.textRank, 0, 1), clamp(candidate.trigramSimilarity, 0, 1)),
    recency: candidate.ageDays === null ? NEUTRAL_RECENCY : recencyWeight(candidate.ageDays),
    feedback: clamp(candidate.feedbackCredit, -1, 1),
    evidence: 0,
    total: 0,
  };
  breakdown.evidence = candidate.learnedEvidence != null ? clamp(candidate.learnedEvidence, 0, 1) : fixedEvidence(breakdown);
  breakdown.total = evidenceFirst(breakdown.evidence, breakdown);
  return breakdown;
}

const EVIDENCE_WEIGHT = EVIDENCE_SIGNALS.reduce((sum, s) => sum + s.weight, 0);

/** The fixed formula's evidence: the weighted mean of the evidence signals (context match and text similarity), in [0, 1]. */
export function fixedEvidence(signals: Readonly<Record<EvidenceSignal, number>>): number {
  return EVIDENCE_SIGNALS.reduce((sum, s) => sum + s.weight * signals[s.name], 0) / EVIDENCE_WEIGHT;
}

/**
 * Evidence first: the priors scale the evidence by a factor in [PRIOR_FACTOR.min, PRIOR_FACTOR.max]
 * instead of adding to it, so they reorder runs of comparable evidence and never lift a run with
 * next to no overlap above one with real overlap (a property test states it).
 */
export function evidenceFirst(evidence: number, priors: Readonly<Record<PriorSignal, number>>): number {
  const factor = PRIOR_SIGNALS.reduce((sum, s) => sum + s.weight * clamp(priors[s.name], s.range[0], s.range[1]), 1);
  return clamp(evidence, 0, 1) * factor;
}

/**
 * Weighted share of the query's context that the candidate matches, in [0, 1]. Values compare
 * exactly; tags score |query tags ∩ candidate tags| / |query tags|. 0 when the query gives no context.
 */
export function contextMatch(query: ContextSide, candidate: ContextSide): number {
  const { domain, language, framework, tags } = query.context;
  // No context given (most queries): nothing to match, for every candidate of the query.
  if (domain === null && query.taskType === null && language === null && framework === null && tags.length === 0) return 0;
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

// Two values match when both are given and equal; two missing values are no match.
function sameValue(a: string | null, b: string | null): boolean {
  return a !== null && a === b;
}

/** 2^(-ageDays / RECENCY_HALF_LIFE_DAYS): 1 for a fresh episode, 0.5 after 30 days. */
export function recencyWeight(ageDays: number): number {
  return 2 ** (-Math.max(0, ageDays) / RECENCY_HALF_LIFE_DAYS);
}
