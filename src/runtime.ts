// Opens the database the configuration asks for (embedded by default), migrates it, and builds the
// services. Shared by the server, the CLI and the tests.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { createDatabase, type Database, describeConnectionError } from './db/client.ts';
import { startEmbeddedPostgres } from './db/embedded.ts';
import { migrate } from './db/migrate.ts';
import { FanOutUnavailableError } from './ledger/fanout/bus.ts';
import { startRunClosers } from './otlp/runs.ts';
import type { Services } from './services.ts';
import { createServices, stopServices } from './services.ts';

/** A start-up failure with a message meant for the operator, printed as one line. */
export class StartupError extends Error {
  override name = 'StartupError';
}

export interface Runtime {
  services: Services;
  close(): Promise<void>;
}

async function connect(url: string, poolMax: number): Promise<Database> {
  const db = createDatabase(url, poolMax);
  try {
    await db.pool.query('SELECT 1');
    return db;
  } catch (err) {
    await db.close().catch(() => undefined);
    throw new StartupError(describeConnectionError(err, url));
  }
}

/** The services with the doors' background jobs running (every server process, and the tests' servers). */
export async function startServices(config: Config, db: Database, log: Logger): Promise<Services> {
  const services = await createServices(config, db, log);
  // The OTLP door's job (runs without an agent root end after their idle gap), wired above the services it uses.
  await startRunClosers(services.jobs, db.pool, services.writer, log, config.jobPollSeconds, config.otlpRuns.idleMs).catch(async (err) => {
    await stopServices(services);
    throw err;
  });
  return services;
}

export async function openRuntime(config: Config, log: Logger): Promise<Runtime> {
  let stopEmbedded: (() => Promise<void>) | undefined;
  let url = config.databaseUrl;
  if (!url) {
    const embedded = await startEmbeddedPostgres({
      dataDir: config.dataDir,
      port: config.embeddedPgPort,
      database: 'episodic',
      log: (line) => log.info(line),
    }).catch((err: Error) => {
      throw new StartupError(err.message);
    });
    log.info({ dataDir: config.dataDir, port: config.embeddedPgPort }, 'embedded PostgreSQL started');
    url = embedded.url;
    stopEmbedded = embedded.stop;
  }
  const db = await connect(url, config.dbPoolMax).catch(async (err) => {
    await stopEmbedded?.();
    throw err;
  });
  const applied = await migrate(db.pool);
  if (applied.length) log.info({ applied }, 'migrations applied');
  const services = await startServices(config, db, log).catch((err) => {
    throw err instanceof FanOutUnavailableError ? new StartupError(err.message) : err;
  });
  return {
    services,
    async close() {
      await stopServices(services);
      await db.close();
      await stopEmbedded?.();
    },
  };
}
