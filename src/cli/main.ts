// `episodic <command>`: operator commands. Output is human text, or JSON with --json; failures are
// one line on stderr with a documented exit code (errors.ts). This module loads only node's own
// modules and the command table: each command imports what it needs when it runs, so
// `episodic --help` answers at once.

import { REMOTE_COMMANDS, remoteCommandFor, remoteCommandsHelp } from './commands.ts';
import { CliError, EXIT, EXIT_CODES_HELP, escapeControl, type Output, parseCommandArgs, writeOutput } from './errors.ts';
import { CONNECTION_HELP, runRemote } from './remote.ts';

const TENANTS_HELP = `Usage: episodic tenants create <name> | tenants list   [--json]
Creates or lists tenants in the server's database. Tenants are created only here (the API works
within one tenant). While \`npm start\` runs with the embedded PostgreSQL, this joins it; otherwise
it uses DATABASE_URL, or starts the embedded PostgreSQL in EPISODIC_DATA_DIR for the command.
The embedded database's connection string (psql works too):
  postgresql://postgres:$(cat .episodic/pg-password)@127.0.0.1:54329/episodic`;

const KEYS_OPERATOR_HELP = `Usage: episodic keys <create|list|revoke> --tenant <name|id> [options]   (on the database)
  keys create --tenant <t> --scopes read,write[,admin] [--name <label>] [--expires <ISO date | 90d>]
                        create a key for any tenant; the secret is printed once. An expiry in
                        the past is refused.
  keys list --tenant <t>            list keys (never their secrets)
  keys revoke --tenant <t> <key id> revoke a key at once
Without --tenant, \`episodic keys\` works over the API with an admin key (episodic keys --help).
Database: as for \`episodic tenants --help\`.`;

const VERIFY_HELP = `Usage: episodic verify --public-key <hex> <file> [--json]
Checks, with no server, a proof bundle (episodeProofBundle, \`episodic export --episode\`) or a
ledger export (\`episodic export\`) against a key you trust (docs/LEDGER.md §5.2): a bundle's own
key is never trusted, so nothing is called verified without --public-key.
Exit 0 verified, 3 not verified, 2 unreadable input.`;

const LOCAL_COMMANDS: Record<string, { summary: string; help: string }> = {
  tenants: { summary: 'create and list tenants (on the database)', help: TENANTS_HELP },
  verify: { summary: 'check a proof bundle or a ledger export offline, against a key you trust', help: VERIFY_HELP },
};

const HELP = `Usage: episodic <command> [options]       (episodic <command> --help for each command)

Commands that talk to a running server (GraphQL API):
${remoteCommandsHelp()}

${CONNECTION_HELP}

On the server's database (while \`npm start\` runs, or with DATABASE_URL):
  tenants     ${LOCAL_COMMANDS.tenants?.summary}
  keys --tenant <name|id> ...  keys of any tenant (episodic keys --tenant x --help)

Offline (no server, no database):
  verify      ${LOCAL_COMMANDS.verify?.summary}

${EXIT_CODES_HELP}`;

const OPERATOR_OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  tenant: { type: 'string' },
  scopes: { type: 'string' },
  name: { type: 'string' },
  expires: { type: 'string' },
  'public-key': { type: 'string' },
} as const;

const ALL_COMMANDS = () => [...Object.keys(REMOTE_COMMANDS), ...Object.keys(LOCAL_COMMANDS)];

/** Edit distance, to suggest the command a typo meant. */
function distance(a: string, b: string): number {
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

function unknownCommand(name: string): CliError {
  const close = ALL_COMMANDS().filter((c) => distance(name, c) <= 2 || c.startsWith(name));
  const hint = close.length ? ` (did you mean ${close.join(' or ')}?)` : '';
  return new CliError(`unknown command "${name}"${hint}; commands: ${ALL_COMMANDS().join(', ')} (episodic --help)`, EXIT.usage);
}

async function runLocal(group: string, argv: string[]): Promise<Output | string> {
  const { values, positionals } = parseCommandArgs(argv, OPERATOR_OPTIONS, group);
  const [, action, arg] = positionals;
  if (group === 'verify') {
    if (values.help) return VERIFY_HELP;
    if (!action) throw new CliError(`missing the file to verify\n\n${VERIFY_HELP}`, EXIT.usage);
    const { verifyCommand } = await import('./verify-command.ts');
    return verifyCommand(action, values['public-key']);
  }
  const help = group === 'tenants' ? TENANTS_HELP : KEYS_OPERATOR_HELP;
  if (values.help || !action) return help;
  const { runOperator } = await import('./operator.ts');
  return runOperator(group as 'tenants' | 'keys', { action, arg, values, help });
}

async function run(argv: string[]): Promise<Output | string | undefined> {
  const remote = remoteCommandFor(argv);
  if (remote) {
    await runRemote(remote, argv);
    return undefined;
  }
  const group = argv.find((a) => !a.startsWith('-'));
  if (!group) {
    parseCommandArgs(argv, { help: { type: 'boolean', short: 'h' }, json: { type: 'boolean' } }, '');
    return HELP;
  }
  if (group === 'help') return HELP;
  if (group === 'tenants' || group === 'keys' || group === 'verify') return runLocal(group, argv);
  throw unknownCommand(group);
}

const argv = process.argv.slice(2);
const json = argv.includes('--json');
run(argv)
  .then((result) => (typeof result === 'string' ? process.stdout.write(`${result}\n`) : writeOutput(result, json)))
  .catch(async (err: unknown) => {
    const { ConfigError } = await import('../config.ts');
    const code = err instanceof CliError ? err.exitCode : EXIT.runtime;
    const message = err instanceof ConfigError ? `invalid configuration: ${err.problems.join('; ')}` : err instanceof Error ? err.message : String(err);
    const details = (err as { details?: unknown }).details;
    if (json && details) process.stdout.write(`${JSON.stringify(details, null, 2)}\n`);
    process.stderr.write(`episodic: ${escapeControl(message)}\n`);
    process.exit(code);
  });
