// One PostgreSQL for the whole run: embedded by default, or TEST_DATABASE_URL. Each test file
// creates its own database on it (test/support/db.ts), so files run in parallel without sharing.
// Meanwhile it compiles the CLI, the client package and the server's child-process build (scripts/
// build.mjs --server, about two seconds), so the tests run what users run, built from the sources
// under test; and the monitor page (web/dist),
// once, because the browser test files run at the same time and would overwrite each other's build.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'vite';
import type { TestProject } from 'vitest/node';
import { type EmbeddedServer, startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { createTemplateDatabase, type TestDatabase } from './db.ts';
import { testDatabaseUrl } from './env.ts';
import { freePort } from './ports.ts';

let embedded: EmbeddedServer | undefined;
let dataDir: string | undefined;
let template: TestDatabase | undefined;

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    /** A migrated database each test database is copied from (test/support/db.ts). */
    templateDatabase: string;
  }
}

/**
 * The browser tests drive Debian's Chromium; on a fresh Debian/Ubuntu machine run as root (CI, a
 * container) it is installed here, as .ci/run does, so `npm test` needs no manual step. Elsewhere
 * one line says how; those tests then fail rather than skip.
 */
function ensureChromium(): void {
  if (existsSync('/usr/bin/chromium')) return;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (root && existsSync('/usr/bin/apt-get')) {
    process.stdout.write("episodic tests: installing Debian's chromium for the browser tests (apt-get)\n");
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    return;
  }
  process.stdout.write('episodic tests: /usr/bin/chromium is missing: install it (sudo apt-get install -y chromium) or the browser tests fail\n');
}

export async function setup(project: TestProject) {
  ensureChromium();
  // The builds and the database are independent: side by side they take the longest one's time.
  const [url] = await Promise.all([
    startDatabase(),
    promisify(execFile)(process.execPath, ['scripts/build.mjs', '--server']),
    build({ configFile: 'web/vite.config.ts', logLevel: 'warn' }),
  ]);
  template = await createTemplateDatabase(url);
  project.provide('databaseUrl', url);
  project.provide('templateDatabase', template.name);
}

/**
 * TEST_DATABASE_URL, or an embedded server with fsync off: every test file creates and drops a
 * database (105 a run), and each drop waited on fsyncs behind every other file's writes (586 ms
 * a drop on average in a full run, 85 ms with fsync off). Durability across a crash of the machine is no test's
 * subject; the files that kill PostgreSQL start their own (test/reliability/harness.ts).
 */
async function startDatabase(): Promise<string> {
  const url = testDatabaseUrl();
  if (url) return url;
  dataDir = await mkdtemp(join(tmpdir(), 'episodic-test-'));
  // Several files run at once, each with servers and pools of its own: more than the default 100.
  const settings = { max_connections: '400', fsync: 'off' };
  embedded = await startEmbeddedPostgres({ dataDir, port: await freePort(), database: 'episodic_test', settings });
  return embedded.url;
}

export async function teardown() {
  await template?.drop();
  await embedded?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}
