/**
 * relevantFiles: where to look, from the files that runs of similar tasks changed. Pure; the store
 * (files-store.ts) gives it the ranked runs and the files each changed.
 *
 *   score(f) = Σ_{run r of the top SIMILAR_RUNS that changed f} similarity(r) × outcome(r) / |files(r)|^0.5
 *            + NAMED_BONUS × [the task names f (its path, its module's dotted name, or its file name)
 *                             and a candidate run changed f]
 *
 * - similarity(r) = r's ranking total / the best run's: the ranking (relevantEpisodes' own, so a
 *   better ranker improves this too) decides how much a run's files count.
 * - outcome(r): a resolved run's files count fully; a failed run's count FAILED_WEIGHT: failed runs
 *   usually edit the right file in the wrong way, so they are evidence of where, not of how.
 * - A run that changed many files says less about each of them (square-root damping).
 * - A file the task itself names is where a reader would look first; it counts only when a run of
 *   the candidates changed it, so the answer never holds a path no run touched.
 */
import { compareText } from '../learning/facts.ts';

export const FILE_RULES = {
  /** Runs whose changed files vote: the best of the ranking. */
  similarRuns: 20,
  /** Candidate runs read for files the task names (the whole candidate set of the ranking). */
  candidateRuns: 150,
  failedWeight: 0.6,
  partialWeight: 0.8,
  namedBonus: 1,
  /** Files of one run counted (a run that rewrote a whole tree is no evidence for each file). */
  filesPerRun: 30,
  maxPathChars: 300,
} as const;

export type RunOutcome = 'success' | 'partial' | 'failure';

/** One ranked run: its ranking total, how it ended and the files it changed. */
export interface RankedRun {
  id: string;
  score: number;
  outcome: RunOutcome | null;
  files: readonly string[];
}

export interface FileEvidence {
  path: string;
  score: number;
  /** Runs among the similar ones that changed the file. */
  runs: number;
  resolved: number;
  failed: number;
  /** Whether the task names the file (path, module or file name). */
  named: boolean;
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

/** The ranked files, best first (ties by path), at most `limit`. */
export function rankFiles(task: string, runs: readonly RankedRun[], limit: number): FileEvidence[] {
  const best = Math.max(1e-9, ...runs.map((r) => r.score));
  const names = namedTargets(task);
  const files = new Map<string, FileEvidence>();
  const entry = (path: string) => {
    let e = files.get(path);
    if (!e) files.set(path, (e = { path, score: 0, runs: 0, resolved: 0, failed: 0, named: false, evidence: [] }));
    return e;
  };
  runs.slice(0, FILE_RULES.candidateRuns).forEach((run, rank) => {
    const paths = normalisePaths(run.files);
    const similar = rank < FILE_RULES.similarRuns;
    for (const path of paths) {
      const named = namesFile(names, path);
      if (!similar && !named) continue;
      const e = entry(path);
      if (named && !e.named) [e.named, e.score] = [true, e.score + FILE_RULES.namedBonus];
      if (!similar) continue;
      e.score += (Math.max(0, run.score) / best) * outcomeWeight(run.outcome) * paths.length ** -0.5;
      e.runs += 1;
      if (run.outcome === 'success') e.resolved += 1;
      if (run.outcome === 'failure') e.failed += 1;
      e.evidence.push(run.id);
    }
  });
  return [...files.values()]
    .filter((e) => e.score > 0)
    .sort((a, b) => b.score - a.score || compareText(a.path, b.path))
    .slice(0, Math.max(0, limit));
}

function outcomeWeight(outcome: RunOutcome | null): number {
  if (outcome === 'success') return 1;
  if (outcome === 'partial') return FILE_RULES.partialWeight;
  return FILE_RULES.failedWeight;
}

/** What a task text names that can be a file: path-like tokens and dotted module names, lower-cased. */
export interface NamedTargets {
  /** Tokens with a `/`: paths or path suffixes (`db/models/query.py`). */
  paths: Set<string>;
  /** Dotted names turned into paths without extension (`django.db.models` -> `django/db/models`). */
  modules: Set<string>;
  /** File names with an extension (`query.py`, `Main.java`). */
  fileNames: Set<string>;
}

const PATH_TOKEN = /[\p{L}\p{N}_.\-/]+/gu;
const EXTENSION = /\.[a-z][a-z0-9]{0,5}$/;

export function namedTargets(task: string): NamedTargets {
  const named: NamedTargets = { paths: new Set(), modules: new Set(), fileNames: new Set() };
  for (const [raw] of task.matchAll(PATH_TOKEN)) {
    const token = raw.toLowerCase().replace(/^[./-]+|[./-]+$/g, '');
    if (token.length < 3 || token.length > FILE_RULES.maxPathChars) continue;
    if (token.includes('/')) named.paths.add(token.replace(/^(?:[ab]\/)/, ''));
    else if (EXTENSION.test(token) && /[a-z_]/.test(token.replace(EXTENSION, ''))) named.fileNames.add(token);
    const dots = token.split('.');
    // A dotted name of at least two identifiers (pkg.module, pkg.module.Class) names a module path.
    if (!token.includes('/') && dots.length >= 2 && dots.every((d) => /^[a-z_][a-z0-9_]*$/.test(d))) {
      for (let n = dots.length; n >= 2; n -= 1) named.modules.add(dots.slice(0, n).join('/'));
    }
  }
  return named;
}

/** Whether the task names this changed file: its path (or a suffix of it), its module, or its file name. */
export function namesFile(named: NamedTargets, path: string): boolean {
  const lower = path.toLowerCase();
  const fileName = lower.split('/').at(-1) ?? lower;
  if (named.fileNames.has(fileName) && fileName.includes('.') && !GENERIC_FILE_NAMES.has(fileName)) return true;
  for (const p of named.paths) if (lower === p || (lower.endsWith(`/${p}`) && p.includes('/'))) return true;
  const stem = lower.replace(EXTENSION, '');
  const module = stem.endsWith('/__init__') ? stem.slice(0, -'/__init__'.length) : stem;
  for (const m of named.modules) if (module === m || module.endsWith(`/${m}`)) return true;
  return false;
}

/** File names so common in every project that naming one says nothing about which one. */
const GENERIC_FILE_NAMES = new Set(['__init__.py', 'index.js', 'index.ts', 'main.py', 'setup.py', 'utils.py', 'readme.md', 'package.json']);
