/**
 * BM25 over two fields, as relevantEpisodes ranks by it. Pure.
 *
 * score(q, d) = Σ_{t in q} idf_task(t) · impact_task(t, d) + WORK_WEIGHT · Σ idf_work(t) · impact_work(t, d)
 * impact(t, d) = tf · (k1 + 1) / (tf + k1 · (1 − b + b · |d| / avg|d|))       (stored per posting)
 * idf(t)       = ln(1 + (N − df + 0.5) / (df + 0.5))                           (Lucene's, never negative)
 *
 * The weights (docs/LEARNING.md gives the measurements behind them):
 * - k1 = 1.2 and b = 0.75 for the task description: the textbook values, and the baseline's.
 * - b = 1 for the work field: how much a run did varies a hundredfold (a two-step fix against a
 *   long exploration), and a long run matches many query words by volume, not by evidence, which
 *   made such runs hubs; full length normalisation removes that advantage.
 * - WORK_WEIGHT = 0.5: the work field meets a task only through its paths and identifiers, so it
 *   adds evidence to the description's match rather than replacing it.
 * - QUERY_TERMS = 48: the rarest 48 of the query's known terms (by their smaller share of documents
 *   over the two fields; store.ts picks them in SQL). A 10 KB task has hundreds of distinct
 *   words; the common ones add little but noise (and let long documents collect many small
 *   matches); 48 posting lists keep the query within its latency budget.
 * - REPEATED_TERMS = 8 words the query repeats at least REPEATED_MIN = 3 times join them however
 *   common: what a task keeps naming (its framework, module, class) is what it is about, and the
 *   rarest-first choice alone would drop exactly those words (same-repository precision fell below
 *   the baseline's without them).
 * - POSTINGS_PER_TERM = 100: each term's best postings by impact; the tail of a common term's list
 *   cannot lift a document into the top results on its own.
 */
export const BM25 = {
  k1: 1.2,
  b: [0.75, 1] as readonly number[],
  WORK_WEIGHT: 0.5,
  QUERY_TERMS: 48,
  REPEATED_MIN: 3,
  REPEATED_TERMS: 8,
  POSTINGS_PER_TERM: 100,

  impact(tf: number, length: number, averageLength: number, field: number): number {
    if (tf <= 0) return 0;
    const b = BM25.b[field] ?? 0.75;
    const norm = 1 - b + b * (length / Math.max(averageLength, 1e-9));
    return (tf * (BM25.k1 + 1)) / (tf + BM25.k1 * norm);
  },

  idf(documents: number, df: number): number {
    return Math.log(1 + (documents - df + 0.5) / (df + 0.5));
  },
} as const;
