/**
 * What a candidate's changed files say about a query, among the query's candidates. Pure; the
 * ranking (store.ts) gives it each candidate's changed files (episode_files) and its fixed-formula
 * total, and the learned model weighs the three signals (ranker.ts):
 *
 * - namesChangedModule: the task names a module of a file the candidate changed, by a dotted name
 *   or a path (`db.models.query`, `forms/models.py`, a traceback line): terms.ts mentionTerms
 *   against fileModuleTerms of each changed file.
 * - namesChangedFile: a word of the task is the name of a file the candidate changed, without its
 *   extension (`autodoc`, `query`, `widgets`).
 * - fileVote: how strongly the VOTERS best other candidates (by the fixed formula) agree on one of
 *   the candidate's files: Σ over those that changed it of their total / the best total, damped by
 *   the square root of their file count (files.ts votes the same way). Runs that change the files
 *   most similar runs change are likelier to change the task's own (pseudo-relevance feedback on
 *   files). The candidate's own vote is left out, so it never votes for itself.
 *
 * Each is a function of the query and the candidates alone: the same history gives the same values.
 */
import { compareText } from '../learning/facts.ts';
import { fileModuleTerms, mentionTerms, taskTerms } from './terms.ts';

const CHANGED_FILE_RULES = {
  /** The best candidates (fixed formula) whose changed files are voted for. */
  voters: 10,
} as const;

export interface ChangedFileCandidate {
  /** Paths the candidate's last diff changed. */
  files: readonly string[];
  /** Its fixed-formula total: the voters are the best by it. */
  total: number;
  /** Breaks equal totals (a key of the run's content, never its position or id): the same voters in any order. */
  key: string;
}

export interface ChangedFileSignals {
  namesChangedModule: number;
  namesChangedFile: number;
  fileVote: number;
}

/** The words and module mentions of a task, read once per query. */
export interface QueryMentions {
  words: ReadonlySet<string>;
  modules: ReadonlySet<string>;
}

export function queryMentions(description: string, terms: { words?: ReadonlyMap<string, number>; modules?: ReadonlyMap<string, number> } = {}): QueryMentions {
  // The ranking passes the terms it read already (taskTerms of a 10 KB task was milliseconds).
  const words = terms.words ?? taskTerms(description);
  const modules = terms.modules ?? mentionTerms(description);
  return { words: new Set(words.keys()), modules: new Set(modules.keys()) };
}

/** A path's file name without its extension, lower-cased: `django/forms/widgets.py` -> widgets. */
export function fileStem(path: string): string {
  return (path.split('/').pop() ?? path).replace(/\.[A-Za-z0-9]+$/, '').toLowerCase();
}

/**
 * A changed file's module terms and stem: pure functions of its path, remembered (bounded, past
 * FILE_FACTS_MAX it starts again), since the same candidates' files come back query after query.
 */
function fileFacts(path: string): { modules: readonly string[]; stem: string } {
  let facts = fileFactsMemo.get(path);
  if (facts === undefined) {
    facts = { modules: fileModuleTerms(path), stem: fileStem(path) };
    if (fileFactsMemo.size >= FILE_FACTS_MAX) fileFactsMemo.clear();
    fileFactsMemo.set(path, facts);
  }
  return facts;
}

const FILE_FACTS_MAX = 50_000;
const fileFactsMemo = new Map<string, { modules: readonly string[]; stem: string }>();

/** The three signals of each candidate, in the candidates' order. */
export function changedFileSignals(query: QueryMentions, candidates: readonly ChangedFileCandidate[]): ChangedFileSignals[] {
  const voters = candidates
    .map((c, at) => ({ at, total: c.total, key: c.key }))
    .sort((a, b) => b.total - a.total || compareText(a.key, b.key) || a.at - b.at)
    .slice(0, CHANGED_FILE_RULES.voters);
  const best = Math.max(1e-9, voters[0]?.total ?? 0);
  const voteOf = (c: ChangedFileCandidate) => c.total / best / Math.sqrt(Math.max(1, c.files.length));
  const votes = new Map<string, number>();
  const voting = new Set<number>();
  for (const v of voters) {
    const c = candidates[v.at];
    if (!c) continue;
    voting.add(v.at);
    for (const file of new Set(c.files)) votes.set(file, (votes.get(file) ?? 0) + voteOf(c));
  }
  return candidates.map((c, at) => {
    const own = voting.has(at) ? voteOf(c) : 0;
    let fileVote = 0;
    let namesChangedModule = 0;
    let namesChangedFile = 0;
    for (const file of c.files) {
      fileVote = Math.max(fileVote, (votes.get(file) ?? 0) - own);
      const { modules, stem } = fileFacts(file);
      if (modules.some((term) => query.modules.has(term))) namesChangedModule = 1;
      if (query.words.has(stem)) namesChangedFile = 1;
    }
    return { namesChangedModule, namesChangedFile, fileVote: Math.max(0, fileVote) };
  });
}
