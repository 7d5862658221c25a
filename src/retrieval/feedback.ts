/**
 * Query-relative retrieval feedback for episodes. Pure.
 *
 * A used retrieval credits the episodes it served *for the query that served them*, not for every
 * query: the receipt keeps that query's terms (the ones the ranking used, each with its idf), and
 * each completion that reports the retrieval adds one use (its target: +1 success, -1 failure,
 * partial in between) to each served episode. A later query applies an episode's uses only in
 * proportion to how much it resembles the query of each use:
 *
 *   resemblance(Q, use) = Σ_{t ∈ use.terms, t ∈ Q} idf(t) / Σ_{t ∈ use.terms} idf(t)      in [0, 1]
 *
 * the share of the earlier query's information (its rare terms weigh most) that the new query
 * contains. Uses below MIN_RESEMBLANCE are ignored; the others move the credit, oldest first:
 *
 *   credit ← credit + RATE · resemblance · (target − credit)         (starts at 0, stays in [-1, 1])
 *
 * so the same query asked again after n helpful uses sees 1 − 0.7^n (as the per-episode credit did),
 * a query sharing half of it sees about half the step, and an unrelated query sees 0: a run that
 * helped one task is not promoted for every later task (per-episode credit made hubs of them).
 *
 * A use's target is grounded in what the run that used the retrieval did (groundedTarget): a
 * success that reports the files it changed (outcome artifacts) credits only the served episodes
 * that changed one of them too; the others get target 0 (served, not what the run needed). A run
 * without artifacts credits all of them; a failure debits all of them (their direction failed).
 */
export const EPISODE_FEEDBACK = {
  /** Share of the way to the target per use of an identical query. */
  RATE: 0.3,
  /** Below this resemblance a use says nothing about the new query. */
  MIN_RESEMBLANCE: 0.4,
  /** The newest uses read per episode. */
  MAX_USES: 32,
} as const;

/** A query's terms as the ranking used them, each with its idf (the receipt stores these). */
export interface WeightedTerms {
  terms: readonly string[];
  weights: readonly number[];
}

/** One reported use of a retrieval that served the episode. */
export interface FeedbackUse extends WeightedTerms {
  /** +1 success, -1 failure, partial: 2 × completed share − 1. */
  target: number;
}

export interface QueryFeedback {
  /** In [-1, 1]; 0 when no use resembles the query. */
  credit: number;
  /** How many uses counted (resemblance at least MIN_RESEMBLANCE). */
  uses: number;
  /** The largest resemblance of any use (0 when none). */
  resemblance: number;
}

/** idf-weighted share of the use's query terms that the new query holds; 0 for an empty use. */
export function resemblance(query: ReadonlySet<string>, use: WeightedTerms): number {
  let total = 0;
  let shared = 0;
  (use.terms ?? []).forEach((term, i) => {
    const weight = Math.max(0, use.weights?.[i] ?? 0);
    total += weight;
    if (query.has(term)) shared += weight;
  });
  return total > 0 ? shared / total : 0;
}

/** The credit an episode's uses (oldest first) give it for this query. */
export function queryFeedback(query: ReadonlySet<string>, uses: readonly FeedbackUse[]): QueryFeedback {
  let credit = 0;
  let counted = 0;
  let best = 0;
  for (const use of uses) {
    const r = resemblance(query, use);
    best = Math.max(best, r);
    if (r < EPISODE_FEEDBACK.MIN_RESEMBLANCE) continue;
    const target = Math.min(1, Math.max(-1, use.target));
    credit += EPISODE_FEEDBACK.RATE * r * (target - credit);
    counted += 1;
  }
  return { credit: Math.min(1, Math.max(-1, credit)), uses: counted, resemblance: best };
}

/** A path as compared: trimmed, forward slashes, no leading "./" or "/". */
const normalPath = (path: string) =>
  path
    .trim()
    .replace(/\\/g, '/')
    .replace(/^(\.\/|\/)+/, '');

/**
 * The target of one use for one served episode: the outcome's target, except that a success with
 * artifacts credits only an episode sharing one of them (0 for the others).
 */
export function groundedTarget(target: number, usedByArtifacts: readonly string[], servedArtifacts: readonly string[]): number {
  if (target <= 0) return target;
  const used = new Set(usedByArtifacts.map(normalPath).filter((p) => p !== ''));
  if (used.size === 0) return target;
  return servedArtifacts.some((p) => used.has(normalPath(p))) ? target : 0;
}
