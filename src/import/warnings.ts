// What an import report warns about, so that a mis-import cannot pass silently: many runs of
// different instances sharing one task text (a template or a demonstration taken for the task),
// and runs whose format carries no times (their times stay unknown). Pure.

export interface ImportWarning {
  code: 'SHARED_TASK' | 'TIMES_UNKNOWN' | 'NOTHING_FOUND';
  message: string;
  /** The runs it is about: instance ids (the file where a run has none). */
  runs: string[];
}

/** One parsed run as the warnings see it. */
export interface ParsedRun {
  run: string;
  format: string;
  task: string;
  timesKnown: boolean;
}

/**
 * A task text shared by at least `minRuns` distinct instances, or by at least two that are
 * `minShare` of the import's instances, is suspect. Runs of one instance (several attempts or
 * agents) may share their task: they count once.
 */
export const SHARED_TASK = { minRuns: 3, minShare: 0.2 } as const;

const PREVIEW_CHARS = 80;

/** Case, Unicode form and white space do not make two task texts different. */
export function normalisedTask(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

function preview(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS - 1)}…` : line;
}

function sharedTaskWarnings(runs: readonly ParsedRun[]): ImportWarning[] {
  const byTask = new Map<string, { text: string; instances: Set<string> }>();
  for (const r of runs) {
    const key = normalisedTask(r.task);
    const group = byTask.get(key) ?? { text: r.task, instances: new Set<string>() };
    group.instances.add(r.run);
    byTask.set(key, group);
  }
  const instances = new Set(runs.map((r) => r.run)).size;
  return [...byTask.values()]
    .filter(({ instances: n }) => n.size >= SHARED_TASK.minRuns || (n.size >= 2 && n.size >= SHARED_TASK.minShare * instances))
    .map(({ text, instances: n }) => ({
      code: 'SHARED_TASK' as const,
      message:
        `${n.size} of ${instances} runs share one task text ("${preview(text)}"): ` +
        'the importer may have taken a prompt template or a demonstration for the task; check these runs before relying on them',
      runs: [...n].sort(),
    }));
}

function timesUnknownWarning(runs: readonly ParsedRun[]): ImportWarning[] {
  const untimed = runs.filter((r) => !r.timesKnown);
  if (untimed.length === 0) return [];
  const formats = [...new Set(untimed.map((r) => r.format))].sort().join(', ');
  return [
    {
      code: 'TIMES_UNKNOWN',
      message:
        `${untimed.length} of ${runs.length} runs carry no times (${formats}): their times stay unknown ` +
        '(no wall time, no speed credit in the reward, neutral recency in retrieval)',
      runs: [...new Set(untimed.map((r) => r.run))].sort(),
    },
  ];
}

export function importWarnings(runs: readonly ParsedRun[]): ImportWarning[] {
  return [...sharedTaskWarnings(runs), ...timesUnknownWarning(runs)];
}

/** A folder that gave no run to import, and why: no file with a run's name, or only links (never followed). */
export function nothingFoundWarning(empty: { folder: string; files: number; links: number }, names: string): ImportWarning {
  const why = [
    empty.files ? `${empty.files} file(s), none named ${names}` : `no file named ${names}`,
    ...(empty.links ? [`${empty.links} symbolic link(s) skipped (links are not followed)`] : []),
  ];
  return { code: 'NOTHING_FOUND', message: `nothing to import in ${empty.folder}: ${why.join('; ')}`, runs: [] };
}
