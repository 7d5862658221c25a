// The operator commands (tenants, keys --tenant) on the server's database: DATABASE_URL, or the
// embedded PostgreSQL in EPISODIC_DATA_DIR (joined while its server runs, started otherwise).
// Loaded only by these commands: it pulls in the whole server runtime.
import { loadConfig } from '../config.ts';
import { runningEmbeddedUrl } from '../db/embedded.ts';
import { createLogger } from '../log.ts';
import { openRuntime } from '../runtime.ts';
import { keyCreate, keyList, keyRevoke, tenantCreate, tenantList } from './admin.ts';
import { CliError, EXIT, type Output } from './errors.ts';
import { parseExpiry } from './expiry.ts';

export interface OperatorArgs {
  action: string | undefined;
  arg: string | undefined;
  values: { tenant?: string; scopes?: string; name?: string; expires?: string };
  help: string;
}

function need<T>(value: T | undefined, what: string, help: string): T {
  if (value === undefined || value === '') throw new CliError(`missing ${what}\n\n${help}`, EXIT.usage);
  return value;
}

const table = (rows: Array<Record<string, unknown>>, empty: string) =>
  rows.length
    ? rows
        .map((r) =>
          Object.values(r)
            .map((v) => (Array.isArray(v) ? v.join(',') : String(v ?? '-')))
            .join('  '),
        )
        .join('\n')
    : empty;

export async function runOperator(group: 'tenants' | 'keys', { action, arg, values, help }: OperatorArgs, env: NodeJS.ProcessEnv | undefined): Promise<Output> {
  const config = loadConfig(env);
  const shared = config.databaseUrl ? undefined : runningEmbeddedUrl(config.dataDir, config.embeddedPgPort, 'episodic');
  const runtime = await openRuntime(
    { ...config, databaseUrl: config.databaseUrl ?? shared, learning: { ...config.learning, workers: 0 } },
    createLogger('warn'),
  );
  try {
    const s = runtime.services;
    switch (`${group} ${action ?? ''}`.trim()) {
      case 'tenants create': {
        const t = await tenantCreate(s, need(arg, 'tenant name', help));
        return { text: `created tenant ${t.name} (${t.id})`, json: t };
      }
      case 'tenants list': {
        const rows = await tenantList(s);
        return { text: table(rows, 'no tenants'), json: rows };
      }
      case 'keys create': {
        const expiresAt = values.expires === undefined ? undefined : parseExpiry(values.expires, new Date()).toISOString();
        const k = await keyCreate(s, {
          tenant: need(values.tenant, '--tenant', help),
          scopes: need(values.scopes, '--scopes', help),
          name: values.name ?? 'cli',
          expiresAt,
        });
        return { text: `created key ${k.id} (${k.scopes.join(',')}) for ${k.tenant}; its secret, shown once:\n${k.token}`, json: k };
      }
      case 'keys list': {
        const rows = await keyList(s, need(values.tenant, '--tenant', help));
        return { text: table(rows, 'no keys'), json: rows };
      }
      case 'keys revoke': {
        const k = await keyRevoke(s, need(values.tenant, '--tenant', help), need(arg, 'key id', help));
        return { text: `revoked ${k.id} at ${k.revokedAt}`, json: k };
      }
      default:
        throw new CliError(`unknown ${group} command "${action ?? ''}"\n\n${help}`, EXIT.usage);
    }
  } finally {
    await runtime.close();
  }
}
