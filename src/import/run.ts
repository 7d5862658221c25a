// The shape every trajectory format is read into before anything is written: one run = one
// episode. Parsers are pure (text in, ImportedRun out) so a malformed file fails before any write.
import { jsonErrorWithoutBytes } from './json-errors.ts';

export type ResultKind = 'SUCCESS' | 'ERROR' | 'TIMEOUT';

export interface ImportedStep {
  kind: 'tool_call' | 'llm_call';
  /** view, edit, search, list, test, run, git, install, submit, ... (commands.ts) */
  tool: string | null;
  /** A one-line summary; the raw command is in parameters.command. */
  action: string;
  parameters: { command: string } | null;
  result: { kind: ResultKind; output?: string; message?: string; errorClass?: string };
  /** The agent's reasoning before the action, if the format has one. */
  thought: string | null;
  startedAt: Date | null;
  endedAt: Date | null;
  tokens: number | null;
  cost: number | null;
  /** The step's line in its file, for formats with one step per line. */
  line?: number;
  latencyMs?: number;
}

export interface ImportedRun {
  format: string;
  /** e.g. django__django-10097 */
  instanceId: string;
  taskDescription: string;
  /** The repository, e.g. django/django. */
  domain: string | null;
  language: string | null;
  steps: ImportedStep[];
  /** The final patch (empty when the run submitted none). */
  patch: string;
  /** How the agent's run ended (e.g. Submitted), as the format states it. */
  exitStatus: string | null;
  startedAt: Date | null;
  endedAt: Date | null;
  agent: string | null;
  /** The run's own verdict, where the format has one; a verdict file overrides it. */
  resolved?: boolean | null;
}

/** A file that cannot be imported: names the file and, where known, the line. */
export class ImportFileError extends Error {
  override name = 'ImportFileError';
  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly reason: string,
  ) {
    super(`${file}${line ? `:${line}` : ''}: ${reason}`);
  }
}

/** The 1-based line of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i += 1) if (text.charCodeAt(i) === 10) line += 1;
  return line;
}

/** JSON.parse that fails with the file and line of the error. */
export function parseJson(file: string, text: string, lineOffset = 0): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const position = /position (\d+)/.exec(message);
    const lineCol = /line (\d+) column/.exec(message);
    const line = lineCol ? Number(lineCol[1]) : position ? lineAt(text, Number(position[1])) : 1;
    throw new ImportFileError(file, line + lineOffset, `invalid JSON: ${jsonErrorWithoutBytes(message)}`);
  }
}

/** SWE-bench instance ids name the repository: sphinx-doc__sphinx-8056 -> sphinx-doc/sphinx. */
export function repositoryOf(instanceId: string): string | null {
  const match = /^(.+?)__(.+)-\d+$/.exec(instanceId);
  return match ? `${match[1]}/${match[2]}` : null;
}

const LANGUAGE_BY_EXTENSION: Record<string, string> = {
  py: 'python',
  js: 'javascript',
  jsx: 'javascript',
  ts: 'typescript',
  tsx: 'typescript',
  go: 'go',
  rs: 'rust',
  java: 'java',
  rb: 'ruby',
  php: 'php',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  cs: 'csharp',
  kt: 'kotlin',
  swift: 'swift',
  scala: 'scala',
};

/** The language most of the changed files are written in (by extension), or null. */
export function languageOf(files: readonly string[]): string | null {
  const counts = new Map<string, number>();
  for (const file of files) {
    const language = LANGUAGE_BY_EXTENSION[file.split('.').pop() ?? ''];
    if (language) counts.set(language, (counts.get(language) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}

/** Paths a unified diff changes (the b/ side; the a/ side for a deletion), in order, once each. */
export function changedFiles(patch: string): string[] {
  const files: string[] = [];
  for (const match of patch.matchAll(/^diff --git a\/(\S+) b\/(\S+)$/gm)) {
    const file = match[2] ?? match[1];
    if (file && !files.includes(file)) files.push(file);
  }
  return files;
}
