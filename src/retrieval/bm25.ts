/**
 * BM25 over two fields, as relevantEpisodes ranks by it. Pure.
 *
 * score(q, d) = Σ_{t in q} idf_task(t) · impact_task(t, d) + WORK_WEIGHT · Σ idf_work(t) · impact_work(t, d)
 *              + CHANGE_WEIGHT · Σ idf_change(t) · impact_change(t, d)
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
 * - PIVOT_LENGTH: the length an impact's length norm is relative to, a fixed reference per field
 *   (a typical task description, run and change), not the tenant's running average: a stored impact
 *   then depends on its own document only, so the same episodes give the same index whatever order
 *   or concurrency they end in (with the running average, 32 concurrent imports wrote other
 *   impacts than one at a time). idf, from the document frequencies, is computed at query time.
 * - The trace field (3: every word a run left, terms.ts traceTerms) is scored for the chosen terms
 *   (k1 1.2, b 0.75, its own idf) but never in the candidates' sum: it is one of the learned
 *   model's features (ranker.ts traceRelative), read for the candidates the three fields found.
 *   Its terms do not choose the query's terms either (those are the three fields' rarest), so it
 *   changes no other field's score.
 * - INDEXED_TERMS = 512: postings kept per episode and field, the largest impacts (ties: longer,
 *   then by term), a bound on what one enormous document writes; a real run has far fewer
 *   distinct terms, so nearly every document is indexed whole. Pruning by impact × idf (the write
 *   time's idf) made the index depend on the order episodes ended in.
 */
export const BM25 = {
  k1: 1.2,
  b: [0.75, 1, 1, 0.75] as readonly number[],
  WORK_WEIGHT: 0.5,
  /** The change field's weight in the candidate sum (the learned model weighs the fields itself). */
  CHANGE_WEIGHT: 0.5,
  QUERY_TERMS: 48,
  REPEATED_MIN: 3,
  REPEATED_TERMS: 8,
  POSTINGS_PER_TERM: 100,
  /** Postings kept per episode and field (topTerms). */
  INDEXED_TERMS: 512,
  /** Reference lengths (task, work, change, trace) of the length norm, in term occurrences. */
  PIVOT_LENGTH: [200, 2000, 50, 5000] as readonly number[],
  /** The trace field (scored, never summed into the candidates' BM25). */
  TRACE_FIELD: 3,

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

/** A query term's document frequency in one field, and the field's document count. */
export interface TermStat {
  field: number;
  term: string;
  df: number;
  documents: number;
}

/** A (field, term) the query scores by, with idf × the field's weight. */
export interface QueryTerm {
  field: number;
  term: string;
  /** idf of the term in the field (without the field weight). */
  idf: number;
  weight: number;
}

/**
 * The terms a query is scored by: the QUERY_TERMS rarest known ones (by their smaller share of
 * documents over the fields; ties by term) and the repeated ones, each in every field that holds it.
 */
export function chooseQueryTerms(stats: readonly TermStat[], repeated: readonly string[]): QueryTerm[] {
  const share = new Map<string, number>();
  for (const s of stats) if (s.field !== BM25.TRACE_FIELD) share.set(s.term, Math.min(share.get(s.term) ?? Infinity, s.df / Math.max(s.documents, 1)));
  const rarest = [...share].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, BM25.QUERY_TERMS);
  const chosen = new Set([...rarest.map(([term]) => term), ...repeated]);
  return stats
    .filter((s) => chosen.has(s.term))
    .map((s) => {
      const idf = BM25.idf(s.documents, s.df);
      return { field: s.field, term: s.term, idf, weight: idf * fieldWeight(s.field) };
    });
}

/** A field's weight: 1 for the task and the trace (scored apart), WORK_WEIGHT and CHANGE_WEIGHT in the candidates' sum. */
function fieldWeight(field: number): number {
  return field === 1 ? BM25.WORK_WEIGHT : field === 2 ? BM25.CHANGE_WEIGHT : 1;
}

/** The receipt's view of a query: each chosen term once, with its largest idf over the fields. */
export function weightedTerms(terms: readonly QueryTerm[]): { terms: string[]; weights: number[] } {
  const best = new Map<string, number>();
  for (const t of terms) best.set(t.term, Math.max(best.get(t.term) ?? 0, t.idf));
  const sorted = [...best].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { terms: sorted.map(([term]) => term), weights: sorted.map(([, w]) => w) };
}

/**
 * Static index pruning: the `k` terms of one document field with the largest impact (ties: the
 * longer term, then by term); the others still count in the document length and frequencies. It
 * reads the document alone, so what is kept never depends on the rest of the index.
 */
export function topTerms<T extends { term: string; impact: number }>(entries: readonly T[], k: number): T[] {
  if (entries.length <= k) return [...entries];
  return [...entries]
    .sort((a, b) => b.impact - a.impact || b.term.length - a.term.length || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0))
    .slice(0, Math.max(0, k));
}

/** One field of one document as the index writes it: its terms' counts and the length they make. */
export interface FieldDocument {
  field: number;
  counts: ReadonlyMap<string, number>;
  length: number;
}

/**
 * The postings one document writes in one field, sorted by term: each term's impact against the
 * field's PIVOT_LENGTH, pruned to the INDEXED_TERMS largest (topTerms). A function of the document
 * alone, so the index is the same for the same episodes in any order.
 */
export function fieldPostings(doc: FieldDocument) {
  const pivot = BM25.PIVOT_LENGTH[doc.field] ?? doc.length;
  const scored = [...doc.counts.keys()].sort().map((term) => ({
    field: doc.field,
    term,
    impact: BM25.impact(doc.counts.get(term) ?? 0, doc.length, pivot, doc.field),
  }));
  return topTerms(scored, BM25.INDEXED_TERMS).sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
}
