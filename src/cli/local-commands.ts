// The commands that need no server: tenants and keys --tenant on the database (operator.ts, loaded
// only when they run), and verify, offline.
import { CliError, EXIT, type Output, parseCommandArgs } from './errors.ts';

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

const VERIFY_HELP = `Usage: episodic verify --public-key <hex> <file> [--state <state.json>] [--json]
Checks, with no server, a proof bundle (episodeProofBundle, \`episodic export --episode\`) or a
ledger export (\`episodic export\`) against a key you trust (docs/LEDGER.md §5.2): a bundle's own
key is never trusted, so nothing is called verified without --public-key.
  --state <file>   incremental checks of exports (§7.3.1): the file keeps the newest verified
                   checkpoint (tree size, root, head hash). When it does not exist, the export
                   must start at seq 1 and is checked whole; afterwards check only what is new
                   with an export made by \`episodic export --after <its treeSize>\`. Written
                   after each successful check.
Exit 0 verified, 3 not verified, 2 unreadable input.`;

export const LOCAL_COMMANDS: Record<string, { summary: string; help: string }> = {
  tenants: { summary: 'create and list tenants (on the database)', help: TENANTS_HELP },
  verify: { summary: 'check a proof bundle or a ledger export offline, against a key you trust', help: VERIFY_HELP },
};

const OPERATOR_OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  tenant: { type: 'string' },
  scopes: { type: 'string' },
  name: { type: 'string' },
  expires: { type: 'string' },
  'public-key': { type: 'string' },
  state: { type: 'string' },
} as const;

export const isLocalCommand = (group: string): group is 'tenants' | 'keys' | 'verify' => group === 'tenants' || group === 'keys' || group === 'verify';

/** Runs tenants, keys --tenant or verify; env is where the operator commands find the database. */
export async function runLocal(group: 'tenants' | 'keys' | 'verify', argv: string[], env: NodeJS.ProcessEnv | undefined): Promise<Output | string> {
  const { values, positionals } = parseCommandArgs(argv, OPERATOR_OPTIONS, group);
  const [, action, arg] = positionals;
  if (group === 'verify') {
    if (values.help) return VERIFY_HELP;
    if (!action) throw new CliError(`missing the file to verify\n\n${VERIFY_HELP}`, EXIT.usage);
    const { verifyCommand } = await import('./verify-command.ts');
    return verifyCommand(action, values['public-key'], values.state);
  }
  const help = group === 'tenants' ? TENANTS_HELP : KEYS_OPERATOR_HELP;
  if (values.help || !action) return help;
  const { runOperator } = await import('./operator.ts');
  return runOperator(group, { action, arg, values, help }, env);
}
