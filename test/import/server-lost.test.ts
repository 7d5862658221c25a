// `episodic import` when the server is not there: the real binary against a port nothing listens
// on, and against a real server process SIGKILLed part way through an import. Each time one line
// on stderr and exit 5 (docs/IMPORT.md, "Exit codes"); importing again after a restart resumes.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnBinary } from '../client/cli-run.ts';
import { type EpisodicServer, startServer, tempDir, waitUntil } from '../reliability/harness.ts';
import { createMigratedDatabase, type MigratedDatabase } from '../support/db.ts';
import { freePort } from '../support/ports.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const RUNS = 60;

let folder: { path: string; remove(): Promise<void> };
beforeAll(async () => {
  folder = await tempDir('import-lost-');
});
afterAll(() => folder.remove());

function importWith(url: string, paths: string[], key = 'epk_none', extra: string[] = []) {
  return spawnBinary(['import', ...paths, '--url', url, '--key', key, ...extra], { env: { EPISODIC_DATA_DIR: join(folder.path, 'none') } });
}

/** RUNS small JSONL runs, one file each. */
async function writeRuns(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (let i = 0; i < RUNS; i++) {
    const run = { type: 'run', id: `acme__lost-${i}`, task: `Task number ${i} of the lost-server import.`, resolved: i % 2 === 0 };
    const steps = [1, 2].map((n) => ({ type: 'step', command: `echo ${i}-${n}`, exitCode: 0, output: `${i}-${n}` }));
    await writeFile(join(dir, `run-${String(i).padStart(3, '0')}.jsonl`), [run, ...steps].map((l) => JSON.stringify(l)).join('\n'));
  }
}

describe('episodic import without a server', { timeout: 180_000 }, () => {
  it('says it cannot reach the server, in one line, and exits 5 when nothing listens', async () => {
    const url = `http://127.0.0.1:${await freePort()}/graphql`;
    const result = await importWith(url, [join(FIXTURES, 'mini'), join(FIXTURES, 'jsonl')]).exited;
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`episodic: cannot reach ${url}: fetch failed (ECONNREFUSED); 0 of 2 run(s) imported\n`);
  });

  let database: MigratedDatabase | undefined;
  const servers: EpisodicServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGKILL')));
    await database?.drop();
  });

  it('says after how many runs the server went away, exits 5, and importing again resumes', async () => {
    const runs = join(folder.path, 'runs');
    await writeRuns(runs);
    database = await createMigratedDatabase(2);
    const dataDir = join(folder.path, 'data');
    const first = await startServer({ databaseUrl: database.url, dataDir });
    servers.push(first);
    const episodes = async () => Number((await database?.db.pool.query('SELECT count(*)::int AS n FROM episodes'))?.rows[0].n);
    const cli = importWith(first.graphqlUrl, [runs], first.apiKey, ['--concurrency', '2']);
    await waitUntil(async () => (await episodes()) >= 5, 'five runs imported', 60_000);
    await first.stop('SIGKILL');
    const result = await cli.exited;
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('');
    const line = new RegExp(
      `^episodic: the server went away during the import after (\\d+) of ${RUNS} run\\(s\\): cannot reach ${first.graphqlUrl}: .+; importing again resumes\\n$`,
    );
    expect(result.stderr).toMatch(line);
    const done = Number(line.exec(result.stderr)?.[1]);
    expect(done).toBeGreaterThanOrEqual(3);
    expect(done).toBeLessThan(RUNS);

    const second = await startServer({ databaseUrl: database.url, dataDir });
    servers.push(second);
    const again = await importWith(second.graphqlUrl, [runs], second.apiKey, ['--json']).exited;
    expect(again.code).toBe(0);
    const report = JSON.parse(again.stdout);
    expect(report.imported + report.duplicates).toBe(RUNS);
    expect(report.failed).toBe(0);
    expect(report.duplicates).toBeGreaterThanOrEqual(done);
    expect(await episodes()).toBe(RUNS);
  });
});
