// `npm start` as a user runs it: the embedded default, restarts, several servers on one database,
// and one-line messages for bad configuration.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmptyDatabase } from '../support/db.ts';
import type { Json } from '../support/json.ts';
import { freePort } from '../support/ports.ts';
import { startServerProcess } from '../support/process.ts';

const SERVING = /Episodic serving GraphQL on http:\/\/localhost:(\d+)\/graphql/;

async function viewerName(port: number, key: string): Promise<string | undefined> {
  const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query: '{ viewer { name } }' }),
  });
  return ((await res.json()) as Json).data?.viewer?.name;
}

// Server processes that start PostgreSQL or migrate a database: 5-20 s idle, over 60 s measured at
// load 25-35 on 2 cores; not vitest's default timeout.
const PROCESS_TEST_MS = 180_000;

describe('embedded default', { timeout: PROCESS_TEST_MS }, () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'episodic-start-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('starts PostgreSQL in the data folder, writes a private admin key, keeps data across restarts, and stops it on SIGTERM', async () => {
    const env = { EPISODIC_DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()), PORT: String(await freePort()) };
    const first = startServerProcess(env);
    await first.waitFor(SERVING);
    const keyFile = join(dataDir, 'admin-key');
    expect(first.output()).toContain(keyFile);
    // The start-up line names the monitor beside the API.
    expect(first.output()).toContain(`on http://localhost:${env.PORT}/graphql and the monitor on http://localhost:${env.PORT}/`);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    const key = (await readFile(keyFile, 'utf8')).trim();
    expect(await viewerName(Number(env.PORT), key)).toBe('default');
    expect(await first.stop('SIGTERM')).toBe(0);
    expect(first.output()).toContain('"msg":"stopped"');

    const second = startServerProcess(env);
    await second.waitFor(SERVING);
    expect(second.output()).not.toContain('initialising embedded PostgreSQL');
    expect(second.output()).not.toContain('created the default tenant');
    expect(await viewerName(Number(env.PORT), key)).toBe('default');
    expect(await second.stop('SIGINT')).toBe(0);
  });
});

describe('external database', { timeout: PROCESS_TEST_MS }, () => {
  it('brings up two servers started at once on one empty database, migrating it once', async () => {
    const database = await createEmptyDatabase();
    const dataDir = await mkdtemp(join(tmpdir(), 'episodic-two-'));
    const servers = [0, 1].map(() => freePort());
    const ports = await Promise.all(servers);
    const procs = ports.map((port) => startServerProcess({ DATABASE_URL: database.url, PORT: String(port), EPISODIC_DATA_DIR: dataDir }));
    try {
      await Promise.all(procs.map((p) => p.waitFor(SERVING)));
      const migrationLogs = procs.filter((p) => p.output().includes('migrations applied'));
      expect(migrationLogs).toHaveLength(1);
      const bootLogs = procs.filter((p) => p.output().includes('created the default tenant'));
      expect(bootLogs).toHaveLength(1);
      for (const port of ports) expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    } finally {
      await Promise.all(procs.map((p) => p.stop()));
      await rm(dataDir, { recursive: true, force: true });
      await database.drop();
    }
  });

  it('prints one clear line and exits 1 when DATABASE_URL cannot be reached', async () => {
    const port = await freePort();
    const proc = startServerProcess({ DATABASE_URL: `postgresql://nobody@127.0.0.1:${port}/none`, PORT: '0' });
    expect(await proc.exited()).toBe(1);
    const lines = proc.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^episodic: cannot connect to PostgreSQL at 127.0.0.1:${port}/none \\(ECONNREFUSED`));
  });

  it('prints one clear line and exits 1 for a bad PORT or DATABASE_URL', async () => {
    const badPort = startServerProcess({ PORT: 'eighty' });
    expect(await badPort.exited()).toBe(1);
    expect(badPort.stderr().trim()).toBe('episodic: invalid configuration: PORT must be an integer port between 0 and 65535 (got "eighty")');
    const badUrl = startServerProcess({ DATABASE_URL: 'localhost:5432' });
    expect(await badUrl.exited()).toBe(1);
    expect(badUrl.stderr().trim().split('\n')).toHaveLength(1);
    expect(badUrl.stderr()).toMatch(/^episodic: invalid configuration: DATABASE_URL must be a postgres:\/\//);
  });
});
