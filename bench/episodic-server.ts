// The Episodic server of bench:http and bench/http-cpu.ts, started as `npm start` starts it: the
// compiled server (dist/server/main.js, built by the tree's scripts/node-builds.mjs when a source is
// newer, as scripts/prestart.mjs does), in its own process, configured by environment variables
// only. Run through tsx instead, the server paid the loader's transforms: esbuild's keepNames
// wraps every function made at run time in a defineProperty call (closures made per request
// included), about 10 % of a `{viewer{name}}`'s server CPU (docs/BENCHMARKS.md, issue 50).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort } from '../test/support/ports.ts';

export interface CompiledServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Builds `tree`'s dist/server when a source is newer than it (the tree's own build script). */
async function buildIfStale(tree: string): Promise<void> {
  const builds = (await import(pathToFileURL(join(tree, 'scripts/node-builds.mjs')).href)) as {
    serverBuildIsStale(): boolean;
    buildServer(options: { clean: boolean }): Promise<void>;
  };
  if (builds.serverBuildIsStale()) await builds.buildServer({ clean: false });
}

/**
 * `tree`'s compiled server on a free port of 127.0.0.1, reading `databaseUrl` (its connections named
 * `applicationName` in pg_stat_activity); `settings` are more of its environment variables
 * (BENCH_SERVER_ENV's among them). Answers once /readyz says ready; stop() is SIGTERM, the
 * server's own graceful shutdown (a --cpu-prof profile is written as it exits).
 */
export async function startCompiledServer(
  tree: string,
  options: { databaseUrl: string; applicationName: string; settings?: Record<string, string>; cpuProfDir?: string },
): Promise<CompiledServer> {
  await buildIfStale(tree);
  const port = await freePort();
  const url = new URL(options.databaseUrl);
  url.searchParams.set('application_name', options.applicationName);
  const dataDir = await mkdtemp(join(tmpdir(), 'episodic-bench-server-'));
  const env = {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: url.toString(),
    EPISODIC_DATA_DIR: dataDir,
    LOG_LEVEL: 'error',
    DB_POOL_MAX: '20',
    RATE_LIMIT_PER_MINUTE: '0',
    LEDGER_SIGNING_KEY: randomBytes(32).toString('hex'),
    ...options.settings,
  };
  const profile = options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : [];
  // The flags of `npm start` (package.json), but --exit-with-parent: the bench stops it itself.
  const child = spawn(process.execPath, [...profile, '--enable-source-maps', 'dist/server/main.js'], {
    cwd: tree,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<never>((_, fail) => child.once('exit', (code) => fail(new Error(`the server of ${tree} exited ${code}`))));
  exited.catch(() => undefined); // only a start that fails is an error; stop() makes it exit too
  await Promise.race([untilReady(port), exited]);
  return { url: `http://127.0.0.1:${port}/graphql`, pid: child.pid ?? 0, stop: () => stopChild(child, dataDir) };
}

async function untilReady(port: number): Promise<void> {
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function stopChild(child: ChildProcess, dataDir: string): Promise<void> {
  if (child.exitCode === null) {
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.kill('SIGTERM');
    await exited;
  }
  await rm(dataDir, { recursive: true, force: true });
}
