// The run formats an import reads: the one place to add a format. File detection (files.ts), the
// "unknown format" message, the CLI's help and --format check derive from this table; the parsers
// (PARSERS in import-runs.ts) are a Record over its keys, so the compiler asks for a new format's
// parser; test/unit/import-formats.test.ts fails when the README's list misses a format. Its own
// module so the CLI's help can name the formats without loading the importer.

interface FormatSpec {
  /** The file name ending that implies the format when a folder is walked. */
  suffix: string;
  /** What the files are, as the help and the README's list name them. */
  label: string;
}

const FORMAT_TABLE = {
  'mini-swe-agent': { suffix: '.traj.json', label: 'mini-swe-agent trajectories' },
  'swe-agent': { suffix: '.traj', label: 'SWE-agent trajectories' },
  jsonl: { suffix: '.jsonl', label: 'generic JSON lines' },
} as const satisfies Record<string, FormatSpec>;

export type Format = keyof typeof FORMAT_TABLE;

export const FORMATS = Object.keys(FORMAT_TABLE) as readonly Format[];

export function formatSpec(format: Format): FormatSpec {
  return FORMAT_TABLE[format];
}

export function isFormat(name: string): name is Format {
  return Object.hasOwn(FORMAT_TABLE, name);
}

/** The format a file name implies (the longest suffix that matches), or null for files an import skips. */
export function formatOfName(name: string): Format | null {
  const matching = FORMATS.filter((f) => name.endsWith(FORMAT_TABLE[f].suffix));
  return matching.sort((a, b) => FORMAT_TABLE[b].suffix.length - FORMAT_TABLE[a].suffix.length)[0] ?? null;
}

/** The names a file may end with, for a file whose name implies no format. */
export function formatSuffixesText(): string {
  const names = FORMATS.map((f) => `${FORMAT_TABLE[f].suffix} (${f})`);
  return `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/** One help line per format: the file pattern and what it holds. */
export function formatHelpLines(indent: string): string[] {
  const width = Math.max(...FORMATS.map((f) => FORMAT_TABLE[f].suffix.length)) + 3;
  return FORMATS.map((f) => `${indent}${`*${FORMAT_TABLE[f].suffix}`.padEnd(width)}${FORMAT_TABLE[f].label} (--format ${f})`);
}
