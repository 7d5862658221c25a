// What every CLI command shares: the exit codes, one-line failures, argument parsing that names
// the bad option, and output (text for people with control characters escaped, or --json).
import { existsSync, readFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { type ParseArgsConfig, parseArgs } from 'node:util';

export const EXIT = { ok: 0, runtime: 1, usage: 2, verification: 3, notFound: 4 } as const;
export const EXIT_CODES_HELP = 'Exit codes: 0 success, 1 runtime or server error, 2 usage error or input refused, 3 verification failed, 4 not found.';

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

export function writeOutput(output: Output, json: boolean, stdout: Writable): void {
  if (!output) return;
  if (json) stdout.write(`${JSON.stringify(output.json, null, 2)}\n`);
  else if (output.text) stdout.write(`${escapeControl(output.text)}\n`);
}

/** node:util parseArgs with strict options; a bad option is a usage error naming the command's help. */
export function parseCommandArgs<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O, command: string) {
  try {
    return parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new CliError(`${message} (see episodic ${command} --help)`, EXIT.usage);
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
  const at = /at "([^"]+)"/.exec(graphqlMessage)?.[1];
  const badEnum = /Value "([^"]*)" does not exist in "(\w+)" enum/.exec(graphqlMessage);
  const values = badEnum?.[2] ? enumValues(badEnum[2]) : [];
  const reason = badEnum && values.length ? `"${badEnum[1]}" is not one of ${values.join(', ')}` : (graphqlMessage.split('; ').pop() ?? graphqlMessage);
  return new CliError(`input refused${at ? ` at ${at}` : ''}: ${reason}`, EXIT.usage);
}
