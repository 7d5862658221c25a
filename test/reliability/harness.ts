// The fault harness's moving parts, shared by the quick tests (test/reliability/*.test.ts) and the
// soak (bench/soak.ts): real server processes (`node dist/server/main.js`, test/support/process.ts), a dedicated
// PostgreSQL or Redis that a scenario may stop and start, polling with a deadline, and memory
// sampling from /proc. Nothing here imports vitest, so the soak runs it as a plain script.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import pg from 'pg';
import WebSocket from 'ws';
import { createEpisodicClient, type EpisodicClient } from '../../src/client/index.ts';
import { must } from '../../src/core/must.ts';
import { type EmbeddedServer, startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { freePort } from '../support/ports.ts';
import { type ServerProcess, startServerProcess } from '../support/process.ts';

export const SERVING = /Episodic serving GraphQL on http:\/\/localhost:(\d+)\/graphql/;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until the condition holds; fails with what it waited for and, if given, the last state seen. */
export async function waitUntil(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000, state?: () => unknown): Promise<number> {
  const started = Date.now();
  for (let delay = 10; ; delay = Math.min(delay * 2, 200)) {
    if (await condition()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${state ? `; last seen: ${JSON.stringify(state())}` : ''}`);
    }
    await sleep(delay);
  }
}

/** Runs `fn` with a deadline, so a hang fails the scenario with its name instead of the test timeout. */
export async function within<T>(ms: number, what: string, fn: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms)));
  try {
    return await Promise.race([fn, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function tempDir(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

// ---------------------------------------------------------------------------------------------
// Databases

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

export function withDatabase(serverUrl: string, name: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** An empty database (the server migrates it) on any PostgreSQL we may create databases on. */
export async function createScratchDatabase(serverUrl: string): Promise<ScratchDatabase> {
  const name = `rel_${randomBytes(6).toString('hex')}`;
  await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
  return { url: withDatabase(serverUrl, name), drop: () => adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * A PostgreSQL of a scenario's own (embedded, temp folder, free loopback port) that it may stop
 * and start: never the shared test server.
 */
export interface DedicatedPostgres {
  /** URL of the `episodic` database on it. */
  url: string;
  port: number;
  running: boolean;
  /**
   * fast: SIGINT, PostgreSQL ends sessions and checkpoints; immediate: SIGQUIT, as after a
   * crash (no checkpoint, WAL replay on the next start).
   */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startDedicatedPostgres(): Promise<DedicatedPostgres> {
  const dir = await tempDir('episodic-rel-pg-');
  const port = await freePort();
  const open = () => startEmbeddedPostgres({ dataDir: dir.path, port, database: 'episodic' });
  let server: EmbeddedServer | null = await open();
  const url = server.url;
  const self: DedicatedPostgres = {
    url,
    port,
    running: true,
    async stop(mode = 'fast') {
      if (!server) return;
      const s = server;
      server = null;
      self.running = false;
      if (mode === 'immediate') {
        // The postmaster's pid is the first line of postmaster.pid; SIGQUIT is PostgreSQL's
        // immediate shutdown. stop() is called in the same turn, so it sees the exit.
        const pid = Number(readFileSync(join(dir.path, 'pgdata', 'postmaster.pid'), 'utf8').split('\n')[0]);
        process.kill(pid, 'SIGQUIT');
      }
      await within(30_000, 'PostgreSQL shutdown', s.stop());
    },
    async start() {
      if (server) return;
      server = await open();
      self.running = true;
    },
    async close() {
      await self.stop('fast').catch(() => undefined);
      await dir.remove();
    },
  };
  return self;
}

// ---------------------------------------------------------------------------------------------
// Redis

export function redisAvailable(): boolean {
  return ['/usr/bin/redis-server', '/usr/local/bin/redis-server', '/opt/homebrew/bin/redis-server'].some((p) => existsSync(p)) || whichSync('redis-server');
}

function whichSync(bin: string): boolean {
  return (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(join(dir, bin)));
}

/** A redis-server of a scenario's own: loopback, free port, no persistence. */
export interface DedicatedRedis {
  url: string;
  running: boolean;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startDedicatedRedis(): Promise<DedicatedRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const open = async () => {
    const c = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    must(c.stdout).on('data', (d) => (out += d));
    must(c.stderr).on('data', (d) => (out += d));
    await waitUntil(() => /Ready to accept connections/.test(out) || c.exitCode !== null, `redis-server on port ${port}`, 10_000);
    if (c.exitCode !== null) throw new Error(`redis-server exited: ${out.slice(-500)}`);
    child = c;
  };
  await open();
  const self: DedicatedRedis = {
    url: `redis://127.0.0.1:${port}`,
    running: true,
    async stop() {
      const c = child;
      if (!c) return;
      child = null;
      self.running = false;
      const exited = new Promise((resolve) => c.once('exit', resolve));
      c.kill('SIGKILL');
      await within(10_000, 'redis-server exit', exited);
    },
    async start() {
      if (child) return;
      await open();
      self.running = true;
    },
    close: () => self.stop(),
  };
  return self;
}

// ---------------------------------------------------------------------------------------------
// Server processes

export interface EpisodicServer {
  proc: ServerProcess;
  pid: number;
  port: number;
  /** http://127.0.0.1:port */
  base: string;
  graphqlUrl: string;
  /** The bootstrap admin key (from the data folder). */
  apiKey: string;
  client: EpisodicClient;
  readyz(): Promise<{ status: number; body: Record<string, unknown> }>;
  /** One unlabelled value from /metrics (read with the admin key). */
  metric(name: string): Promise<number>;
  /** SIGTERM (graceful) by default; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface ServerOptions {
  databaseUrl: string;
  /** Holds the admin key and the ledger signing key; reuse it to restart "the same" server. */
  dataDir: string;
  env?: Record<string, string>;
  /** Keep the port of a previous run (restart); default a free one. */
  port?: number;
  startTimeoutMs?: number;
  clientTimeoutMs?: number;
}

export async function startServer(o: ServerOptions): Promise<EpisodicServer> {
  // PORT=0 unless restarting: the server binds a port the system picks and prints it. A port picked
  // here and freed before the child binds it can be taken meanwhile (EADDRINUSE in a CI run).
  const proc = startServerProcess({
    DATABASE_URL: o.databaseUrl,
    PORT: String(o.port ?? 0),
    HOST: '127.0.0.1',
    EPISODIC_DATA_DIR: o.dataDir,
    NODE_ENV: 'production',
    ...o.env,
  });
  try {
    await proc.waitFor(SERVING, o.startTimeoutMs ?? 60_000);
  } catch (err) {
    await proc.stop('SIGKILL');
    throw err;
  }
  const port = Number(must(SERVING.exec(proc.output()), 'the serving line')[1]);
  const apiKey = (await readFile(join(o.dataDir, 'admin-key'), 'utf8')).trim();
  const base = `http://127.0.0.1:${port}`;
  const graphqlUrl = `${base}/graphql`;
  return {
    proc,
    pid: must(proc.child.pid),
    port,
    base,
    graphqlUrl,
    apiKey,
    client: createEpisodicClient({ url: graphqlUrl, apiKey, timeoutMs: o.clientTimeoutMs ?? 20_000 }),
    async readyz() {
      const res = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(10_000) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    async metric(name) {
      const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${apiKey}` }, signal: AbortSignal.timeout(10_000) });
      const line = (await res.text()).split('\n').find((l) => l.startsWith(`${name} `));
      if (!line) throw new Error(`/metrics (${res.status}) has no ${name}`);
      return Number(line.slice(name.length + 1));
    },
    stop: (signal = 'SIGTERM') => within(30_000, `server on port ${port} to exit after ${signal}`, proc.stop(signal)),
  };
}

/** /readyz without throwing: status 0 when nothing answers (with the exit and stderr if the process died). */
export async function readiness(server: EpisodicServer): Promise<{ status: number; body: Record<string, unknown> }> {
  return server.readyz().catch((err: Error) => ({ status: 0, body: { error: err.message, ...deathOf(server) } }));
}

/** How a server process ended, if it did: for failure messages. */
export function deathOf(server: EpisodicServer): { exitCode: number | null; signal: string | null; stderr: string } | Record<string, never> {
  const { child } = server.proc;
  if (child.exitCode === null && child.signalCode === null) return {};
  return { exitCode: child.exitCode, signal: child.signalCode, stderr: server.proc.stderr().slice(-1500) };
}

// ---------------------------------------------------------------------------------------------
// Memory

/** Resident set size of a process in bytes (Linux /proc), or null when it is gone. */
export function rssOf(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

export interface RssSampler {
  readonly peak: number;
  readonly samples: number[];
  stop(): { peak: number; samples: number[]; first: number; last: number };
}

export function sampleRss(pid: number, everyMs = 100): RssSampler {
  const samples: number[] = [];
  let peak = 0;
  const take = () => {
    const rss = rssOf(pid);
    if (rss === null) return;
    samples.push(rss);
    peak = Math.max(peak, rss);
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    get peak() {
      return peak;
    },
    samples,
    stop() {
      clearInterval(timer);
      take();
      return { peak, samples, first: samples[0] ?? 0, last: samples[samples.length - 1] ?? 0 };
    },
  };
}

export const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

// ---------------------------------------------------------------------------------------------
// Subscribers

export interface LedgerWatchers {
  /** Through src/client subscribeLedger: resumes from its last seq, verifies the chain, delivers once. */
  verified: { events: Array<{ seq: number; hash: string }>; errors: string[]; reconnects: number; lastSeq(): number };
  /** A bare graphql-ws subscription: what the server sent, duplicates included (no client-side dedupe). */
  raw: { events: Array<{ seq: number; hash: string }>; errors: string[]; ended: boolean };
  close(): Promise<void>;
}

const RAW_LEDGER = 'subscription($afterSeq: BigInt) { ledgerEvents(afterSeq: $afterSeq) { seq hash } }';

export async function watchLedger(server: EpisodicServer, afterSeq = 0): Promise<LedgerWatchers> {
  const verified: LedgerWatchers['verified'] = { events: [], errors: [], reconnects: 0, lastSeq: () => sub.lastSeq };
  const sub = server.client.subscribeLedger({
    afterSeq,
    onEvent: (e) => void verified.events.push({ seq: e.seq, hash: e.hash }),
    onError: (err) => void verified.errors.push(`${err.kind}: ${err.message}`),
    onConnected: ({ reconnect }) => void (reconnect && (verified.reconnects += 1)),
    retryWait: () => sleep(200),
  });
  const raw: LedgerWatchers['raw'] = { events: [], errors: [], ended: false };
  const ws = createClient({
    url: server.graphqlUrl.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${server.apiKey}` },
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: (err) => void raw.errors.push(`connection: ${String((err as Error)?.message ?? err)}`),
  });
  const stopRaw = ws.subscribe<{ ledgerEvents: { seq: string; hash: string } }>(
    { query: RAW_LEDGER, variables: { afterSeq: String(afterSeq) } },
    {
      next: (m) => {
        if (m.errors?.length) raw.errors.push(m.errors.map((e) => e.message).join('; '));
        if (m.data?.ledgerEvents) raw.events.push({ seq: Number(m.data.ledgerEvents.seq), hash: m.data.ledgerEvents.hash });
      },
      error: (err) => {
        raw.errors.push(`error: ${String((err as Error)?.message ?? (err as { code?: number })?.code ?? err)}`);
        raw.ended = true;
      },
      complete: () => void (raw.ended = true),
    },
  );
  return {
    verified,
    raw,
    async close() {
      stopRaw();
      await sub.close();
      await Promise.resolve(ws.dispose()).catch(() => undefined);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Reports

/** Writes a scenario's figures to test-results/reliability/<name>.json (the figures in docs/RELIABILITY.md come from there). */
export async function recordReport(name: string, report: unknown): Promise<string> {
  const dir = join(process.cwd(), 'test-results', 'reliability');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${name}.json`);
  await writeFile(file, `${JSON.stringify({ at: new Date().toISOString(), ...(report as object) }, null, 2)}\n`);
  return file;
}

/** One line of the figures that matter, for the test log. */
export function summary<T extends object>(report: T, keys: Array<keyof T & string>): string {
  return keys.map((k) => `${k}=${JSON.stringify(report[k])}`).join(' ');
}

/** The last warnings and errors a server logged (trimmed), for failure messages. */
export function recentErrors(server: EpisodicServer, n = 3): string[] {
  return server.proc
    .output()
    .split('\n')
    .filter((l) => /"level":(40|50|60)/.test(l))
    .slice(-n)
    .map((l) => l.slice(0, 600));
}
