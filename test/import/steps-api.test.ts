// What importing real runs needs from logSteps, startEpisode and completeEpisode, through the API:
// large text kept as blobs (read back under tenant rules, covered by the step hash) or truncated,
// ERROR output kept, per-step refusals, and historical times (validated, used by wall time).
import { describe, expect, it } from 'vitest';
import { type EpisodicClient, unwrap } from '../../src/client/index.ts';
import { must } from '../../src/core/must.ts';
import { blobHash } from '../../src/steps/large-content.ts';
import { clientFor } from '../client/support.ts';
import { startTestApp, type TestApp, useApp } from '../support/app.ts';

let t: TestApp;
let api: EpisodicClient;
useApp((app) => {
  t = app;
  api = clientFor(t, t.keys.write);
});

const KB = 1024;
const start = async (c: EpisodicClient = api, extra: object = {}) =>
  unwrap(await c.startEpisode({ taskDescription: 'import a run', taskType: 'import', ...extra })).episode;

async function stepsOf(id: string) {
  const page = await api.episodeSteps(id);
  if (page.__typename !== 'EpisodeStepsConnection') throw new Error(page.message);
  return page.edges.map((e) => e.node);
}

describe('large content', () => {
  it('keeps an 868 KB observation whole as a blob, readable by its hash, with a preview inline', async () => {
    const episode = await start();
    const observation = `head line\n${'y'.repeat(868 * KB)}\ntail line`;
    const logged = unwrap(await api.logSteps(episode.id, [{ tool: 'shell', action: 'cat big.log', observation }], { largeContent: 'BLOB' }));
    expect(logged.accepted).toBe(1);
    const [step] = await stepsOf(episode.id);
    expect(must(step).contentRefs).toEqual([{ field: 'observation', hash: blobHash(observation), sizeBytes: Buffer.byteLength(observation), stored: true }]);
    expect(Buffer.byteLength(must(must(step).observation))).toBeLessThanOrEqual(10 * KB);
    expect(must(step).observation).toMatch(/^head line\n/);
    expect(must(step).observation).toMatch(/\ntail line$/);
    const blob = await api.blob(blobHash(observation));
    expect(blob).toMatchObject({ __typename: 'Blob', content: observation, sizeBytes: Buffer.byteLength(observation) });
    expect(unwrap(await api.verifyLedger()).ok).toBe(true);
  });

  it('serves a blob only to its own tenant', async () => {
    const episode = await start();
    const output = 'z'.repeat(2 * KB * KB);
    unwrap(await api.logSteps(episode.id, [{ tool: 'test', result: { kind: 'SUCCESS', output } }], { largeContent: 'BLOB' }));
    const other = clientFor(t, (await t.addTenant('blob-outsider')).read);
    expect(await other.blob(blobHash(output))).toMatchObject({ __typename: 'NotFoundError' });
    expect(await api.blob(blobHash(output))).toMatchObject({ __typename: 'Blob' });
  });

  it('detects a blob reference edited in the table: the step hash covers it', async () => {
    const episode = await start();
    const observation = 'w'.repeat(20 * KB);
    unwrap(await api.logSteps(episode.id, [{ tool: 'shell', observation }], { largeContent: 'BLOB' }));
    await t.database.db.pool.query(`UPDATE steps SET content_refs = jsonb_set(content_refs, '{observation,sizeBytes}', '1') WHERE episode_id = $1`, [
      episode.id,
    ]);
    expect(unwrap(await api.verifyLedger())).toMatchObject({ ok: false, reason: expect.stringMatching(/differs from what was logged/) });
    await t.database.db.pool.query(`UPDATE steps SET content_refs = jsonb_set(content_refs, '{observation,sizeBytes}', $2) WHERE episode_id = $1`, [
      episode.id,
      String(20 * KB),
    ]);
  });

  it('truncates on request: head and tail inline, the original size and hash recorded, no blob', async () => {
    const episode = await start();
    const message = `Traceback\n${'e'.repeat(50 * KB)}\nValueError: boom`;
    unwrap(await api.logSteps(episode.id, [{ tool: 'test', result: { kind: 'ERROR', message } }], { largeContent: 'TRUNCATE' }));
    const [step] = await stepsOf(episode.id);
    expect(must(step).contentRefs).toEqual([{ field: 'result.message', hash: blobHash(message), sizeBytes: Buffer.byteLength(message), stored: false }]);
    expect((must(step).result as { message: string }).message).toMatch(/^Traceback\n[\s\S]*truncated[\s\S]*ValueError: boom$/);
    expect(await api.blob(blobHash(message))).toMatchObject({ __typename: 'NotFoundError' });
  });

  it('keeps the output of an ERROR result, and still refuses large text by default', async () => {
    const episode = await start();
    unwrap(
      await api.logSteps(episode.id, [
        { tool: 'test', result: { kind: 'ERROR', message: 'exit code 1', errorClass: 'exit_1', output: 'FAILED test_a\nFAILED test_b' } },
      ]),
    );
    expect(must((await stepsOf(episode.id))[0]).result).toEqual({ message: 'exit code 1', errorClass: 'exit_1', output: 'FAILED test_a\nFAILED test_b' });
    const refused = await api.logSteps(episode.id, [{ tool: 'shell', observation: 'o'.repeat(10 * KB + 1) }]);
    expect(refused).toMatchObject({ __typename: 'InputLimitError', violations: [{ field: 'steps.0.observation', limit: String(10 * KB) }] });
  });

  it('refuses a step whose new blob would pass the tenant cap, and accepts one within it', async () => {
    const capped = await startTestApp({ BLOB_TOTAL_CAP_BYTES: String(100 * KB) });
    try {
      const c = clientFor(capped, capped.keys.write);
      const episode = await start(c);
      const logged = unwrap(
        await c.logSteps(
          episode.id,
          [
            { tool: 'a', observation: 'a'.repeat(60 * KB) },
            { tool: 'b', observation: 'b'.repeat(60 * KB) },
            { tool: 'c', observation: 'a'.repeat(60 * KB) },
          ],
          { largeContent: 'BLOB' },
        ),
      );
      expect(logged.results.map((r) => [r.status, r.reason])).toEqual([
        ['ACCEPTED', null],
        ['REJECTED', 'blob_cap'],
        ['ACCEPTED', null],
      ]);
      const { rows } = await capped.database.db.pool.query('SELECT bytes::int AS bytes FROM blob_usage');
      expect(rows).toEqual([{ bytes: 60 * KB }]);
    } finally {
      await capped.stop();
    }
  });
});

describe('per-step refusals', () => {
  it('rejects only the steps that break a limit, with their violations, and numbers the rest contiguously', async () => {
    const episode = await start();
    const logged = unwrap(
      await api.logSteps(episode.id, [{ tool: 'ok-1' }, { tool: 'bad', observation: 'nul\u0000here' }, { tool: 'ok-2' }, { kind: 'Bad Kind', tool: 'bad' }], {
        onInvalidStep: 'REJECT_STEP',
      }),
    );
    expect(logged).toMatchObject({ accepted: 2, rejected: 2 });
    expect(logged.results.map((r) => [r.index, r.status, r.stepNumber, r.reason])).toEqual([
      [0, 'ACCEPTED', 1, null],
      [1, 'REJECTED', null, 'invalid'],
      [2, 'ACCEPTED', 2, null],
      [3, 'REJECTED', null, 'invalid'],
    ]);
    expect(must(logged.results[1]).violations).toMatchObject([{ field: 'steps.1.observation', limit: 'no NUL characters' }]);
    expect((await stepsOf(episode.id)).map((s) => s.tool)).toEqual(['ok-1', 'ok-2']);
  });
});

describe('historical times', () => {
  it('refuses a start in the future and an end before the start, changing nothing', async () => {
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect(await api.startEpisode({ taskDescription: 'x', taskType: 'import', startedAt: future })).toMatchObject({
      __typename: 'InputLimitError',
      violations: [{ field: 'input.startedAt', limit: 'not in the future' }],
    });
    const episode = await start(api, { startedAt: '2025-01-01T10:00:00.000Z' });
    expect(await api.completeEpisode(episode.id, { kind: 'SUCCESS', verdict: 'ok' }, [], { endedAt: '2024-12-31T00:00:00.000Z' })).toMatchObject({
      __typename: 'InputLimitError',
      violations: [{ field: 'endedAt' }],
    });
    expect(unwrap(await api.episode(episode.id)).status).toBe('RUNNING');
  });

  it('refuses a step dated before its episode or ending before it starts; wall time and the reward use the real times', async () => {
    const episode = await start(api, { startedAt: '2025-01-01T10:00:00.000Z', budget: { maxWallMs: 3_600_000 } });
    expect(episode.deadlineAt).toBeNull();
    const logged = unwrap(
      await api.logSteps(
        episode.id,
        [
          { tool: 'early', startedAt: '2024-12-31T23:59:00.000Z' },
          { tool: 'backwards', startedAt: '2025-01-01T10:05:00.000Z', endedAt: '2025-01-01T10:04:00.000Z' },
          { tool: 'ok', startedAt: '2025-01-01T10:01:00.000Z', endedAt: '2025-01-01T10:02:00.000Z' },
        ],
        { onInvalidStep: 'REJECT_STEP' },
      ),
    );
    expect(logged.results.map((r) => r.reason)).toEqual(['time_order', 'invalid', null]);
    const done = unwrap(await api.completeEpisode(episode.id, { kind: 'SUCCESS', verdict: 'ok', artifacts: ['a.py'] }));
    expect(done.episode).toMatchObject({ status: 'COMPLETED', startedAt: '2025-01-01T10:00:00.000Z', endedAt: '2025-01-01T10:02:00.000Z' });
    expect(done.episode.budgetUsage.find((b) => b.resource === 'wall_time')).toMatchObject({ used: 120_000 });
    const page = await api.ledgerEvents({ filter: { episodeId: episode.id } });
    if (page.__typename !== 'LedgerEventConnection') throw new Error(page.message);
    expect(must(page.events.find((e) => e.type === 'episode.completed')).payload).toMatchObject({ usage: { wallMs: 120_000 } });
  });

  it('keeps artifacts on a failed outcome', async () => {
    const episode = await start();
    const done = unwrap(await api.completeEpisode(episode.id, { kind: 'FAILURE', reason: 'tests fail', artifacts: ['src/a.py'] }));
    expect(done.episode.outcome).toMatchObject({ kind: 'FAILURE', artifacts: ['src/a.py'] });
  });
});
