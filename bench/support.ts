// Shared by the benchmarks: one PostgreSQL (embedded, or BENCH_DATABASE_URL), a fresh database per
// run, real servers on free ports, and latency percentiles.
import { randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createApiKey, createTenant } from '../src/auth/store.ts';
import { benchDatabaseUrl, loadConfig } from '../src/config.ts';
import { createDatabase, type Database } from '../src/db/client.ts';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createLogger } from '../src/log.ts';
import { createApp } from '../src/server.ts';
import { createServices, stopServices } from '../src/services.ts';
import { freePort } from '../test/support/ports.ts';
import { createNaiveIngest } from './naive-ingest.ts';

export interface BenchDatabase {
  url: string;
  db: Database;
  close(): Promise<void>;
}

export async function openBenchDatabase(): Promise<BenchDatabase> {
  let serverUrl = benchDatabaseUrl();
  let stopEmbedded: (() => Promise<void>) | undefined;
  let dataDir: string | undefined;
  if (!serverUrl) {
    dataDir = await mkdtemp(join(tmpdir(), 'episodic-bench-'));
    const embedded = await startEmbeddedPostgres({ dataDir, port: await freePort(), database: 'postgres' });
    serverUrl = embedded.url;
    stopEmbedded = embedded.stop;
  }
  const name = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  const db = createDatabase(u.toString(), 20);
  await migrate(db.pool);
  return {
    url: u.toString(),
    db,
    async close() {
      await db.close();
      const a = new pg.Client({ connectionString: serverUrl });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
      await stopEmbedded?.();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface BenchServer {
  url: string;
  token: string;
  tenantId: string;
  stop(): Promise<void>;
}

export async function startBenchServer(databaseUrl: string, env: Record<string, string> = {}, naive = false): Promise<BenchServer> {
  const config = loadConfig({ NODE_ENV: 'production', PORT: String(await freePort()), DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', DB_POOL_MAX: '20', LEDGER_SIGNING_KEY: randomBytes(32).toString('hex'), ...env });
  const db = createDatabase(databaseUrl, config.dbPoolMax);
  const services = await createServices(config, db, createLogger(config.logLevel));
  // The naive ORM baseline replaces the group-commit ingestor (same API, same checks before it).
  // Only submit and drain change: the rest (admission checks, metrics hooks) stays the real ingestor's.
  if (naive) (services as { ingest: unknown }).ingest = Object.assign(Object.create(services.ingest), createNaiveIngest(db));
  const app = createApp(services);
  await app.start();
  const tenant = await createTenant(db.prisma, `bench-${randomBytes(4).toString('hex')}`);
  const key = await createApiKey(db.prisma, { tenantId: tenant.id, name: 'bench', scopes: ['write'] });
  return {
    url: app.url(),
    token: key.token,
    tenantId: tenant.id,
    async stop() {
      await app.stop();
      await stopServices(services);
      await db.close();
    },
  };
}

export async function gql(server: BenchServer, query: string, variables: Record<string, unknown>): Promise<any> {
  const res = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as any;
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function summarize(latencies: number[]) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Sends the calls from a worker thread; returns wall seconds and per-call latencies (ms). */
export interface LoadJob {
  url: string;
  token: string;
  query: string;
  /** One list of variable sets per client, sent in order. */
  clients: Array<Array<Record<string, unknown>>>;
  /** Path into data whose value every answer must have. */
  check: { path: string[]; equals: unknown };
}

export function runLoad(job: LoadJob): Promise<{ seconds: number; p50: number; p99: number }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./load-worker.mjs', import.meta.url), { workerData: job });
    worker.once('message', (m: any) => {
      void worker.terminate();
      if (m.error) reject(new Error(m.error));
      else resolve({ seconds: m.seconds, ...summarize(m.latencies) });
    });
    worker.once('error', reject);
  });
}
