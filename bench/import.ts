// Import benchmark (issue 16): the 350 development runs imported from the archive through the CLI
// (`episodic import <folder> --json`, a separate process, as a user runs it) into an empty
// database, then the learning backlog (pattern extraction) waited out.
//   1. import with learning on: runs/s, steps/s, refused steps, the time until every episode is
//      learned (learned_seconds), and the database size;
//   2. backlog: the same runs into a second empty database with no learning workers, then one
//      server with the default workers drains the whole backlog: episodes/s, against the
//      polling bound of the old queue settings (one job per fetch: workers / JOB_POLL_SECONDS).
// Run: npm run bench:import [-- <archive.tar.gz or folder>] [--skip-backlog]
// Default archive: ../shared/data/swebench-verified-mini-swe-agent.tar.gz (relative to the repository).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type BenchDatabase, type BenchServer, fmt, openBenchDatabase, startBenchServer } from './support.ts';

const REPO = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const SOURCE = resolve(REPO, args.find((a) => !a.startsWith('--')) ?? '../shared/data/swebench-verified-mini-swe-agent.tar.gz');
const SKIP_BACKLOG = args.includes('--skip-backlog');
const DEFAULT_WORKERS = 2;
const DEFAULT_POLL_SECONDS = 2;

interface CliReport {
  imported: number;
  duplicates: number;
  failed: number;
  steps: number;
  acceptedSteps: number;
  rejectedSteps: number;
}

/** The folder of runs: the archive unpacked into a temporary folder (outside the repository), or the folder given. */
async function runsFolder(): Promise<{ dir: string; cleanup(): Promise<void> }> {
  if (!existsSync(SOURCE)) throw new Error(`no development set at ${SOURCE}: pass the archive or folder as the first argument`);
  if (statSync(SOURCE).isDirectory()) return { dir: SOURCE, cleanup: async () => {} };
  const dir = await mkdtemp(join(tmpdir(), 'episodic-import-bench-'));
  execFileSync('tar', ['-xzf', SOURCE, '-C', dir]);
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

function importThroughCli(server: BenchServer, dir: string): Promise<{ report: CliReport; seconds: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/episodic.mjs', 'import', dir, '--json', '--url', server.url, '--key', server.token], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  return new Promise((done, fail) => {
    child.once('close', (code) => {
      const seconds = (performance.now() - started) / 1000;
      try {
        const report = JSON.parse(out) as CliReport;
        if (code !== 0) console.log(`episodic import exited ${code}`);
        done({ report, seconds });
      } catch (err) {
        fail(new Error(`episodic import exited ${code} without a JSON report: ${String(err)}`));
      }
    });
  });
}

/** Episodes still waiting for pattern extraction. */
async function learningBacklog(database: BenchDatabase): Promise<number> {
  const { rows } = await database.db.pool.query(`SELECT count(*)::int AS n FROM episodes WHERE learning_state IN ('pending', 'queued')`);
  return rows[0].n;
}

async function waitUntilLearned(database: BenchDatabase, timeoutSeconds = 600): Promise<void> {
  const giveUp = performance.now() + timeoutSeconds * 1000;
  while ((await learningBacklog(database)) > 0) {
    if (performance.now() > giveUp) throw new Error(`learning backlog not drained after ${timeoutSeconds} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function databaseSize(database: BenchDatabase): Promise<number> {
  const { rows } = await database.db.pool.query('SELECT pg_database_size(current_database())::float8 AS bytes');
  return rows[0].bytes;
}

async function importAndLearn(dir: string) {
  const database = await openBenchDatabase();
  const server = await startBenchServer(database.url);
  try {
    const started = performance.now();
    const { report, seconds } = await importThroughCli(server, dir);
    await waitUntilLearned(database);
    const learnedSeconds = (performance.now() - started) / 1000;
    return { report, seconds, learnedSeconds, bytes: await databaseSize(database) };
  } finally {
    await server.stop();
    await database.close();
  }
}

async function drainBacklog(dir: string) {
  const database = await openBenchDatabase();
  try {
    const importer = await startBenchServer(database.url, { LEARNING_WORKERS: '0' });
    await importThroughCli(importer, dir).finally(() => importer.stop());
    const backlog = await learningBacklog(database);
    const started = performance.now();
    const learner = await startBenchServer(database.url, { LEARNING_WORKERS: String(DEFAULT_WORKERS), JOB_POLL_SECONDS: String(DEFAULT_POLL_SECONDS) });
    try {
      await waitUntilLearned(database);
    } finally {
      await learner.stop();
    }
    return { backlog, seconds: (performance.now() - started) / 1000 };
  } finally {
    await database.close();
  }
}

const folder = await runsFolder();
try {
  console.log(
    `import benchmark: ${SOURCE} (load average at start ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
  );
  const run = await importAndLearn(folder.dir);
  const { report } = run;
  console.log(`1. import through the CLI into an empty database (learning on, ${DEFAULT_WORKERS} workers)`);
  console.log(
    `   runs ${report.imported} imported, ${report.duplicates} duplicate, ${report.failed} failed in ${fmt(run.seconds, 1)} s: ${fmt(report.imported / run.seconds, 1)} runs/s, ${fmt(report.acceptedSteps / run.seconds)} steps/s`,
  );
  console.log(
    `   refused steps ${report.rejectedSteps}; every episode learned after ${fmt(run.learnedSeconds, 1)} s (${fmt(run.learnedSeconds - run.seconds, 1)} s after the import ended)`,
  );
  console.log(`   database size ${fmt(run.bytes / 1024 / 1024, 1)} MB`);
  if (!SKIP_BACKLOG) {
    const drain = await drainBacklog(folder.dir);
    const rate = drain.backlog / drain.seconds;
    const pollingBound = DEFAULT_WORKERS / DEFAULT_POLL_SECONDS;
    console.log(
      `2. learning backlog: ${drain.backlog} episodes imported with no workers, then drained by one server (${DEFAULT_WORKERS} workers, JOB_POLL_SECONDS ${DEFAULT_POLL_SECONDS})`,
    );
    console.log(
      `   drained in ${fmt(drain.seconds, 1)} s: ${fmt(rate, 1)} episodes/s; ${fmt(rate / pollingBound, 1)}x the one-job-per-poll bound (${fmt(pollingBound, 1)} episodes/s)`,
    );
  }
  console.log(
    `import runs=${report.imported} steps=${report.acceptedSteps} refused_steps=${report.rejectedSteps} seconds=${run.seconds.toFixed(1)} learned_seconds=${run.learnedSeconds.toFixed(1)}`,
  );
} finally {
  await folder.cleanup();
}
