// `episodic <command>` as a function: runCli(argv, io) runs one command against the given streams
// and environment and resolves to its exit code; it never exits the process nor touches
// process.stdout, so tests run it in-process. Output is human text, or JSON with --json; failures
// are one line on stderr with a documented exit code (errors.ts). This module loads only node's
// own modules and the command table: each command imports what it needs when it runs, so
// `episodic --help` answers at once.
import { readFileSync } from 'node:fs';
import { REMOTE_COMMANDS, remoteCommandFor, remoteCommandsHelp } from './commands.ts';
import { CliError, distance, EXIT, EXIT_CODES_HELP, escapeControl, type Output, parseCommandArgs, writeOutput } from './errors.ts';
import type { CliIo } from './io.ts';
import { isLocalCommand, LOCAL_COMMANDS, runLocal } from './local-commands.ts';
import { MCP_SUMMARY, runMcp } from './mcp.ts';
import { CONNECTION_HELP, runRemote } from './remote.ts';

export type { CliIo } from './io.ts';

const HELP = `Usage: episodic <command> [options]       (episodic <command> --help for each command)

Commands that talk to a running server (GraphQL API):
${remoteCommandsHelp()}
  mcp         ${MCP_SUMMARY}

${CONNECTION_HELP}

The server:
  serve       start the server here (as \`npm start\` does in a checkout; episodic serve --help)

On the server's database (while \`npm start\` runs, or with DATABASE_URL):
  tenants     ${LOCAL_COMMANDS.tenants?.summary}
  keys --tenant <name|id> ...  keys of any tenant (episodic keys --tenant x --help)

Offline (no server, no database):
  verify      ${LOCAL_COMMANDS.verify?.summary}

  --version   the version of episodic

${EXIT_CODES_HELP}`;

const SERVE_HELP = `Usage: episodic serve
Starts the server in this folder, as \`npm start\` does in a checkout: with no DATABASE_URL an
embedded PostgreSQL with its data, the admin key and the signing key in ./.episodic
(EPISODIC_DATA_DIR), the API at http://localhost:4000/graphql (PORT, HOST) and the monitor at /.
Every setting is an environment variable (docs/CONFIGURATION.md). Ctrl-C or SIGTERM stops it.`;

const ALL_COMMANDS = () => [...Object.keys(REMOTE_COMMANDS), 'mcp', 'serve', ...Object.keys(LOCAL_COMMANDS)];

function unknownCommand(name: string): CliError {
  const close = ALL_COMMANDS().filter((c) => distance(name, c) <= 2 || c.startsWith(name));
  const hint = close.length ? ` (did you mean ${close.join(' or ')}?)` : '';
  return new CliError(`unknown command "${name}"${hint}; commands: ${ALL_COMMANDS().join(', ')} (episodic --help)`, EXIT.usage);
}

/** The package's version, from package.json beside the sources (or the compiled dist/). */
function version(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

async function dispatch(argv: string[], io: CliIo): Promise<Output | string | undefined> {
  const remote = remoteCommandFor(argv);
  if (remote) {
    await runRemote(remote, argv, io);
    return undefined;
  }
  const group = argv.find((a) => !a.startsWith('-'));
  if (!group) {
    const { values } = parseCommandArgs(
      argv,
      { help: { type: 'boolean', short: 'h' }, json: { type: 'boolean' }, version: { type: 'boolean', short: 'V' } },
      '',
    );
    return values.version ? `episodic ${version()}` : HELP;
  }
  if (group === 'help') return HELP;
  // bin/episodic.mjs runs `episodic serve` as the compiled server; only its --help comes here.
  if (group === 'serve') return SERVE_HELP;
  if (group === 'mcp') {
    await runMcp(argv, io);
    return undefined;
  }
  if (isLocalCommand(group)) return runLocal(group, argv, io.env);
  throw unknownCommand(group);
}

/** Runs `episodic ...argv`; resolves to the exit code (EXIT) once the command's output is written. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const json = argv.includes('--json');
  try {
    const result = await dispatch(argv, io);
    if (typeof result === 'string') io.stdout.write(`${result}\n`);
    else writeOutput(result, json, io.stdout);
    return EXIT.ok;
  } catch (err) {
    const { ConfigError } = await import('../config.ts');
    const message = err instanceof ConfigError ? `invalid configuration: ${err.problems.join('; ')}` : err instanceof Error ? err.message : String(err);
    const details = (err as { details?: unknown }).details;
    if (json && details) io.stdout.write(`${JSON.stringify(details, null, 2)}\n`);
    io.stderr.write(`episodic: ${escapeControl(message)}\n`);
    return err instanceof CliError ? err.exitCode : EXIT.runtime;
  }
}
