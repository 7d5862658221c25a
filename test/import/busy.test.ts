// An import keeps many calls in flight (32 by default); a server that takes fewer from one key
// (MAX_REQUESTS_PER_KEY) refuses the rest with OVERLOADED and a retryAfterMs, and the import sends
// each refused call again after that wait: every run is imported, none fails.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEpisodicClient } from '../../src/client/index.ts';
import type { FetchLike } from '../../src/client/transport.ts';
import { importRuns } from '../../src/import/index.ts';
import { type TestApp, useApp } from '../support/app.ts';

const MINI = join(import.meta.dirname, 'fixtures', 'mini', 'django__django-11', 'django__django-11.traj.json');
const RUNS = 12;

let t: TestApp;
useApp(
  (app) => {
    t = app;
  },
  { MAX_REQUESTS_PER_KEY: '2', MAX_QUEUED_PER_KEY: '0' },
);

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'episodic-busy-import-'));
  const run = JSON.parse(await readFile(MINI, 'utf8'));
  for (let i = 0; i < RUNS; i++) {
    const id = `django__django-${100 + i}`;
    await mkdir(join(folder, id), { recursive: true });
    await writeFile(join(folder, id, `${id}.traj.json`), JSON.stringify({ ...run, instance_id: id }));
  }
});
afterAll(() => rm(folder, { recursive: true, force: true }));

it('sends the calls a busy server refused again, and imports every run', async () => {
  const refused: string[] = [];
  const counting: FetchLike = async (url, init) => {
    const res = await fetch(url, init);
    const text = await res.text();
    if (text.includes('"OVERLOADED"')) refused.push(text);
    return { ok: res.ok, status: res.status, text: async () => text };
  };
  const report = await importRuns(createEpisodicClient({ url: t.url, apiKey: t.keys.write, fetch: counting }), [folder]);
  expect(refused.length).toBeGreaterThan(0);
  expect(refused[0]).toContain('MAX_REQUESTS_PER_KEY');
  expect(report).toMatchObject({ imported: RUNS, duplicates: 0, failed: 0 });
  const { rows } = await t.database.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM episodes WHERE status = 'completed'`);
  expect(rows[0]?.n).toBe(RUNS);
});
