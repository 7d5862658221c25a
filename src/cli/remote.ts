// The CLI commands that talk to a running server through the typed client: option parsing
// shared by all of them (--url, --key, --json, --help), the key lookup, one line per failure and
// the documented exit codes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { createEpisodicClient, type EpisodicClient } from '../client/client.ts';
import { EpisodicError } from '../client/errors.ts';
import { clientEnv } from '../config.ts';
import { CliError } from './errors.ts';

export const EXIT = { ok: 0, runtime: 1, usage: 2, verification: 3, notFound: 4 } as const;
export const DEFAULT_URL = 'http://localhost:4000/graphql';

export const EXIT_CODES_HELP = 'Exit codes: 0 success, 1 runtime or server error, 2 usage error or input refused, 3 verification failed, 4 not found.';
export const CONNECTION_HELP = `Connection (every command):
  --url <url>   GraphQL endpoint (default: EPISODIC_URL, else ${DEFAULT_URL})
  --key <key>   API key (default: EPISODIC_API_KEY, else the file .episodic/admin-key)
  --json        machine-readable output
  -h, --help    this help`;

export type Options = NonNullable<ParseArgsConfig['options']>;

export interface Invocation<V = Record<string, string | boolean | string[] | undefined>> {
  values: V;
  positionals: string[];
  json: boolean;
  client: EpisodicClient;
}

/** What a command hands back: text for people, a value for --json (printed as JSON), or nothing (it printed itself). */
export type Output = { text: string; json: unknown } | undefined;

export interface RemoteCommand {
  name: string;
  summary: string;
  help: string;
  options: Options;
  run(inv: Invocation<any>): Promise<Output>;
}

const COMMON: Options = {
  url: { type: 'string' },
  key: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

/** --key, else EPISODIC_API_KEY, else <EPISODIC_DATA_DIR>/admin-key. */
export function resolveApiKey(flag: string | undefined): string {
  if (flag) return flag;
  const env = clientEnv();
  if (env.apiKey) return env.apiKey;
  const file = join(env.dataDir, 'admin-key');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    throw new CliError(`no API key: pass --key, set EPISODIC_API_KEY, or start the server once so it writes ${file}`, EXIT.usage);
  }
}

export function usage(message: string, help: string): CliError {
  return new CliError(`${message}\n\n${help}`, EXIT.usage);
}

/** Result-union errors as CLI failures: NotFoundError exits 4, refused input 2, anything else 1. */
export function failOnErrorResult<T extends { __typename: string }>(result: T): Exclude<T, { __typename: `${string}Error` }> {
  if (!result.__typename.endsWith('Error')) return result as Exclude<T, { __typename: `${string}Error` }>;
  const r = result as unknown as { __typename: string; message?: string; violations?: Array<{ message?: string | null }> };
  const detail = r.violations?.map((v) => v.message).filter(Boolean).join('; ');
  const code = r.__typename === 'NotFoundError' ? EXIT.notFound : r.__typename === 'InputLimitError' ? EXIT.usage : EXIT.runtime;
  throw new CliError(`${r.__typename}: ${detail || r.message || 'refused'}`, code);
}

function toCliError(err: unknown): unknown {
  if (!(err instanceof EpisodicError)) return err;
  if (err.kind === 'verification') return new CliError(`NOT VERIFIED: ${err.message}`, EXIT.verification);
  if (err.kind === 'result') return new CliError(err.message, err.result?.__typename === 'NotFoundError' ? EXIT.notFound : EXIT.runtime);
  if (err.kind === 'input') return new CliError(err.message, EXIT.usage);
  const hint = err.code === 'UNAUTHENTICATED' ? ' (check --key)' : err.code === 'FORBIDDEN' ? ' (the key lacks the scope for this)' : '';
  return new CliError(`${err.message}${hint}`, EXIT.runtime);
}

export function printOutput(output: Output, json: boolean): void {
  if (!output) return;
  if (json) process.stdout.write(`${JSON.stringify(output.json, null, 2)}\n`);
  else if (output.text) process.stdout.write(`${output.text}\n`);
}

/** Runs `episodic <command> ...argv` against the server; prints, or throws a CliError. */
export async function runRemote(command: RemoteCommand, argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, options: { ...COMMON, ...command.options }, allowPositionals: true, strict: true });
  if (values.help) {
    process.stdout.write(`${command.help}\n\n${CONNECTION_HELP}\n\n${EXIT_CODES_HELP}\n`);
    return;
  }
  const json = Boolean(values.json);
  const url = (values.url as string | undefined) ?? clientEnv().url ?? DEFAULT_URL;
  const client = createEpisodicClient({ url, apiKey: resolveApiKey(values.key as string | undefined) });
  try {
    printOutput(await command.run({ values, positionals: positionals.slice(1), json, client }), json);
  } catch (err) {
    throw toCliError(err);
  }
}

export function intOption(value: string | undefined, name: string, help: string, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min) throw usage(`${name} must be an integer >= ${min}, got "${value}"`, help);
  return n;
}

/** Repeatable and comma-separated: --tag a --tag b,c -> [a, b, c]. */
export function listOption(value: string[] | string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const list = (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  return list.length ? list : undefined;
}
