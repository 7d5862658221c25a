// HTTP throughput and latency where users feel them (issue 31). Every server in its own process,
// the load generator in another (bench/http-load.mjs, 32 keep-alive
// clients); the pairs alternate ROUNDS times and each figure is the median of its rounds:
//   {__typename} with a key            against bare graphql-yoga answering {hello}
//   {viewer{name}} (one row)           against bare yoga + pg reading the same row
//   an episode with 20 steps, relevantEpisodes (the query mix printed, receipt written)
// relevantEpisodes latency is also measured one client at a time (what an agent sees), on the
// development set's 350 runs imported through the CLI first. Ends with two lines a script reads:
//   http read_ratio=<viewer req/s over yoga+pg req/s> relevant_p95_ms=<one client at a time>
//   http relevant_concurrent_rps=<req/s> relevant_concurrent_p95_ms=<p95>  (32 clients, the mix, median round)
// Each load also prints the server's CPU per answered request (from /proc), and its PostgreSQL
// backends' (named by application_name), which the other work on a shared machine does not move
// as it moves req/s.
// The Episodic server is the compiled one `npm start` runs (bench/episodic-server.ts builds it when
// stale); the bare servers run bench/http-server.ts. read_ratio is the median of READ_PAIRS pairs
// of measurements, the order swapped every pair.
// Run: npm run bench:http [-- <archive.tar.gz or folder of runs>]
//   BENCH_HTTP_SECONDS (per measurement, default 5), BENCH_HTTP_ROUNDS (default 3), BENCH_READ_PAIRS (default 9),
//   BENCH_SERVER_ENV='{"NAME":"value"}' (more of the Episodic server's settings),
//   BENCH_CPU_PROF=<dir>: the Episodic server runs with --cpu-prof into that folder.
import { type ChildProcess, execFileSync, fork, spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import type pg from 'pg';
import { createApiKey, createTenant } from '../src/auth/store.ts';
import { must } from '../src/core/must.ts';
import { RANKER_JOB } from '../src/retrieval/ranker-jobs.ts';
import { startCompiledServer } from './episodic-server.ts';
import { QUERY_MIX } from './query-mix.ts';
import { type BenchDatabase, fmt, openBenchDatabase, percentile } from './support.ts';

const REPO = resolve(import.meta.dirname, '..');
const SOURCE = resolve(REPO, process.argv[2] ?? '../shared/data/swebench-verified-mini-swe-agent.tar.gz');
const SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 3);
const READ_PAIRS = Number(process.env.BENCH_READ_PAIRS ?? 9);
const CLIENTS = 32;
const CPU_PROF = process.env.BENCH_CPU_PROF;

interface Server {
  url: string;
  /** CPU time (user + system) the server's process has used so far, in ms (Linux /proc). */
  cpuMs(): number;
  /** CPU time of each of its PostgreSQL backends so far, by pid (when the database runs on this machine). */
  pgCpuMs(): Promise<Map<number, number>>;
  stop(): Promise<void>;
}

/** utime + stime of a process, in ms: /proc/<pid>/stat fields 14 and 15, in clock ticks of 10 ms. */
function processCpuMs(pid: number | undefined): number {
  if (pid === undefined || !existsSync(`/proc/${pid}/stat`)) return Number.NaN;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The bench's database: its pool, and its name (other runs on the same PostgreSQL name their servers' connections alike). */
interface Admin {
  pool: pg.Pool;
  database: string;
}

/** The CPU so far of each backend the server of `mode` holds in this run's database (its pool's connections name it). */
async function backendsCpuMs(admin: Admin, mode: string): Promise<Map<number, number>> {
  const { rows } = await admin.pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = $2', [
    `bench-http-${mode}`,
    admin.database,
  ]);
  return new Map(rows.map((r) => [r.pid, processCpuMs(r.pid)]));
}

/**
 * The baselines compiled as the Episodic server is (esbuild, dependencies from node_modules), run by
 * plain node: neither side pays tsx's transforms, so the baseline stays the strongest.
 */
async function compiledBaseline(): Promise<string> {
  const outfile = join(REPO, '.scratch', 'bench-http-server.mjs');
  await build({
    entryPoints: [join(REPO, 'bench/http-server.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  return outfile;
}

async function startServer(mode: 'yoga' | 'yoga-pg', env: Record<string, string>, admin: Admin): Promise<Server> {
  const child = fork(await compiledBaseline(), [mode], { execArgv: ['--enable-source-maps'], env: { ...process.env, ...env, NODE_ENV: 'production' } });
  return new Promise((done, fail) => {
    child.once('exit', (code) => fail(new Error(`${mode} server exited ${code}`)));
    child.once('message', (m) => {
      child.removeAllListeners('exit');
      done({ url: (m as { url: string }).url, cpuMs: () => processCpuMs(child.pid), pgCpuMs: () => backendsCpuMs(admin, mode), stop: () => stopChild(child) });
    });
  });
}

/** This tree's Episodic server as `npm start` runs it (bench/episodic-server.ts). */
async function startEpisodic(databaseUrl: string, admin: Admin): Promise<Server> {
  const settings = JSON.parse(process.env.BENCH_SERVER_ENV ?? '{}') as Record<string, string>;
  const server = await startCompiledServer(REPO, { databaseUrl, applicationName: 'bench-http-episodic', settings, cpuProfDir: CPU_PROF });
  return { url: server.url, cpuMs: () => processCpuMs(server.pid), pgCpuMs: () => backendsCpuMs(admin, 'episodic'), stop: server.stop };
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    child.once('exit', () => done());
    child.send('stop');
  });
}

interface Load {
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  n: number;
  /** In the order sent (with one client: request i sent bodies[i % bodies.length]). */
  latencies: number[];
  /** The server's CPU per answered request, in µs: what the load cost it, whatever else ran on the machine. */
  cpuUs: number;
  /** Its PostgreSQL backends' CPU per answered request, in µs (NaN when the database's processes are not visible here). */
  pgCpuUs: number;
}

/** The CPU the backends used between two readings (a backend opened during the load counts from 0). */
function backendsDeltaMs(before: Map<number, number>, after: Map<number, number>): number {
  let ms = 0;
  for (const [pid, cpu] of after) ms += cpu - (before.get(pid) ?? 0);
  return ms;
}

/** One measurement: the load process runs `clients` connections for `seconds` against the url. */
async function load(server: Server, token: string, bodies: string[], clients = CLIENTS, seconds = SECONDS): Promise<Load> {
  const pgBefore = await server.pgCpuMs();
  const cpuBefore = server.cpuMs();
  const child = fork(join(REPO, 'bench/http-load.mjs'), [], { execArgv: [] });
  const r = await new Promise<{ count: number; seconds: number; latencies: number[] }>((done, fail) => {
    child.once('message', (m) => {
      const answer = m as { error?: string; count: number; seconds: number; latencies: number[] };
      if (answer.error) fail(new Error(answer.error));
      else done(answer);
    });
    child.send({ url: server.url, token, bodies, clients, seconds });
  });
  const cpuUs = ((server.cpuMs() - cpuBefore) * 1000) / Math.max(1, r.count);
  const pgCpuUs = (backendsDeltaMs(pgBefore, await server.pgCpuMs()) * 1000) / Math.max(1, r.count);
  const sorted = [...r.latencies].sort((a, b) => a - b);
  const [p50, p95, p99] = [50, 95, 99].map((p) => percentile(sorted, p));
  return { rps: r.count / r.seconds, p50: must(p50, 'p50'), p95: must(p95, 'p95'), p99: must(p99, 'p99'), n: r.count, latencies: r.latencies, cpuUs, pgCpuUs };
}

const body = (query: string, variables: Record<string, unknown> = {}) => JSON.stringify({ query, variables });

async function gql(url: string, token: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: body(query, variables),
  });
  const answer = (await res.json()) as { data?: Record<string, Record<string, unknown>>; errors?: unknown };
  if (answer.errors || !answer.data) throw new Error(JSON.stringify(answer));
  return answer.data;
}

/** An episode with 20 steps, written through the API; its id. */
async function episodeWithSteps(url: string, token: string): Promise<string> {
  const started = await gql(
    url,
    token,
    'mutation { startEpisode(input: { taskDescription: "bench: read an episode", taskType: "bench" }) { ... on StartEpisodePayload { episode { id } } } }',
  );
  const id = must((started.startEpisode as { episode?: { id: string } }).episode?.id, 'episode id');
  const steps = Array.from({ length: 20 }, (_, i) => ({ kind: 'tool_call', action: `ls -la src/module${i}`, observation: `file${i}.py\n`.repeat(20) }));
  await gql(url, token, 'mutation($e: ID!, $s: [StepInput!]!) { logSteps(episodeId: $e, steps: $s) { __typename } }', { e: id, s: steps });
  return id;
}

/** More distinct asks than clients: consecutive bodies go to the clients in turn, so no two in flight are alike. */
const DISTINCT_ASKS = CLIENTS * QUERY_MIX.length;

function distinctAsks(): string[] {
  return Array.from({ length: DISTINCT_ASKS }, (_, i) => body(RELEVANT, { t: { description: `${QUERY_MIX[i % QUERY_MIX.length]} ask${i}` } }));
}

const RELEVANT = `query($t: RetrievalTaskInput!) { relevantEpisodes(task: $t, limit: 5) { __typename ... on RelevantEpisodes { retrievalId episodes { episode { id taskDescription } } } } }`;
const EPISODE = `query($id: ID!) { episode(id: $id) { __typename ... on Episode { id status steps(first: 20) { edges { node { id kind action observation } } } } } }`;

async function runsFolder(): Promise<{ dir: string; cleanup(): Promise<void> }> {
  if (!existsSync(SOURCE)) throw new Error(`no development set at ${SOURCE}: pass the archive or folder as the first argument`);
  if (statSync(SOURCE).isDirectory()) return { dir: SOURCE, cleanup: async () => {} };
  const dir = await mkdtemp(join(tmpdir(), 'episodic-http-bench-'));
  execFileSync('tar', ['-xzf', SOURCE, '-C', dir]);
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

function importRuns(url: string, token: string, dir: string): Promise<void> {
  const child = spawn(process.execPath, ['bin/episodic.mjs', 'import', dir, '--json', '--url', url, '--key', token], {
    cwd: REPO,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise((done, fail) => child.once('close', (code) => (code === 0 ? done() : fail(new Error(`episodic import exited ${code}`)))));
}

/**
 * Every imported run learned, and the learned ranker's fits done: the import queues one in the
 * next throttling slot (up to a minute later), and a fit is seconds of CPU that would otherwise
 * land in the middle of the measurements.
 */
async function waitUntilLearned(database: BenchDatabase): Promise<void> {
  for (;;) {
    const { rows } = await database.db.pool.query<{ n: number }>(
      `SELECT ((SELECT count(*) FROM episodes WHERE learning_state IN ('pending', 'queued'))
             + (SELECT count(*) FROM pgboss.job WHERE name = '${RANKER_JOB}' AND state IN ('created', 'retry', 'active')))::int AS n`,
    );
    if (rows[0]?.n === 0) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const median = (xs: number[]) => must([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)], 'median');

/** The median (by req/s) of a series of measurements. */
function medianLoad(loads: Load[]): Load {
  return must([...loads].sort((a, b) => a.rps - b.rps)[Math.floor(loads.length / 2)], 'median load');
}

const line = (name: string, l: Load) =>
  `${name.padEnd(34)} ${fmt(l.rps).padStart(6)} req/s  p50 ${fmt(l.p50, 1).padStart(6)} ms  p99 ${fmt(l.p99, 1).padStart(6)} ms  (n=${l.n})`;

async function main() {
  console.log(
    `http benchmark: ${CLIENTS} keep-alive clients, ${SECONDS} s per measurement, ${ROUNDS} rounds (load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
  );
  const database = await openBenchDatabase();
  const folder = await runsFolder();
  const tenant = await createTenant(database.db.prisma, 'bench-http');
  const { token } = await createApiKey(database.db.prisma, { tenantId: tenant.id, name: 'bench', scopes: ['write'] });
  const env = { BENCH_DATABASE: database.url, BENCH_TENANT: tenant.id };
  const admin = { pool: database.db.pool, database: new URL(database.url).pathname.slice(1) };
  const episodic = await startEpisodic(database.url, admin);
  const yoga = await startServer('yoga', env, admin);
  const yogaPg = await startServer('yoga-pg', env, admin);
  try {
    console.log(`importing ${SOURCE} through the CLI ...`);
    await importRuns(episodic.url, token, folder.dir);
    await waitUntilLearned(database);
    const episodeId = await episodeWithSteps(episodic.url, token);
    const cases = {
      yoga: () => load(yoga, '', [body('{ hello }')]),
      typename: () => load(episodic, token, [body('{ __typename }')]),
      episode: () => load(episodic, token, [body(EPISODE, { id: episodeId })]),
      relevant: () =>
        load(
          episodic,
          token,
          QUERY_MIX.map((d) => body(RELEVANT, { t: { description: d } })),
        ),
      // The mix with a word of its own per ask (DISTINCT_ASKS of them cycled): no two questions in
      // flight are alike, so concurrent identical questions share nothing (src/retrieval/shared-rankings.ts).
      relevantDistinct: () => load(episodic, token, distinctAsks()),
    };
    const plainRead = { yogaPg: () => load(yogaPg, '', [body('{ tenant { name } }')]), viewer: () => load(episodic, token, [body('{ viewer { name } }')]) };
    const results: Record<keyof typeof cases | keyof typeof plainRead, Load[]> = {
      yoga: [],
      typename: [],
      yogaPg: [],
      viewer: [],
      episode: [],
      relevant: [],
      relevantDistinct: [],
    };
    // Warm-up: every case once, a full measurement each, so each server's hot paths are compiled
    // before the rounds (a one-second warm-up left the larger server's first round measuring its JIT).
    for (const measure of [...Object.values(cases), ...Object.values(plainRead)]) await measure().catch(() => undefined);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, measure] of Object.entries(cases)) results[name as keyof typeof cases].push(await measure());
    }
    // The plain read against its baseline: READ_PAIRS pairs, each a measurement of both one after
    // the other, the order swapped every pair (whichever goes second shares the minute's other work
    // differently); read_ratio is the median of the pairs' ratios. Three rounds gave 0.89, 0.70 and
    // 0.76 on a quiet machine: one pair moves with whatever else ran in its seconds.
    for (let pair = 0; pair < READ_PAIRS; pair++) {
      const order = pair % 2 === 0 ? (['yogaPg', 'viewer'] as const) : (['viewer', 'yogaPg'] as const);
      for (const name of order) results[name].push(await plainRead[name]());
    }
    const single = await load(
      episodic,
      token,
      QUERY_MIX.map((d) => body(RELEVANT, { t: { description: d } })),
      1,
      SECONDS * 2,
    );
    const ratios = results.viewer.map((v, i) => v.rps / must(results.yogaPg[i], 'pair').rps);
    console.log(`\nmedian of ${ROUNDS} rounds (the plain read and its baseline: of ${READ_PAIRS} pairs), ${CLIENTS} concurrent clients`);
    console.log(line('bare yoga {hello}', medianLoad(results.yoga)));
    console.log(line('{__typename} with a key', medianLoad(results.typename)));
    console.log(`   ratio to bare yoga ${fmt(medianLoad(results.typename).rps / medianLoad(results.yoga).rps, 2)}`);
    console.log(line('bare yoga + pg, one row', medianLoad(results.yogaPg)));
    console.log(line('{viewer{name}} (one row)', medianLoad(results.viewer)));
    console.log(`   ratio to bare yoga + pg ${fmt(median(ratios), 2)} (per pair: ${ratios.map((r) => fmt(r, 2)).join(', ')})`);
    const cpu = (name: keyof typeof results) => median(results[name].map((l) => l.cpuUs));
    const pgCpu = (name: keyof typeof results) => median(results[name].map((l) => l.pgCpuUs));
    console.log(
      `   server CPU per request (median of rounds): bare yoga ${fmt(cpu('yoga'))} µs, {__typename} ${fmt(cpu('typename'))} µs, bare yoga + pg ${fmt(cpu('yogaPg'))} µs, {viewer{name}} ${fmt(cpu('viewer'))} µs: ratio ${fmt(cpu('yogaPg') / cpu('viewer'), 2)}`,
    );
    console.log(
      `   PostgreSQL CPU per request (its backends, median of rounds): bare yoga + pg ${fmt(pgCpu('yogaPg'))} µs, {viewer{name}} ${fmt(pgCpu('viewer'))} µs`,
    );
    console.log(line('episode with 20 steps', medianLoad(results.episode)));
    console.log(line('relevantEpisodes (mix)', medianLoad(results.relevant)));
    console.log(`   server CPU per request (median of rounds): ${fmt(cpu('relevant'))} µs, PostgreSQL ${fmt(pgCpu('relevant'))} µs, receipts written`);
    console.log(line('relevantEpisodes (mix, no two asks alike)', medianLoad(results.relevantDistinct)));
    console.log(
      `   server CPU per request (median of rounds): ${fmt(cpu('relevantDistinct'))} µs, PostgreSQL ${fmt(pgCpu('relevantDistinct'))} µs, receipts written`,
    );
    console.log(`\nrelevantEpisodes one client at a time on the development set, receipt written, the mix cycled:`);
    QUERY_MIX.forEach((q, i) => {
      const own = single.latencies.filter((_, j) => j % QUERY_MIX.length === i).sort((a, b) => a - b);
      const text = `${JSON.stringify(q.slice(0, 60))}${q.length > 60 ? '...' : ''}`;
      console.log(`   ${i + 1}. ${q.length} chars: ${text.padEnd(66)} p50 ${fmt(percentile(own, 50), 1)} ms  p95 ${fmt(percentile(own, 95), 1)} ms`);
    });
    console.log(`   p50 ${fmt(single.p50, 1)} ms  p95 ${fmt(single.p95, 1)} ms  p99 ${fmt(single.p99, 1)} ms  (n=${single.n}; target p50 <= 10, p95 <= 30)`);
    console.log(`http read_ratio=${median(ratios).toFixed(2)} relevant_p95_ms=${single.p95.toFixed(1)}`);
    const concurrent = medianLoad(results.relevant);
    console.log(`http relevant_concurrent_rps=${concurrent.rps.toFixed(0)} relevant_concurrent_p95_ms=${concurrent.p95.toFixed(1)}`);
  } finally {
    await Promise.all([episodic.stop(), yoga.stop(), yogaPg.stop()]);
    await folder.cleanup();
    await database.close();
  }
}

await main();
