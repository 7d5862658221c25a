// Shared by the benchmarks: one PostgreSQL (embedded, or BENCH_DATABASE_URL), a fresh database per
// run, real servers on free ports, and latency percentiles.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { createApiKey, createTenant } from '../src/auth/store.ts';
import { loadConfig } from '../src/config.ts';
import { must } from '../src/core/must.ts';
import { createDatabase, type Database } from '../src/db/client.ts';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createLogger } from '../src/log.ts';
import { createApp } from '../src/server.ts';
import { createServices, stopServices } from '../src/services.ts';
import type { StepBatchOutcome, StepBatchRequest } from '../src/steps/apply.ts';
import type { Json } from '../test/support/json.ts';
import { freePort } from '../test/support/ports.ts';
import { createNaiveIngest } from './naive-ingest.ts';

/** Benchmarks use this server instead of starting an embedded one when it is set. */
export function benchDatabaseUrl(source: NodeJS.ProcessEnv = process.env): string | undefined {
  return source.BENCH_DATABASE_URL || undefined;
}

export interface BenchDatabase {
  url: string;
  db: Database;
  close(): Promise<void>;
}

/**
 * A fresh database on the bench server; `name` to use a fixed one (dropped first if a crashed run
 * left it). reuse: an existing database of that name is kept as it is (`reused` says so); keep: close()
 * leaves the database for a later run to reuse.
 */
export async function openBenchDatabase(options: { name?: string; reuse?: boolean; keep?: boolean } = {}): Promise<BenchDatabase & { reused: boolean }> {
  let serverUrl = benchDatabaseUrl();
  let stopEmbedded: (() => Promise<void>) | undefined;
  let dataDir: string | undefined;
  if (!serverUrl) {
    dataDir = await mkdtemp(join(tmpdir(), 'episodic-bench-'));
    const embedded = await startEmbeddedPostgres({ dataDir, port: await freePort(), database: 'postgres' });
    serverUrl = embedded.url;
    stopEmbedded = embedded.stop;
  }
  const name = options.name ?? `bench_${randomBytes(4).toString('hex')}`;
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  const reused = Boolean(options.reuse && options.name && exists);
  if (!reused) {
    if (options.name) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  }
  await admin.end();
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  const db = createDatabase(u.toString(), 20);
  await migrate(db.pool);
  return {
    url: u.toString(),
    db,
    reused,
    async close() {
      await db.close();
      if (!options.keep) {
        const a = new pg.Client({ connectionString: serverUrl });
        await a.connect();
        await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await a.end();
      }
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

/**
 * How the server commits steps: `group` the real group-commit ingestor; `naive` the ORM baseline
 * (bench/naive-ingest.ts); `none` answers every call as accepted at once and writes nothing, which
 * measures what the HTTP, GraphQL and resolver path costs before any database work (the floor).
 */
export type IngestMode = 'group' | 'naive' | 'none';

/** The per-key rate limit is off: throughput benchmarks measure the server, not the limiter (bench:admission measures admission). */
export async function startBenchServer(
  databaseUrl: string,
  env: Record<string, string> = {},
  ingest: IngestMode = 'group',
  /** An existing tenant to serve (a reused database's); default a new one. */
  tenantId?: string,
): Promise<BenchServer> {
  const config = loadConfig({
    NODE_ENV: 'production',
    PORT: String(await freePort()),
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    DB_POOL_MAX: '20',
    RATE_LIMIT_PER_MINUTE: '0',
    LEDGER_SIGNING_KEY: randomBytes(32).toString('hex'),
    ...env,
  });
  const db = createDatabase(databaseUrl, config.dbPoolMax);
  const services = await createServices(config, db, createLogger(config.logLevel));
  // The other modes replace the group-commit ingestor's submit and drain only (same API, same checks
  // before it): the rest (admission checks, metrics hooks) stays the real ingestor's.
  if (ingest !== 'group') {
    const replacement = ingest === 'naive' ? createNaiveIngest(db) : answerWithoutWriting();
    (services as { ingest: unknown }).ingest = Object.assign(Object.create(services.ingest), replacement);
  }
  const app = createApp(services);
  await app.start();
  const tenant = tenantId ? { id: tenantId } : await createTenant(db.prisma, `bench-${randomBytes(4).toString('hex')}`);
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

/** The floor's ingestor: every step accepted at once, nothing written. */
function answerWithoutWriting() {
  return {
    async drain() {},
    async submit(_tenantId: string, request: StepBatchRequest): Promise<StepBatchOutcome> {
      const items = request.steps.map((_, i) => ({ status: 'accepted' as const, stepId: request.episodeId, stepNumber: i + 1 }));
      return { ok: true, episodeId: request.episodeId, items, exhausted: null };
    },
  };
}

export async function gql(server: BenchServer, query: string, variables: Record<string, unknown>): Promise<Json> {
  const res = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as Json;
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return must(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);
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
    worker.once('message', (m: { error?: string; seconds: number; latencies: number[] }) => {
      void worker.terminate();
      if (m.error) reject(new Error(m.error));
      else resolve({ seconds: m.seconds, ...summarize(m.latencies) });
    });
    worker.once('error', reject);
  });
}

/** The fields of /proc/<pid>/stat after the command (state is the first, ppid the second); null once it exited. */
function procStat(pid: string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * The postmaster of the server at `databaseUrl` (the parent of one of its backends), null where
 * /proc cannot tell. On a shared machine every helper runs its own PostgreSQL: counting every
 * process named postgres counted theirs too (F, which writes nothing, showed 43 us per step).
 */
async function postmasterPid(databaseUrl: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return procStat(String(must(rows[0]).pid))?.[1] ?? null;
  } finally {
    await client.end();
  }
}

/** CPU seconds of one PostgreSQL server: its postmaster and its children, exited backends included. */
function postgresCpuSeconds(postmaster: string): number | null {
  let ticks = 0;
  try {
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      const f = procStat(pid);
      if (!f || (pid !== postmaster && f[1] !== postmaster)) continue;
      // utime, stime, cutime, cstime (fields 14-17); the postmaster's cutime/cstime hold the backends that exited.
      ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    }
  } catch {
    return null;
  }
  return ticks / 100; // USER_HZ is 100 on Linux
}

export interface CpuUse {
  /** This process (server, load-client thread and all): CPU microseconds per unit of work. */
  nodeUs: number;
  /** The bench's PostgreSQL server (its postmaster and backends), CPU microseconds per unit; null when it is not local. */
  postgresUs: number | null;
  /** Cores busy on average over the run (both together). */
  cores: number | null;
}

/** Runs `work` and reports the CPU it cost per unit (`units` steps, say), in this process and in PostgreSQL. */
export async function measureCpu<T>(databaseUrl: string, units: number, work: () => Promise<T>): Promise<T & { cpu: CpuUse }> {
  const local = ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(databaseUrl).hostname);
  const postmaster = local ? await postmasterPid(databaseUrl) : null;
  const node0 = process.cpuUsage();
  const pg0 = postmaster === null ? null : postgresCpuSeconds(postmaster);
  const started = performance.now();
  const result = await work();
  const seconds = (performance.now() - started) / 1000;
  const node = process.cpuUsage(node0);
  const pg1 = pg0 === null || postmaster === null ? null : postgresCpuSeconds(postmaster);
  const nodeSeconds = (node.user + node.system) / 1e6;
  const pgSeconds = pg0 === null || pg1 === null ? null : pg1 - pg0;
  return {
    ...result,
    cpu: {
      nodeUs: (nodeSeconds * 1e6) / units,
      postgresUs: pgSeconds === null ? null : (pgSeconds * 1e6) / units,
      cores: pgSeconds === null ? null : (nodeSeconds + pgSeconds) / seconds,
    },
  };
}
