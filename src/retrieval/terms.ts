/**
 * The terms an episode is found by, in two fields, and the terms of a query. Pure.
 *
 * - `task`: the words of its task description.
 * - `work`: what the episode did: the files and symbols of the patches / diffs in its step results
 *   and its outcome artifacts (weighted double: the change is the strongest evidence of what a run
 *   was about), the words of its steps' parameters (commands, paths, arguments), the error classes
 *   it met, and its tools.
 *
 * A term is a run of letters, digits and underscores, lower-cased, 2 to 64 characters, not only
 * digits (line numbers, counts are noise), not a hex number of 6 or more digits with a digit in it
 * (addresses, hashes). Identifiers keep their underscores
 * (`bulk_create`) and are also split into their parts, and CamelCase identifiers add their parts
 * too (`ModelChoiceField` -> modelchoicefield, model, choice, field), so a task that names a class
 * or function finds the run that changed it, and a task that names part of one still meets it.
 * Paths split into their segments (`django/forms/models.py` -> django, forms, models, py).
 * English function words (stop-words.ts) are never terms, in any field, whole or as a part.
 */
import { STOP_WORDS } from './stop-words.ts';

const TERM_MIN_CHARS = 2;
const TERM_MAX_CHARS = 64;
/** Characters of each step's parameters and result read for terms (a step may hold 1 MB). */
export const STEP_TEXT_CHARS = 4000;
/** Characters of each diff read (a patch may be large; its first part names what changed). */
export const DIFF_CHARS = 20_000;
/** tf weight of a file or symbol of a change, against 1 for a word of a command. */
export const CHANGE_WEIGHT = 2;

export type TermField = 'task' | 'work';
export type TermCounts = Map<string, number>;

const WORD = /[\p{L}\p{N}_]+/gu;
const CAMEL = /[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+/g;
/**
 * Hex numbers with a digit (memory addresses, hashes, commit and object ids): unique to the run
 * that printed them, so their idf is high while they say nothing about the task.
 */
const HEX_NOISE = /^(?:0x)?(?=[0-9a-f]*\d)[0-9a-f]{6,}$/i;
const ERROR_CLASS = /\b[A-Z][A-Za-z0-9_]*(?:Error|Exception|Warning|Failure)\b/g;

const keep = (term: string) => term.length >= TERM_MIN_CHARS && term.length <= TERM_MAX_CHARS && !/^[\d_]+$/.test(term) && !STOP_WORDS.has(term);

/**
 * A word CAMEL matches whole, in one piece (lower case, Capitalised, all capitals, digits): it has
 * no parts, so the split is skipped for the words of ordinary text (most of every field's words).
 */
const ONE_PART = /^(?:[A-Z]?[a-z]+|[A-Z]+|\d+)$/;

/** Adds the terms of a text: each word, and the parts of a snake_case or CamelCase word. */
export function addWords(counts: TermCounts, text: string, weight = 1): TermCounts {
  // match, not matchAll: the same words in order, as strings, without a match object for each.
  for (const word of text.match(WORD) ?? []) for (const term of termsOfWord(word)) counts.set(term, (counts.get(term) ?? 0) + weight);
  return counts;
}

/**
 * The terms of one word, in the order they count: the word lower-cased, then its parts. A pure
 * function of the word, remembered for the words up to MEMO_WORD_CHARS long (a text repeats its
 * words, and every text its language's): the regular expressions were most of a query's and an
 * indexed episode's CPU (docs/BENCHMARKS.md, issue 55). Bounded: past MEMO_WORDS it starts again.
 */
function termsOfWord(word: string): readonly string[] {
  if (word.length > MEMO_WORD_CHARS) return splitWord(word);
  let terms = wordTerms.get(word);
  if (terms === undefined) {
    terms = splitWord(word);
    if (wordTerms.size >= MEMO_WORDS) wordTerms.clear();
    wordTerms.set(word, terms);
  }
  return terms;
}

const MEMO_WORD_CHARS = 128;
const MEMO_WORDS = 100_000;
const wordTerms = new Map<string, readonly string[]>();

function splitWord(word: string): string[] {
  if (HEX_NOISE.test(word)) return [];
  const lower = word.toLowerCase();
  const terms = keep(lower) ? [lower] : [];
  if (ONE_PART.test(word)) return terms;
  const parts = new Set<string>();
  for (const piece of word.split('_')) for (const [part] of piece.matchAll(CAMEL)) parts.add(part.toLowerCase());
  if (parts.size > 1) for (const part of parts) if (part !== lower && keep(part)) terms.push(part);
  return terms;
}

export function taskTerms(description: string): TermCounts {
  return addWords(new Map(), description);
}

/** What one step contributes to the work field (tool, action, parameters, error, result text). */
export interface WorkStep {
  tool: string | null;
  action: string | null;
  /** Parameters as JSON text. */
  parameters: string | null;
  errorClass: string | null;
  errorMessage: string | null;
  /** Success output, or the observation. */
  output: string | null;
}

export interface WorkInput {
  artifacts: readonly string[];
  /** The failure's reason and details, or a partial outcome's failed items. */
  failure: string | null;
  steps: readonly WorkStep[];
}

const DIFF_FILE = /^diff --git a\/(\S+) b\/(\S+)$|^\+\+\+ b\/(\S+)$/gm;

/** Files and symbols of a unified diff: the paths, the hunk headers' scopes, the changed lines. */
function diffTerms(counts: TermCounts, diff: string, weight: number): string[] {
  const text = diff.slice(0, DIFF_CHARS);
  const files = new Set<string>();
  for (const m of text.matchAll(DIFF_FILE)) files.add(m[2] ?? m[3] ?? '');
  files.delete('');
  for (const file of files) addWords(counts, file, weight);
  for (const line of text.split('\n')) {
    if (line.startsWith('@@')) addWords(counts, line.replace(/^@@[^@]*@@/, ''), weight);
    else if ((line.startsWith('+') || line.startsWith('-')) && !line.startsWith('+++') && !line.startsWith('---')) addWords(counts, line.slice(1), weight);
  }
  return [...files];
}

const looksLikeDiff = (text: string) => /^diff --git a\//m.test(text);

export function workTerms(input: WorkInput): TermCounts {
  const counts: TermCounts = new Map();
  for (const artifact of input.artifacts) addWords(counts, artifact, CHANGE_WEIGHT);
  if (input.failure) addWords(counts, input.failure);
  for (const step of input.steps) {
    if (step.tool) addWords(counts, step.tool);
    if (step.action) addWords(counts, step.action);
    if (step.parameters) {
      addWords(counts, step.parameters.slice(0, STEP_TEXT_CHARS));
      // The modules of the paths it opened, searched or ran: what a task naming them meets (mentionTerms).
      mentionTerms(step.parameters.slice(0, STEP_TEXT_CHARS), counts);
    }
    if (step.errorClass) addWords(counts, step.errorClass);
    if (step.errorMessage) for (const [name] of step.errorMessage.slice(0, STEP_TEXT_CHARS).matchAll(ERROR_CLASS)) addWords(counts, name);
    const output = step.output ?? '';
    if (looksLikeDiff(output)) diffTerms(counts, output, CHANGE_WEIGHT);
    else for (const [name] of output.slice(0, STEP_TEXT_CHARS).matchAll(ERROR_CLASS)) addWords(counts, name);
  }
  return counts;
}

/** What the trace field reads: the task, each step's parameters, error and result text, and the change. */
export interface TraceInput {
  description: string;
  steps: readonly WorkStep[];
  diff: string | null;
}

/**
 * The trace field: every word a run left, its task, its commands, what they printed (the code it
 * read, the tests' output) and its change, as one document. The work field keeps only paths,
 * identifiers and error classes of the steps; what a run read on its way (a file's content printed
 * by `cat`, a search's hits) names the code it was about, which the other fields never see.
 */
export function traceTerms(input: TraceInput): TermCounts {
  const counts = taskTerms(input.description);
  for (const step of input.steps) {
    if (step.parameters) addWords(counts, step.parameters.slice(0, STEP_TEXT_CHARS));
    if (step.errorMessage) addWords(counts, step.errorMessage.slice(0, STEP_TEXT_CHARS));
    if (step.output) addWords(counts, step.output.slice(0, DIFF_CHARS));
  }
  if (input.diff) addWords(counts, input.diff.slice(0, DIFF_CHARS));
  return counts;
}

/** A document's length for BM25: the sum of its term frequencies. */
export function documentLength(counts: TermCounts): number {
  let length = 0;
  for (const tf of counts.values()) length += tf;
  return length;
}

// ---- the change field: what a run's final change touched ----

/** Source-file extensions dropped from a path's last component ("query.py" names module "query"). */
const SOURCE_EXTENSIONS = new Set([
  'py',
  'pyi',
  'java',
  'kt',
  'scala',
  'js',
  'jsx',
  'ts',
  'tsx',
  'rb',
  'go',
  'rs',
  'c',
  'h',
  'cc',
  'cpp',
  'hpp',
  'cs',
  'php',
  'swift',
  'm',
]);
/** Module terms are runs of 2 to MODULE_PARTS components: `models.query`, `db.models.query`, … */
const MODULE_PARTS = 4;
const DEFINITION = /\b(?:def|class|function|func|fn|interface|struct|enum|trait|module)\s+([A-Za-z_][\w]*)/g;
const MENTION = /[\p{L}\p{N}_]+(?:[./\\][\p{L}\p{N}_]+)+/gu;

/** A path or dotted name as module components, lower-cased: `django/db/models/query.py` -> django, db, models, query. */
export function moduleComponents(name: string): string[] {
  const parts = name
    .toLowerCase()
    .split(/[./\\]+/)
    .filter((p) => p !== '');
  if (parts.length > 1 && SOURCE_EXTENSIONS.has(parts[parts.length - 1] ?? '')) parts.pop();
  if (parts[parts.length - 1] === '__init__') parts.pop();
  return parts;
}

const moduleTerm = (parts: readonly string[]) => parts.join('.');

/**
 * Module terms of a changed file: its path's suffixes of 2 to MODULE_PARTS components, dotted
 * (`models.query`, `db.models.query`, `django.db.models.query`). A task that names the module, a
 * dotted path, a file path or a traceback line meets them through mentionTerms.
 */
export function fileModuleTerms(path: string): string[] {
  const parts = moduleComponents(path);
  const terms: string[] = [];
  for (let n = 2; n <= Math.min(MODULE_PARTS, parts.length); n++) terms.push(moduleTerm(parts.slice(parts.length - n)));
  return terms.filter((t) => t.length <= TERM_MAX_CHARS);
}

/**
 * Module terms a text mentions: every run of 2 to MODULE_PARTS consecutive components of each
 * dotted name or path in it (`django.db.models.query.QuerySet` gives `models.query`, …,
 * `query.queryset`; a traceback's `/testbed/django/db/models/query.py` gives `django.db.models.query`).
 */
export function mentionTerms(text: string, counts: TermCounts = new Map()): TermCounts {
  for (const [mention] of text.matchAll(MENTION)) {
    const parts = moduleComponents(mention);
    for (let start = 0; start < parts.length; start++)
      for (let n = 2; n <= MODULE_PARTS && start + n <= parts.length; n++) {
        const term = moduleTerm(parts.slice(start, start + n));
        if (term.length <= TERM_MAX_CHARS) counts.set(term, (counts.get(term) ?? 0) + 1);
      }
  }
  return counts;
}

/** What the change field reads: the files a run's outcome names and its last diff (the change it left). */
export interface ChangeInput {
  artifacts: readonly string[];
  /** The last unified diff among its steps' results, or null. */
  diff: string | null;
}

/**
 * The change field: the changed files' words and module terms and the scopes of the change (hunk
 * headers, names defined on changed lines), each at CHANGE_WEIGHT. What a run touched, apart from
 * what it typed and read on the way. The other words of changed lines stay out: with them a long
 * patch matched every task by volume (measured: one run in the top 5 of 37% of queries).
 */
export function changeTerms(input: ChangeInput): TermCounts {
  const counts: TermCounts = new Map();
  const files = new Set(input.artifacts);
  const text = (input.diff ?? '').slice(0, DIFF_CHARS);
  for (const m of text.matchAll(DIFF_FILE)) files.add(m[2] ?? m[3] ?? '');
  files.delete('');
  for (const file of files) {
    addWords(counts, file, CHANGE_WEIGHT);
    for (const term of fileModuleTerms(file)) counts.set(term, (counts.get(term) ?? 0) + CHANGE_WEIGHT);
  }
  for (const line of text.split('\n')) {
    const changed = (line.startsWith('+') || line.startsWith('-')) && !line.startsWith('+++') && !line.startsWith('---');
    if (line.startsWith('@@')) addWords(counts, line.replace(/^@@[^@]*@@/, ''), CHANGE_WEIGHT);
    else if (changed) for (const [, name] of line.matchAll(DEFINITION)) if (name) addWords(counts, name, CHANGE_WEIGHT);
  }
  return counts;
}

/** The last diff among step results (the change a run submitted), or null. */
export function lastDiff(outputs: ReadonlyArray<string | null>): string | null {
  for (let i = outputs.length - 1; i >= 0; i--) {
    const output = outputs[i];
    if (output && looksLikeDiff(output)) return output;
  }
  return null;
}
