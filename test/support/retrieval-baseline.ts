// The keyword-ranking baseline the retrieval benchmark compares against (bench/retrieval.ts), and
// the NDCG@k it measures both rankings by. Benchmark code, not the service's: it lives beside the
// test helpers the benchmarks import, and test/unit/retrieval-baseline.test.ts checks it.
//
// seed003Score is seed 003's in-memory keyword scan as its reference code computes it
// (d-o-hub/rust-self-learning-memory memory-core/src/memory/retrieval/scoring.rs and context.rs),
// quirks kept: reward is the raw total (not normalised), context saturates at 0.4, description
// words must be longer than 3 characters, and similarity divides by all query words.
// docs/LEARNING.md ("Baseline") gives the formula.
import { type ContextFacts, compareText } from '../../src/learning/facts.ts';
import type { RetrievalQuery } from '../../src/retrieval/score.ts';

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
