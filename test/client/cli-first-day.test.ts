// What a newcomer's first day found in the CLI (issue 53): `show` of something that is not an id
// is a usage error, `show` prints the task's context, `complete --used-retrieval` credits the
// retrieval `relevant` printed, and `import` gives each step with a start and an end its latency.
// The commands run in-process (runCli) against the test server, in order (see the credit test).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EpisodicClient, unwrap } from '../../src/index.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { startInProcess } from './cli-run.ts';
import { clientFor } from './support.ts';

let t: TestApp;
let api: EpisodicClient;
beforeAll(async () => {
  t = await startTestApp();
  api = clientFor(t);
});
afterAll(() => t.stop());

const cli = (...args: string[]) =>
  startInProcess([...args, '--url', t.url, '--key', t.keys.admin], { env: { EPISODIC_DATA_DIR: '/nonexistent/episodic' } }).exited;

describe('episodic on a first day', () => {
  it('show refuses an argument that is not an episode id with a usage error (exit 2), and a well-formed unknown id is not found (exit 4)', async () => {
    const bad = await cli('show', 'not-a-uuid');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^episodic: "not-a-uuid" is not an episode id \(a UUID/);
    expect(bad.stderr).toContain('Usage: episodic show <episodeId>');
    const missing = await cli('show', '00000000-0000-4000-8000-000000000000');
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/NotFoundError/);
  });

  it('show prints the context: domain, language, framework, complexity and tags', async () => {
    const { episode } = unwrap(
      await api.startEpisode({
        taskDescription: 'Speed up the report query',
        taskType: 'perf',
        context: { domain: 'billing', language: 'TypeScript', framework: 'Prisma', complexity: 'MODERATE', tags: ['db', 'slow'] },
      }),
    );
    const r = await cli('show', episode.id);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^context +domain billing, language TypeScript, framework Prisma, complexity moderate$/m);
    expect(r.stdout).toMatch(/^tags +db, slow$/m);
    const { episode: bare } = unwrap(await api.startEpisode({ taskDescription: 'No context at all', taskType: 'perf' }));
    // The server files a task without a stated complexity as moderate; nothing else is printed for it.
    const plain = (await cli('show', bare.id)).stdout;
    expect(plain).toMatch(/^context +complexity moderate$/m);
    expect(plain).not.toMatch(/^tags /m);
  });

  // Not concurrent with the import below: run alongside it, this complete once answered "Unexpected
  // error" (a server fault not yet found, reported with this change).
  it('complete --used-retrieval credits the retrieval relevant printed', async () => {
    const task = 'Rotate the expiring TLS certificate on the staging ingress';
    const { episode: past } = unwrap(await api.startEpisode({ taskDescription: task, taskType: 'ops' }));
    unwrap(await api.completeEpisode(past.id, { kind: 'SUCCESS', verdict: 'renewed with certbot' }));
    const found = await cli('relevant', task, '--json');
    expect(found.code, found.stderr).toBe(0);
    const { retrievalId, episodes } = JSON.parse(found.stdout);
    expect(retrievalId).toMatch(/^[0-9a-f-]{36}$/);
    expect(episodes.map((e: { episode: { id: string } }) => e.episode.id)).toContain(past.id);

    const { episode } = unwrap(await api.startEpisode({ taskDescription: `${task} again`, taskType: 'ops' }));
    const done = await cli('complete', episode.id, '--outcome', 'success', '--verdict', 'same fix', '--used-retrieval', retrievalId);
    expect(done.code, done.stderr).toBe(0);
    const credits = await t.gql<{ episode: { retrievalCredits: Array<{ retrievalIds: string[]; target: number; episodesCredited: number }> } }>(
      'query($id: ID!) { episode(id: $id) { ... on Episode { retrievalCredits { retrievalIds target episodesCredited } } } }',
      { id: episode.id },
      t.keys.admin,
    );
    expect(credits.data?.episode.retrievalCredits).toEqual([{ retrievalIds: [retrievalId], target: 1, episodesCredited: episodes.length }]);
    expect((await cli('complete', '--help')).stdout).toMatch(/--used-retrieval <id>/);
  });

  it('import gives a step with a start and an end time its latency, keeps a latency the run states, and leaves an untimed step without', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'episodic-latency-'));
    try {
      const lines = [
        { type: 'run', id: 'timed-steps', task: 'Steps with their own times', startedAt: '2025-06-01T10:00:00Z', resolved: true },
        { type: 'step', command: 'ls', exitCode: 0, output: 'a', startedAt: '2025-06-01T10:00:10Z', endedAt: '2025-06-01T10:00:11.250Z' },
        { type: 'step', command: 'npm test', exitCode: 0, output: 'ok', startedAt: '2025-06-01T10:01:00Z', endedAt: '2025-06-01T10:02:00Z', latencyMs: 900 },
        { type: 'step', command: 'git diff', exitCode: 0, output: '' },
      ];
      await writeFile(join(dir, 'timed-steps.jsonl'), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
      const r = await cli('import', dir, '--json');
      expect(r.code, r.stderr).toBe(0);
      const episodeId = JSON.parse(r.stdout).runs[0].episodeId;
      const steps = unwrap(await api.episodeSteps(episodeId, { first: 10 })).edges.map((e) => e.node);
      expect(steps.map((s) => [s.action, s.latencyMs])).toEqual([
        ['ls', 1250],
        ['npm test', 900],
        ['git diff', null],
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
