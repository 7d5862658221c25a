// What every CLI command shares: the exit codes, one-line failures, argument parsing that names
// the bad option, and output (text for people with control characters escaped, or --json).
import { existsSync, readFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { type ParseArgsConfig, parseArgs } from 'node:util';

export const EXIT = { ok: 0, runtime: 1, usage: 2, verification: 3, notFound: 4, serverLost: 5 } as const;
export const EXIT_CODES_HELP =
  'Exit codes: 0 success, 1 runtime or server error, 2 usage error or input refused, 3 verification failed, 4 not found, ' +
  '5 an import stopped: the server could not be reached or went away (importing again resumes).';

/** A failure the CLI reports as one line with a stable exit code (see EXIT). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** What a command hands back: text for people, a value for --json (printed as JSON), or nothing (it printed itself). */
export type Output = { text: string; json: unknown } | undefined;

// C0 controls but tab and newline, DEL, and C1 controls: a value from the server (a task
// description, a step's output) must not move the cursor, recolour or retitle the terminal.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Control characters shown as \u001b etc., so server data prints as inert text. */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Text on one line of at most `max` characters: whitespace runs (newlines too) become one space, a cut ends with "…". */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function writeOutput(output: Output, json: boolean, stdout: Writable): void {
  if (!output) return;
  if (json) stdout.write(`${JSON.stringify(output.json, null, 2)}\n`);
  else if (output.text) stdout.write(`${escapeControl(output.text)}\n`);
}

/** Edit distance, to suggest the command or option a typo meant. */
export function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] ?? 0;
      row[j] = Math.min(above + 1, (row[j - 1] ?? 0) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length] ?? 0;
}

/** " (did you mean --json?)" for an unknown option close to a known one, else "". */
function optionHint(message: string, options: NonNullable<ParseArgsConfig['options']>): string {
  const unknown = /^Unknown option '--([^'=]+)/.exec(message)?.[1];
  if (!unknown) return '';
  const close = Object.keys(options).filter((o) => distance(unknown, o) <= 2 || (unknown.length >= 3 && o.startsWith(unknown)));
  return close.length ? ` (did you mean ${close.map((o) => `--${o}`).join(' or ')}?)` : '';
}

/** node:util parseArgs with strict options; a bad option is a usage error naming the command's help. */
export function parseCommandArgs<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O, command: string) {
  try {
    return parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    const message = err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
    // parseArgs suggests `--` for a value that looks like an option; a typo deserves the option it meant.
    const text = message.replace(/\. To specify a positional argument starting with a '-'.*$/, '.');
    throw new CliError(`${text}${optionHint(message, options)} (see episodic ${command ? `${command} ` : ''}--help)`, EXIT.usage);
  }
}

/** Values of an enum of the printed schema (schema.graphql beside the package), or none. */
function enumValues(name: string): string[] {
  const file = new URL('../../schema.graphql', import.meta.url);
  if (!existsSync(file)) return [];
  const body = new RegExp(`\\nenum ${name} \\{([^}]*)\\}`).exec(readFileSync(file, 'utf8'))?.[1] ?? '';
  return body
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^[A-Z_][A-Z0-9_]*$/.test(l));
}

/**
 * A GraphQL variable error as one line: where in the input, what was wrong, and the valid values
 * when the field is an enum. `Variable "$input" got invalid value "x" at "input.kind"; Value "x"
 * does not exist in "OutcomeKind" enum.` becomes `input refused at input.kind: "x" is not one of
 * FAILURE, PARTIAL, SUCCESS`.
 */
export function inputRefused(graphqlMessage: string): CliError {
  const variable = /^Variable "\$(\w+)" got invalid value (.+?)(?: at "([^"]+)")?; /.exec(graphqlMessage);
  const at = variable?.[3] ?? /at "([^"]+)"/.exec(graphqlMessage)?.[1];
  // graphql-js names the enum; graphql-jit (the step journal's mutations) says only "Expected type X." and no path.
  const badEnum = /Value "([^"]*)" does not exist in "(\w+)" enum/.exec(graphqlMessage);
  const expected = /Expected type "?(\w+)"?\.?$/.exec(graphqlMessage);
  const typeName = badEnum?.[2] ?? expected?.[1];
  const values = typeName ? enumValues(typeName) : [];
  const value = badEnum ? `"${badEnum[1]}"` : variable?.[2];
  const reason =
    value && values.length
      ? `${value} is not one of ${values.join(', ')}`
      : value && typeName
        ? `${value} is not a valid ${typeName}`
        : (graphqlMessage.split('; ').pop() ?? graphqlMessage);
  // Without a path, graphql-jit's variable name is the field's (kind), not the operation's.
  const field = !at && variable ? `${variable[1]} ` : '';
  return new CliError(`input refused${at ? ` at ${at}` : ''}: ${field}${reason}`, EXIT.usage);
}
