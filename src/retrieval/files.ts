/**
 * relevantFiles: where to look, from the files that runs of similar tasks changed. Pure; the store
 * (files-store.ts) gives it the ranked runs and the files each changed.
 *
 *   score(f) = vote(f) / max vote + PATH_WEIGHT (0.5) × path(f) / max path
 *   vote(f)  = Σ_{run r of the VOTING_RUNS best that changed f} similarity(r) × outcome(r) / |files(r)|^0.5
 *   path(f)  = Σ_{term t of f's path the task mentions} idf(t) × min(3, tf of t in the task) / |terms of f's path|^0.5
 *
 * over the files the SIMILAR_RUNS best runs of the ranking changed (relevantEpisodes' own ranking,
 * failures included, so a better ranker improves this too).
 * - similarity(r) = r's text similarity to the task (the ranking's similarity component) / the best
 *   run's: the runs are the ranking's, their weight is their evidence, so reward, recency and
 *   feedback choose which runs vote but do not multiply their votes.
 * - outcome(r): a resolved run's files count fully, a partial one's 0.8, a failed one's 0.6: failed
 *   runs usually edit the right file in the wrong way, evidence of where rather than of how.
 * - A run that changed many files says less about each of them (square-root damping).
 * - path: the files a task names, by path, module or the words of their path (`autodoc`,
 *   `typehints`, `query`), where idf is over the candidates' files, so segments every path shares
 *   (the project's root folder, `py`) count for nothing. Only files a run changed are answered.
 * The weights were chosen on the benchmark's pool alone (leave-one-out over its runs), docs/LEARNING.md.
 */
import { compareText } from '../learning/facts.ts';
import { taskTerms } from './terms.ts';

export const FILE_RULES = {
  /** Runs of the ranking whose files are candidates (and count in runs, resolved, failed, evidence). */
  similarRuns: 50,
  /** The best runs whose files are voted for. */
  votingRuns: 20,
  failedWeight: 0.6,
  partialWeight: 0.8,
  pathWeight: 0.5,
  /** A word the task repeats counts up to this many times in the path match. */
  maxTermRepeats: 3,
  /** Files of one run counted (a run that rewrote a whole tree is no evidence for each file). */
  filesPerRun: 30,
  maxPathChars: 300,
} as const;

export type RunOutcome = 'success' | 'partial' | 'failure';

/** One ranked run, in ranking order: its text similarity to the task, how it ended and the files it changed. */
export interface RankedRun {
  id: string;
  similarity: number;
  outcome: RunOutcome | null;
  files: readonly string[];
}

export interface FileEvidence {
  path: string;
  score: number;
  /** Runs among the SIMILAR_RUNS best that changed the file. */
  runs: number;
  resolved: number;
  failed: number;
  /** The runs that changed it, best first (by their ranking). */
  evidence: string[];
}

/** Paths as a diff or an artifact list gives them: `a/`, `b/` and `./` prefixes dropped, distinct. */
export function normalisePaths(paths: readonly string[]): string[] {
  const out = paths
    .map((p) => p.trim().replace(/^(?:[ab]\/|\.\/)/, ''))
    .filter((p) => p.length > 0 && p.length <= FILE_RULES.maxPathChars && /[./]/.test(p) && !/\s/.test(p));
  return [...new Set(out)].slice(0, FILE_RULES.filesPerRun);
}

/** A file a unified diff changes, and whether the diff creates it (`new file mode`, `--- /dev/null`). */
export interface DiffFile {
  path: string;
  created: boolean;
}

const DIFF_HEADER = /^diff --git a\/(\S+) b\/(\S+)$/;

/** The files of a unified diff (the change a run left), each once, with whether the diff created it. */
export function diffFiles(diff: string): DiffFile[] {
  const files = new Map<string, boolean>();
  let current: string | null = null;
  for (const line of diff.split('\n')) {
    const header = DIFF_HEADER.exec(line);
    if (header) {
      current = normalisePaths([header[2] ?? ''])[0] ?? null;
      if (current !== null && !files.has(current)) files.set(current, false);
    } else if (current !== null && (line.startsWith('new file mode') || line === '--- /dev/null')) files.set(current, true);
  }
  return [...files].map(([path, created]) => ({ path, created }));
}

/** The ranked files, best first (ties by path), at most `limit`. */
export function rankFiles(task: string, runs: readonly RankedRun[], limit: number): FileEvidence[] {
  const similar = runs.slice(0, FILE_RULES.similarRuns);
  const best = Math.max(1e-9, ...similar.map((r) => r.similarity));
  const files = new Map<string, FileEvidence & { vote: number }>();
  similar.forEach((run, rank) => {
    const paths = normalisePaths(run.files);
    for (const path of paths) {
      const e = files.get(path) ?? { path, score: 0, vote: 0, runs: 0, resolved: 0, failed: 0, evidence: [] };
      files.set(path, e);
      e.runs += 1;
      if (run.outcome === 'success') e.resolved += 1;
      if (run.outcome === 'failure') e.failed += 1;
      e.evidence.push(run.id);
      if (rank < FILE_RULES.votingRuns) e.vote += (Math.max(0, run.similarity) / best) * outcomeWeight(run.outcome) * paths.length ** -0.5;
    }
  });
  const path = pathMatches(task, [...files.keys()]);
  const maxVote = Math.max(1e-9, ...[...files.values()].map((e) => e.vote));
  const maxPath = Math.max(1e-9, ...path.values());
  return (
    [...files.values()]
      .map(({ vote, ...e }) => ({ ...e, score: vote / maxVote + (FILE_RULES.pathWeight * (path.get(e.path) ?? 0)) / maxPath }))
      // A file only runs with no text in common with the task changed (context candidates) is no evidence.
      .filter((e) => e.score > 0)
      .sort((a, b) => b.score - a.score || compareText(a.path, b.path))
      .slice(0, Math.max(0, limit))
  );
}

function outcomeWeight(outcome: RunOutcome | null): number {
  if (outcome === 'success') return 1;
  if (outcome === 'partial') return FILE_RULES.partialWeight;
  return FILE_RULES.failedWeight;
}

/** The words of a path: its folders and file name without extension, and their snake_case parts. */
export function pathTerms(path: string): string[] {
  const terms = new Set<string>();
  for (const segment of path
    .toLowerCase()
    .replace(/\.[a-z0-9]+$/, '')
    .split('/')) {
    if (segment === '__init__') continue;
    terms.add(segment);
    for (const part of segment.split(/[_\-.]+/)) terms.add(part);
  }
  return [...terms].filter((t) => t.length >= 2 && !/^\d+$/.test(t));
}

/** path(f) for each file: the idf-weighted words of its path the task mentions (idf over these files). */
export function pathMatches(task: string, paths: readonly string[]): Map<string, number> {
  const query = taskTerms(task);
  const termsOf = new Map(paths.map((p) => [p, pathTerms(p)]));
  const df = new Map<string, number>();
  for (const terms of termsOf.values()) for (const t of terms) df.set(t, (df.get(t) ?? 0) + 1);
  const n = paths.length;
  const scores = new Map<string, number>();
  for (const [p, terms] of termsOf) {
    let score = 0;
    for (const t of terms) {
      const tf = query.get(t) ?? 0;
      if (tf === 0) continue;
      const d = df.get(t) ?? 0;
      score += Math.log(1 + (n - d + 0.5) / (d + 0.5)) * Math.min(FILE_RULES.maxTermRepeats, tf);
    }
    scores.set(p, terms.length ? score / Math.sqrt(terms.length) : 0);
  }
  return scores;
}
