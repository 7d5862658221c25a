// An import whose answers are lost on the way back (the server commits, the client's connection is
// reset, as a keep-alive connection closed under load is): each call is sent again and the run is
// imported once, complete, with each step once. The resets come from a TCP proxy in front of the
// real server that drops the first answer to each of the import's calls: importRun, one per run (a
// run of more steps than one call takes is sent as three calls, which resend alike).
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEpisodicClient } from '../../src/client/index.ts';
import { importRuns } from '../../src/import/index.ts';
import { type TestApp, useApp } from '../support/app.ts';

const MINI = join(import.meta.dirname, 'fixtures', 'mini');
const CALLS = ['ImportRun'];

let t: TestApp;
useApp((app) => {
  t = app;
});

/** Forwards to the server; the first answer to each of CALLS is dropped and the client's connection reset. */
function resettingProxy(target: URL): { server: Server; cut: string[] } {
  const cut: string[] = [];
  const server = createServer((client: Socket) => {
    const upstream = createConnection(Number(target.port), target.hostname);
    let cutting: string | null = null;
    client.on('data', (chunk) => {
      const text = chunk.toString('latin1');
      cutting ??= CALLS.find((call) => text.includes(call) && !cut.includes(call)) ?? null;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (cutting === null) return void client.write(chunk);
      cut.push(cutting);
      client.resetAndDestroy();
      upstream.destroy();
    });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  return { server, cut };
}

let proxy: ReturnType<typeof resettingProxy>;
let proxyUrl: string;
beforeAll(async () => {
  const target = new URL(t.url);
  proxy = resettingProxy(target);
  await new Promise<void>((done) => proxy.server.listen(0, '127.0.0.1', done));
  const address = proxy.server.address();
  if (!address || typeof address === 'string') throw new Error('proxy has no port');
  proxyUrl = `http://127.0.0.1:${address.port}${target.pathname}`;
});
afterAll(() => new Promise<void>((done) => proxy.server.close(() => done())));

it('sends each call again when its answer was lost, and imports the run once', async () => {
  const report = await importRuns(createEpisodicClient({ url: proxyUrl, apiKey: t.keys.write }), [MINI]);
  expect(proxy.cut.sort()).toEqual([...CALLS].sort());
  expect(report).toMatchObject({ imported: 1, duplicates: 0, failed: 0 });
  const run = report.runs[0];
  const { rows } = await t.database.db.pool.query<{ episodes: number; status: string; steps: number; distinct_steps: number }>(
    `SELECT count(DISTINCT e.id)::int AS episodes, min(e.status) AS status, count(s.id)::int AS steps, count(DISTINCT s.step_number)::int AS distinct_steps
       FROM episodes e LEFT JOIN steps s ON s.episode_id = e.id`,
  );
  expect(rows[0]).toMatchObject({ episodes: 1, status: 'completed' });
  expect(rows[0]?.steps).toBe(run?.steps);
  expect(rows[0]?.distinct_steps).toBe(run?.steps);
  // Counted as imported; its status says the call, sent again, found the episode its lost first answer made.
  expect(run?.status).toBe('resumed');
});
