// Metrics and baselines of the memory benchmark, over run ids. Labels come from the data only:
// an episode is relevant to a task when its final patch changes a file the task's own final patch
// changes (memory-data.ts drops packaging files).
import { addWords, documentLength, type TermCounts, taskTerms } from '../src/retrieval/terms.ts';
import { rng } from './retrieval-data.ts';

export interface LabelledRun {
  id: string;
  repository: string;
  description: string;
  files: string[];
}

export interface Metrics {
  fileHit: number;
  sameRepoP5: number;
  mrr: number;
  /** The largest share of queries any one episode is in the top 5 of. */
  hub: number;
  queries: number;
}

export const K = 5;

const relevant = (query: LabelledRun, candidate: LabelledRun | undefined) => candidate?.files.some((f) => query.files.includes(f));

export function evaluate(queries: readonly LabelledRun[], rankings: ReadonlyMap<string, readonly string[]>, pool: ReadonlyMap<string, LabelledRun>): Metrics {
  let hits = 0;
  let precision = 0;
  let mrr = 0;
  const appearances = new Map<string, number>();
  for (const q of queries) {
    const top = (rankings.get(q.id) ?? []).slice(0, K);
    const firstHit = top.findIndex((id) => relevant(q, pool.get(id)));
    if (firstHit >= 0) {
      hits += 1;
      mrr += 1 / (firstHit + 1);
    }
    precision += top.filter((id) => pool.get(id)?.repository === q.repository).length / K;
    for (const id of top) appearances.set(id, (appearances.get(id) ?? 0) + 1);
  }
  const n = Math.max(1, queries.length);
  return { fileHit: hits / n, sameRepoP5: precision / n, mrr: mrr / n, hub: Math.max(0, ...appearances.values()) / n, queries: queries.length };
}

/** Paired counts: queries one ranking hits and the other misses. */
export function paired(
  queries: readonly LabelledRun[],
  a: ReadonlyMap<string, readonly string[]>,
  b: ReadonlyMap<string, readonly string[]>,
  pool: ReadonlyMap<string, LabelledRun>,
) {
  const hit = (r: ReadonlyMap<string, readonly string[]>, q: LabelledRun) => (r.get(q.id) ?? []).slice(0, K).some((id) => relevant(q, pool.get(id)));
  return { onlyA: queries.filter((q) => hit(a, q) && !hit(b, q)).length, onlyB: queries.filter((q) => !hit(a, q) && hit(b, q)).length };
}

/** The share of queries for which some pool run changed one of their files: what any ranking can reach. */
export function ceiling(queries: readonly LabelledRun[], pool: readonly LabelledRun[]): number {
  const reachable = queries.filter((q) => pool.some((r) => r.id !== q.id && relevant(q, r))).length;
  return reachable / Math.max(1, queries.length);
}

/** A run as the "everything it left" baseline reads it: task, commands, outputs and final patch. */
export interface RunText extends LabelledRun {
  patch: string;
  steps: ReadonlyArray<{ command: string; output: string }>;
}

/** The terms of everything a run left, on the product's tokeniser (terms.ts addWords). */
export function everythingTerms(run: RunText): TermCounts {
  const counts = taskTerms(run.description);
  for (const step of run.steps) {
    addWords(counts, step.command);
    addWords(counts, step.output);
  }
  return addWords(counts, run.patch);
}

/**
 * Okapi BM25 (k1 1.2, b 0.75, Lucene's non-negative idf) over one text per pool run (by default its
 * task description), with every query term, on the same terms the product extracts (terms.ts), so
 * the comparison is of ranking, not of tokenising. In context mode it ranks only the query's repository.
 */
export class Bm25Baseline<R extends LabelledRun = LabelledRun> {
  private readonly docs = new Map<string, TermCounts>();
  private readonly lengths = new Map<string, number>();
  private readonly df = new Map<string, number>();
  private readonly postings = new Map<string, string[]>();
  private readonly averageLength: number;

  constructor(
    private readonly pool: readonly R[],
    documentTerms: (run: R) => TermCounts = (run) => taskTerms(run.description),
    private readonly k1 = 1.2,
    private readonly b = 0.75,
  ) {
    let total = 0;
    for (const run of pool) {
      const counts = documentTerms(run);
      this.docs.set(run.id, counts);
      const length = documentLength(counts);
      this.lengths.set(run.id, length);
      total += length;
      for (const term of counts.keys()) {
        this.df.set(term, (this.df.get(term) ?? 0) + 1);
        const list = this.postings.get(term);
        if (list) list.push(run.id);
        else this.postings.set(term, [run.id]);
      }
    }
    this.averageLength = total / Math.max(1, pool.length);
  }

  rank(description: string, repository: string | null): string[] {
    const n = this.pool.length;
    const scores = new Map<string, number>();
    for (const term of taskTerms(description).keys()) {
      const df = this.df.get(term) ?? 0;
      if (df === 0) continue;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (const id of this.postings.get(term) ?? []) {
        const tf = this.docs.get(id)?.get(term) ?? 0;
        const norm = 1 - this.b + this.b * ((this.lengths.get(id) ?? 0) / this.averageLength);
        scores.set(id, (scores.get(id) ?? 0) + (idf * tf * (this.k1 + 1)) / (tf + this.k1 * norm));
      }
    }
    const repositoryOf = new Map(this.pool.map((r) => [r.id, r.repository]));
    return [...scores.entries()]
      .filter(([id]) => repository === null || repositoryOf.get(id) === repository)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([id]) => id);
  }
}

/** K runs of the query's repository drawn at random (fixed seed per query). */
export function randomSameRepository(query: LabelledRun, pool: readonly LabelledRun[], seed: number): string[] {
  const random = rng(seed);
  const same = pool
    .filter((r) => r.repository === query.repository)
    .map((r) => r.id)
    .sort();
  for (let i = same.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [same[i], same[j]] = [same[j] as string, same[i] as string];
  }
  return same.slice(0, K);
}
