// Live subscription benchmark (issue 4): 1,000 concurrent graphql-ws subscribers of one tenant's
// ledger while events are appended at a steady rate; delivery latency from commit (taken in the
// committing server process) to receipt (taken in the subscriber's thread), and server memory.
//   A. one server process with all subscribers;
//   B. two server processes on one database, subscribers split between them, writes alternating,
//      so half of each subscriber's events cross processes through LISTEN/NOTIFY.
// Servers run as child processes and subscribers in worker threads: nobody shares an event loop.
// Run: npm run bench:subscribers [subscribers] [events/s] [seconds]   (BENCH_DATABASE_URL to use a server)
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { createApiKey, createTenant } from '../src/auth/store.ts';
import { must } from '../src/core/must.ts';
import { readHead } from '../src/ledger/store/read.ts';
import type { Json } from '../test/support/json.ts';
import { type BenchDatabase, fmt, openBenchDatabase, percentile } from './support.ts';

const SUBSCRIBERS = Number(process.argv[2] ?? 1_000);
const RATE = Number(process.argv[3] ?? 20);
const SECONDS = Number(process.argv[4] ?? 5);
const WORKERS_PER_SERVER = 2;
if (SUBSCRIBERS % (2 * WORKERS_PER_SERVER))
  throw new Error(`subscribers must be a multiple of ${2 * WORKERS_PER_SERVER} (they are split over servers and threads)`);
/** Events committed in the first second are left out: connections and code paths warm up. */
const WARMUP_EVENTS = RATE;

interface Stats {
  rss: number;
  /** After a full collection when asked with gc. */
  heapUsed: number;
  /** CPU time the process has used so far (user + system). */
  cpuMs: number;
  subscribers: number;
  commits: number[];
}

interface Server {
  url: string;
  child: ChildProcess;
  stats(gc?: boolean): Promise<Stats>;
  stop(): Promise<void>;
}

async function startServer(databaseUrl: string): Promise<Server> {
  const child = fork(new URL('./subscriber-server.ts', import.meta.url), [], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    env: { ...process.env, DATABASE_URL: databaseUrl },
  });
  const [ready] = (await once(child, 'message')) as [{ url: string }];
  return {
    url: ready.url,
    child,
    async stats(gc = false) {
      child.send({ type: 'stats', gc });
      const [m] = (await once(child, 'message')) as [Stats];
      return m;
    },
    async stop() {
      child.send({ type: 'stop' });
      await once(child, 'exit');
    },
  };
}

interface Clients {
  worker: Worker;
  request<T>(message: string): Promise<T>;
}

function startClients(url: string, token: string, count: number, afterSeq: number): Clients {
  const worker = new Worker(new URL('./subscriber-clients.mjs', import.meta.url), { workerData: { url, token, count, afterSeq } });
  return {
    worker,
    async request<T>(message: string) {
      worker.postMessage(message);
      const [reply] = await once(worker, 'message');
      return reply as T;
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

async function waitFor(condition: () => Promise<boolean>, what: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

async function gql(url: string, token: string, query: string, variables: Record<string, unknown>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: Json; errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

const START = 'mutation($i: StartEpisodeInput!) { startEpisode(input: $i) { ... on StartEpisodePayload { episode { id } } } }';
const LOG_STEP = 'mutation($id: ID!, $s: StepInput!) { logStep(episodeId: $id, step: $s) { __typename } }';

/**
 * One logStep per tick, round-robin over the servers (one steps.logged event per call). Open loop:
 * a call goes out on schedule even if earlier ones have not been answered, so a server that falls
 * behind shows as latency instead of silently lowering the rate. Returns the seconds it took.
 */
async function appendSteadily(servers: Server[], token: string): Promise<number> {
  const episodes = await Promise.all(
    servers.map((s) =>
      gql(s.url, token, START, { i: { taskDescription: 'subscriber bench', taskType: 'bench' } }).then((d) => d.startEpisode.episode.id as string),
    ),
  );
  const calls: Array<Promise<unknown>> = [];
  const started = performance.now();
  for (let i = 0; i < RATE * SECONDS; i++) {
    await sleep(started + (i * 1000) / RATE - performance.now());
    const k = i % servers.length;
    calls.push(gql(must(servers[k]).url, token, LOG_STEP, { id: episodes[k], s: { tool: 'bench', action: `step ${i}` } }));
  }
  await Promise.all(calls);
  return (performance.now() - started) / 1000;
}

interface Row {
  scenario: string;
  events: number;
  deliveries: number;
  missing: number;
  p50: number;
  p99: number;
  max: number;
  resources: { rss: string; heap: string; cpu: string; writeSeconds: number; clients: string };
}

function latencyRow(scenario: string, latencies: number[], events: number, expected: number, resources: Row['resources']): Row {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    scenario,
    events,
    deliveries: latencies.length,
    missing: expected - latencies.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? NaN,
    resources,
  };
}

const mb = (bytes: number) => fmt(bytes / 1024 / 1024, 0);

async function scenario(name: string, database: BenchDatabase, serverCount: number, token: string, tenantId: string): Promise<Row[]> {
  const servers = await Promise.all(Array.from({ length: serverCount }, () => startServer(database.url)));
  const before = await Promise.all(servers.map((s) => s.stats(true)));
  const afterSeq = (await readHead(database.db.pool, tenantId)).seq;
  const perServer = SUBSCRIBERS / serverCount;
  const clients = servers.map((s) => Array.from({ length: WORKERS_PER_SERVER }, () => startClients(s.url, token, perServer / WORKERS_PER_SERVER, afterSeq)));
  await waitFor(
    async () => (await Promise.all(servers.map((s) => s.stats()))).every((st) => st.subscribers === perServer),
    'every subscription to be live',
    60_000,
  );

  const live = await Promise.all(servers.map((s) => s.stats()));
  const liveAt = performance.now();
  const benchCpu = process.cpuUsage();
  const writeSeconds = await appendSteadily(servers, token);
  const head = (await readHead(database.db.pool, tenantId)).seq;
  const all = clients.flat();
  await waitFor(
    async () => (await Promise.all(all.map((c) => c.request<{ fewest: number }>('progress')))).every((p) => p.fewest >= head - afterSeq),
    'every delivery',
    30_000,
  ).catch((err) => console.error(String(err)));

  const after = await Promise.all(servers.map((s) => s.stats()));
  const wallMs = performance.now() - liveAt;
  const clientCpu = process.cpuUsage(benchCpu);
  const retained = await Promise.all(servers.map((s) => s.stats(true)));
  // Which server committed each seq, and when.
  const committed = new Map<number, { at: number; server: number }>();
  after.forEach((st, server) => {
    for (let i = 0; i < st.commits.length; i += 2) committed.set(must(st.commits[i]), { at: must(st.commits[i + 1]), server });
  });
  const measured = [...committed.keys()].filter((seq) => seq > afterSeq + WARMUP_EVENTS);
  const local: number[] = [];
  const remote: number[] = [];
  for (const [server, group] of clients.entries()) {
    for (const c of group) {
      const { received } = await c.request<{ received: number[][] }>('collect');
      for (const pairs of received) {
        for (let i = 0; i < pairs.length; i += 2) {
          const commit = committed.get(must(pairs[i]));
          if (!commit || must(pairs[i]) <= afterSeq + WARMUP_EVENTS) continue;
          (commit.server === server ? local : remote).push(must(pairs[i + 1]) - commit.at);
        }
      }
    }
  }
  const perProcess = (f: (i: number) => string) => servers.map((_, i) => f(i)).join('; ');
  const resources = {
    rss: perProcess((i) => `${mb(must(before[i]).rss)} → ${mb(must(after[i]).rss)}`),
    heap: perProcess((i) => `${mb(must(before[i]).heapUsed)} → ${mb(must(retained[i]).heapUsed)}`),
    cpu: perProcess((i) => `${fmt((100 * (must(after[i]).cpuMs - must(live[i]).cpuMs)) / wallMs)}%`),
    writeSeconds,
    clients: `${fmt((100 * (clientCpu.user + clientCpu.system)) / 1000 / wallMs)}%`,
  };
  await Promise.all(all.map((c) => c.request('close').then(() => c.worker.terminate())));
  await Promise.all(servers.map((s) => s.stop()));

  const events = measured.length;
  if (serverCount === 1) return [latencyRow(name, local, events, SUBSCRIBERS * events, resources)];
  // Every event is local to the subscribers of the server that committed it, remote to the others.
  return [
    latencyRow(`${name}, event committed on the subscriber's server`, local, events, perServer * events, resources),
    latencyRow(`${name}, event committed on the other server (NOTIFY)`, remote, events, perServer * events * (serverCount - 1), resources),
  ];
}

async function main() {
  // Clients, servers and PostgreSQL share this machine: its size and load frame the numbers.
  const machine = `${availableParallelism()} CPUs, load average ${fmt(must(loadavg()[0]), 1)} at the start`;
  const database = await openBenchDatabase();
  try {
    const tenant = await createTenant(database.db.prisma, 'bench-subscribers');
    const { token } = await createApiKey(database.db.prisma, { tenantId: tenant.id, name: 'bench', scopes: ['write'] });
    const rows = [...(await scenario('A. 1 server', database, 1, token, tenant.id)), ...(await scenario('B. 2 servers', database, 2, token, tenant.id))];
    console.log(
      `\n${fmt(SUBSCRIBERS)} graphql-ws subscribers (one connection each, one tenant), ${RATE} events/s for ${SECONDS} s, first second left out; ${machine}.\n`,
    );
    console.log(
      '| scenario | events | deliveries | missing | p50 ms | p99 ms | max ms | writes took s | server CPU | client + writer CPU | server RSS MB before → after | server heap MB after GC, before → after |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---|');
    for (const r of rows) {
      const { rss, heap, cpu, writeSeconds, clients } = r.resources;
      console.log(
        `| ${r.scenario} | ${fmt(r.events)} | ${fmt(r.deliveries)} | ${fmt(r.missing)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${fmt(r.max, 1)} | ${fmt(writeSeconds, 1)} | ${cpu} | ${clients} | ${rss} | ${heap} |`,
      );
    }
  } finally {
    await database.close();
  }
}

await main();
