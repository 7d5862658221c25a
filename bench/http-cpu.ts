// CPU per request of two source trees, alternating in one run (issue 55): on a shared machine
// req/s moves with other work, the CPU a request costs does not. Each tree's compiled server
// (dist/server, built when stale: bench/episodic-server.ts) serves one database (the development set imported once through the CLI); for each case and tree
// in turn, BENCH_CLIENTS clients for BENCH_HTTP_SECONDS, and the CPU that load cost the server's process and
// this database's PostgreSQL backends (/proc), per answered request.
// Run: node --import tsx bench/http-cpu.ts <tree A> <tree B> [archive]  (BENCH_DATABASE_URL required)
//   BENCH_HTTP_SECONDS (default 5), BENCH_HTTP_ROUNDS (default 3), BENCH_CASES (default viewer,relevant), BENCH_CLIENTS (default 32),
//   BENCH_KEEP=1 (keep the imported database for the next run, named BENCH_DB_NAME, default bench_http_cpu), BENCH_CPU_PROF=<dir> (tree B's server with --cpu-prof),
//   BENCH_SERVER_ENV='{"NAME":"value"}' (more settings of both servers).
import { execFileSync, fork, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { createApiKey, createTenant } from '../src/auth/store.ts';
import { must } from '../src/core/must.ts';
import { RANKER_JOB } from '../src/retrieval/ranker-jobs.ts';
import { type CompiledServer, startCompiledServer } from './episodic-server.ts';
import { QUERY_MIX } from './query-mix.ts';
import { fmt, openBenchDatabase, percentile } from './support.ts';

const [treeA, treeB, archive] = process.argv.slice(2).map((a) => resolve(a));
const SOURCE = archive ?? resolve(import.meta.dirname, '../../../shared/data/swebench-verified-mini-swe-agent.tar.gz');
const SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 3);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 32);
const CASES = (process.env.BENCH_CASES ?? 'viewer,relevant').split(',');
const RELEVANT = `query($t: RetrievalTaskInput!) { relevantEpisodes(task: $t, limit: 5) { __typename ... on RelevantEpisodes { retrievalId episodes { episode { id taskDescription } } } } }`;
const BODIES: Record<string, string[]> = {
  viewer: [JSON.stringify({ query: '{ viewer { name } }' })],
  relevant: QUERY_MIX.map((d) => JSON.stringify({ query: RELEVANT, variables: { t: { description: d } } })),
};

/** utime + stime of a process in ms (/proc/<pid>/stat fields 14 and 15, clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  if (!existsSync(`/proc/${pid}/stat`)) return 0;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function backendsCpu(admin: pg.Client, database: string): Promise<Map<number, number>> {
  const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
  return new Map(rows.map((r) => [r.pid, cpuMs(r.pid)]));
}

/** A tree's compiled server (bench/episodic-server.ts), as `npm start` runs it. */
function startServer(tree: string, databaseUrl: string, profile?: string): Promise<CompiledServer> {
  const settings = JSON.parse(process.env.BENCH_SERVER_ENV ?? '{}') as Record<string, string>;
  return startCompiledServer(tree, { databaseUrl, applicationName: 'bench-http-episodic', settings, cpuProfDir: profile });
}

function load(url: string, token: string, bodies: string[]): Promise<{ count: number; seconds: number; latencies: number[] }> {
  const child = fork(join(import.meta.dirname, 'http-load.mjs'), [], { execArgv: [] });
  return new Promise((done, fail) => {
    child.once('message', (m) => {
      const r = m as { error?: string; count: number; seconds: number; latencies: number[] };
      if (r.error) fail(new Error(r.error));
      else done(r);
    });
    child.send({ url, token, bodies, clients: CLIENTS, seconds: SECONDS });
  });
}

async function importRuns(url: string, token: string, dir: string): Promise<void> {
  execFileSync('tar', ['-xzf', SOURCE, '-C', dir]);
  const cli = spawn(process.execPath, ['bin/episodic.mjs', 'import', dir, '--json', '--url', url, '--key', token], { cwd: treeA, stdio: 'ignore' });
  await new Promise<void>((done, fail) => cli.once('close', (code) => (code === 0 ? done() : fail(new Error(`import exited ${code}`)))));
}

async function waitUntilLearned(pool: pg.Pool): Promise<void> {
  for (;;) {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT ((SELECT count(*) FROM episodes WHERE learning_state IN ('pending', 'queued'))
             + (SELECT count(*) FROM pgboss.job WHERE name = '${RANKER_JOB}' AND state IN ('created', 'retry', 'active')))::int AS n`,
    );
    if (rows[0]?.n === 0) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function main() {
  if (!treeA || !treeB) throw new Error('usage: http-cpu.ts <tree A> <tree B> [archive]');
  // Kept between runs (BENCH_KEEP=1): the import and its learning take minutes.
  const keep = process.env.BENCH_KEEP === '1';
  const database = await openBenchDatabase(keep ? { name: process.env.BENCH_DB_NAME ?? 'bench_http_cpu', reuse: true, keep: true } : {});
  const dbName = new URL(database.url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: must(process.env.BENCH_DATABASE_URL, 'BENCH_DATABASE_URL') });
  await admin.connect();
  const tenant = database.reused
    ? must(await database.db.prisma.tenant.findFirst({ where: { name: 'bench-http-cpu' } }), 'tenant')
    : await createTenant(database.db.prisma, 'bench-http-cpu');
  const { token } = await createApiKey(database.db.prisma, { tenantId: tenant.id, name: 'bench', scopes: ['write'] });
  const servers = { A: await startServer(treeA, database.url), B: await startServer(treeB, database.url, process.env.BENCH_CPU_PROF) };
  const dir = await mkdtemp(join(tmpdir(), 'episodic-http-cpu-'));
  try {
    if (!database.reused) await importRuns(servers.A.url, token, dir);
    await waitUntilLearned(database.db.pool);
    console.log(
      `http-cpu: A=${treeA} B=${treeB}, ${SECONDS} s x ${ROUNDS} rounds, load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    const results: Record<string, Array<{ server: number; pg: number; rps: number; p95: number }>> = {};
    for (let round = -1; round < ROUNDS; round++) {
      for (const name of CASES) {
        for (const [label, s] of Object.entries(round % 2 === 0 ? servers : { B: servers.B, A: servers.A })) {
          const pid = s.pid;
          const server0 = cpuMs(pid);
          const pg0 = await backendsCpu(admin, dbName);
          const r = await load(s.url, token, must(BODIES[name], name));
          const pg1 = await backendsCpu(admin, dbName);
          const pgMs = [...pg1].reduce((sum, [p, ms]) => sum + ms - (pg0.get(p) ?? 0), 0);
          const sorted = [...r.latencies].sort((a, b) => a - b);
          const row = { server: ((cpuMs(pid) - server0) * 1000) / r.count, pg: (pgMs * 1000) / r.count, rps: r.count / r.seconds, p95: percentile(sorted, 95) };
          if (round < 0) continue; // warm-up
          (results[`${name} ${label}`] ??= []).push(row);
          console.log(
            `round ${round} ${name.padEnd(8)} ${label}: server ${fmt(row.server)} µs  pg ${fmt(row.pg)} µs  ${fmt(row.rps)} req/s  p95 ${fmt(row.p95, 1)} ms`,
          );
        }
      }
    }
    const med = (xs: number[]) => must([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)], 'median');
    for (const [key, rows] of Object.entries(results)) {
      console.log(
        `median ${key.padEnd(10)} server ${fmt(med(rows.map((r) => r.server)))} µs/request  pg ${fmt(med(rows.map((r) => r.pg)))} µs/request  ${fmt(med(rows.map((r) => r.rps)))} req/s  p95 ${fmt(med(rows.map((r) => r.p95)), 1)} ms`,
      );
    }
  } finally {
    await Promise.all([servers.A.stop(), servers.B.stop()]);
    await rm(dir, { recursive: true, force: true });
    await admin.end();
    await database.close();
  }
}

await main();
