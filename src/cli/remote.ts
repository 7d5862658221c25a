// The CLI commands that talk to a running server through the typed client: option parsing
// shared by all of them (--url, --key, --json, --help), the key lookup, one line per failure and
// the documented exit codes. The client and the configuration are imported when a command runs,
// so `episodic --help` loads neither.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import type { EpisodicClient } from '../client/client.ts';
import { EpisodicError } from '../client/errors.ts';
import { CliError, EXIT, EXIT_CODES_HELP, inputRefused, type Output, parseCommandArgs, writeOutput } from './errors.ts';
import type { CliIo } from './io.ts';

export { EXIT, EXIT_CODES_HELP, type Output };
export const DEFAULT_URL = 'http://localhost:4000/graphql';
export const CONNECTION_HELP = `Connection (every command):
  --url <url>   GraphQL endpoint (default: EPISODIC_URL, else ${DEFAULT_URL})
  --key <key>   API key (default: EPISODIC_API_KEY, else the file .episodic/admin-key)
  --json        machine-readable output
  -h, --help    this help`;

export type Options = NonNullable<ParseArgsConfig['options']>;

export interface Invocation<V = Record<string, string | boolean | Array<string | boolean> | undefined>> {
  values: V;
  positionals: string[];
  json: boolean;
  client: EpisodicClient;
  io: CliIo;
}

export interface RemoteCommand {
  name: string;
  summary: string;
  help: string;
  options: Options;
  run(inv: Invocation): Promise<Output>;
}

/** The values parseArgs gives for these options: a string per string option, string[] when `multiple`, a boolean per flag. */
export type ValuesOf<O extends Options> = {
  [K in keyof O]?: O[K] extends { type: 'boolean' } ? boolean : O[K] extends { multiple: true } ? string[] : string;
};

/** A command whose run reads its values with the types its options declare. */
export function defineCommand<const O extends Options>(command: {
  name: string;
  summary: string;
  help: string;
  options: O;
  run(inv: Invocation<ValuesOf<O>>): Promise<Output>;
}): RemoteCommand {
  // The values were parsed with these very options (plus the common ones), so they have this shape.
  return { ...command, run: (inv) => command.run(inv as Invocation<ValuesOf<O>>) };
}

const COMMON: Options = {
  url: { type: 'string' },
  key: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

/** --key, else EPISODIC_API_KEY, else <EPISODIC_DATA_DIR>/admin-key. */
export async function resolveApiKey(flag: string | undefined, source: NodeJS.ProcessEnv | undefined): Promise<string> {
  if (flag) return flag;
  const env = (await import('../config.ts')).clientEnv(source);
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

/** Error types the server uses for input it refuses (exit 2); NotFoundError exits 4, the rest 1. */
const REFUSED_INPUT = new Set(['InputLimitError']);

/** Result-union errors as CLI failures, with the documented exit codes. */
export function failOnErrorResult<T extends { __typename: string }>(result: T): Exclude<T, { __typename: `${string}Error` }> {
  if (!result.__typename.endsWith('Error')) return result as Exclude<T, { __typename: `${string}Error` }>;
  const r = result as unknown as { __typename: string; message?: string; violations?: Array<{ message?: string | null }> };
  const detail = r.violations
    ?.map((v) => v.message)
    .filter(Boolean)
    .join('; ');
  const code = r.__typename === 'NotFoundError' ? EXIT.notFound : REFUSED_INPUT.has(r.__typename) ? EXIT.usage : EXIT.runtime;
  throw new CliError(`${r.__typename}: ${detail || r.message || 'refused'}`, code);
}

function toCliError(err: unknown): unknown {
  if (!(err instanceof EpisodicError)) return err;
  if (err.kind === 'verification') return new CliError(`NOT VERIFIED: ${err.message}`, EXIT.verification);
  if (err.kind === 'result') return new CliError(err.message, err.result?.__typename === 'NotFoundError' ? EXIT.notFound : EXIT.runtime);
  if (err.kind === 'input') return new CliError(err.message, EXIT.usage);
  // GraphQL validation of variables (a wrong enum value, a missing field) is refused input too.
  if (err.kind === 'graphql' && (err.code === 'BAD_USER_INPUT' || err.code === 'GRAPHQL_VALIDATION_FAILED' || /^Variable "\$/.test(err.message)))
    return inputRefused(err.message);
  const hint =
    err.code === 'UNAUTHENTICATED' ? ' (check --key)' : err.code === 'FORBIDDEN' ? ' (a key with the scope named: episodic keys create --scopes <scope>)' : '';
  return new CliError(`${err.message}${hint}`, EXIT.runtime);
}

/** Runs `episodic <command> ...argv` against the server; prints, or throws a CliError. */
export async function runRemote(command: RemoteCommand, argv: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, { ...COMMON, ...command.options }, command.name);
  if (values.help) {
    io.stdout.write(`${command.help}\n\n${CONNECTION_HELP}\n\n${EXIT_CODES_HELP}\n`);
    return;
  }
  const json = Boolean(values.json);
  const [{ clientEnv }, { createEpisodicClient }] = await Promise.all([import('../config.ts'), import('../client/client.ts')]);
  const url = (values.url as string | undefined) ?? clientEnv(io.env).url ?? DEFAULT_URL;
  const client = createEpisodicClient({ url, apiKey: await resolveApiKey(values.key as string | undefined, io.env) });
  try {
    writeOutput(await command.run({ values, positionals: positionals.slice(1), json, client, io }), json, io.stdout);
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
  const list = (Array.isArray(value) ? value : [value])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  return list.length ? list : undefined;
}
