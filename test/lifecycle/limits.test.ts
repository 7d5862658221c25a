// Input limits (the episode, step and goal spec limits): a violation is a typed InputLimitError naming the
// field and the limit, and nothing is written; exactly at the limit passes.
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { type Client, client, counts, range, startInput, step, stepNumbers, steps, useApp } from './support.ts';

let t: TestApp;
let api: Client;
useApp((app) => ([t, api] = [app, client(app)]));

const KB10 = 10 * 1024;
const KB256 = 256 * 1024;
const MB1 = 1024 * 1024;

/** Runs `act` and proves it answered InputLimitError with exactly these (field, limit) pairs and wrote nothing. */
async function expectRefused(act: () => Promise<Json>, expected: Array<{ field: string; limit: string; actual?: string }>) {
  const before = await counts(t, t.keys.tenantId);
  const result = await act();
  expect(result.__typename).toBe('InputLimitError');
  expect(result.violations).toEqual(expected.map((v) => expect.objectContaining(v)));
  for (const v of result.violations) expect(v.message).toContain(v.field);
  expect(await counts(t, t.keys.tenantId)).toEqual(before);
  return result;
}

describe('startEpisode limits', () => {
  it('refuses a task description over 256 KB (counted in UTF-8 bytes) and writes nothing', async () => {
    await expectRefused(
      () => api.start(startInput({ taskDescription: 'a'.repeat(KB256 + 1) })),
      [{ field: 'input.taskDescription', limit: String(KB256), actual: String(KB256 + 1) }],
    );
    // Two-byte characters: under 256 K characters but over 256 KB.
    await expectRefused(
      () => api.start(startInput({ taskDescription: 'é'.repeat(KB256 / 2 + 1) })),
      [{ field: 'input.taskDescription', limit: String(KB256), actual: String(KB256 + 2) }],
    );
  });

  it('accepts a task description of exactly 256 KB', async () => {
    const episode = await api.startOk(startInput({ taskDescription: 'é'.repeat(KB256 / 2) }));
    expect(Buffer.byteLength(episode.taskDescription)).toBe(KB256);
  });

  it('refuses a goal spec with a NUL byte, naming the path of the offending string', async () => {
    await expectRefused(() => api.start(startInput({ goalSpec: 'build\u0000it' })), [{ field: 'input.goalSpec', limit: 'no NUL characters' }]);
    await expectRefused(
      () => api.start(startInput({ goalSpec: { criteria: ['tests pass', 'no\u0000nul'] } })),
      [{ field: 'input.goalSpec.criteria.1', limit: 'no NUL characters' }],
    );
  });

  it('refuses a goal spec over 64 KB and accepts one of exactly 64 KB', async () => {
    await expectRefused(
      () => api.start(startInput({ goalSpec: 'g'.repeat(64 * 1024 + 1) })),
      [{ field: 'input.goalSpec', limit: String(64 * 1024), actual: String(64 * 1024 + 1) }],
    );
    const spec = { criteria: 'g'.repeat(64 * 1024 - '{"criteria":""}'.length) };
    expect(JSON.stringify(spec).length).toBe(64 * 1024);
    const episode = await api.startOk(startInput({ goalSpec: spec }));
    expect(episode.goalSpec).toEqual(spec);
  });

  it('reports every violation of one input at once', async () => {
    await expectRefused(
      () => api.start(startInput({ taskDescription: 'x'.repeat(KB256 + 1), budget: { maxSteps: 1001 }, goalSpec: '\u0000' })),
      [
        { field: 'input.taskDescription', limit: String(KB256) },
        { field: 'input.goalSpec', limit: 'no NUL characters' },
        { field: 'input.budget.maxSteps', limit: 'integer from 1 to 1000' },
      ],
    );
  });
});

describe('logSteps limits', () => {
  it('refuses a batch with one observation over 10 KB and journals none of its steps', async () => {
    const episode = await api.startOk();
    const batch = [step(), step(), step({ observation: 'o'.repeat(KB10 + 1) })];
    await expectRefused(() => api.logSteps(episode.id, batch), [{ field: 'steps.2.observation', limit: String(KB10), actual: String(KB10 + 1) }]);
    expect(await stepNumbers(t, episode.id)).toEqual([]);
    const ok = await api.logStepsOk(episode.id, [step({ observation: 'o'.repeat(KB10) })]);
    expect(ok.accepted).toBe(1);
  });

  it('names the field of logStep by the argument the client sent', async () => {
    const episode = await api.startOk();
    await expectRefused(
      () => api.logStep(episode.id, step({ observation: 'o'.repeat(KB10 + 1) })),
      [{ field: 'step.observation', limit: String(KB10), actual: String(KB10 + 1) }],
    );
  });

  it('refuses parameters over 1 MB and accepts parameters of exactly 1 MB', async () => {
    const episode = await api.startOk();
    const wrapper = '{"blob":""}'.length;
    await expectRefused(
      () => api.logSteps(episode.id, [step({ parameters: { blob: 'p'.repeat(MB1 - wrapper + 1) } })]),
      [{ field: 'steps.0.parameters', limit: String(MB1), actual: String(MB1 + 1) }],
    );
    const exact = { blob: 'p'.repeat(MB1 - wrapper) };
    expect(JSON.stringify(exact).length).toBe(MB1);
    const ok = await api.logStepsOk(episode.id, [step({ parameters: exact })]);
    expect(ok.results[0].status).toBe('ACCEPTED');
  });

  it('refuses more than 1000 steps in one call and writes nothing', async () => {
    const episode = await api.startOk();
    await expectRefused(() => api.logSteps(episode.id, steps(1001)), [{ field: 'steps', limit: '1000', actual: '1001' }]);
    expect(await stepNumbers(t, episode.id)).toEqual([]);
  });

  it('accepts exactly 1000 steps, then refuses the 1001st of the episode with reason step_limit', async () => {
    const episode = await api.startOk();
    const full = await api.logStepsOk(
      episode.id,
      steps(1000, (i) => ({ action: `a${i}` })),
    );
    expect(full.accepted).toBe(1000);
    expect(full.results.map((r: Json) => r.stepNumber)).toEqual(range(1, 1000));

    const before = await counts(t, t.keys.tenantId);
    const more = await api.logStepsOk(episode.id, [step({ action: 'one too many' })]);
    expect(more).toMatchObject({ accepted: 0, rejected: 1, results: [{ status: 'REJECTED', reason: 'step_limit', stepNumber: null, step: null }] });
    expect(more.results[0].message).toMatch(/1000/);
    expect(more.episode).toMatchObject({ status: 'RUNNING', stepCount: 1000 });
    expect(await counts(t, t.keys.tenantId)).toEqual(before);
    expect(await stepNumbers(t, episode.id)).toEqual(range(1, 1000));
  });

  it('keeps approval steps within the 1000-step cap: a block needs journal room for its approval steps', async () => {
    const episode = await api.startOk();
    await api.logStepsOk(episode.id, steps(999));
    await expectRefused(() => api.block(episode.id, 'approve?', { op: 'deploy' }), [{ field: 'approvalRequest', limit: '1000', actual: '1001' }]);
    await api.logStep(episode.id, step());
    await expectRefused(() => api.block(episode.id, 'waiting'), [{ field: 'episodeId', limit: '1000', actual: '1001' }]);
    expect(await stepNumbers(t, episode.id)).toEqual(range(1, 1000));

    const roomy = await api.startOk();
    await api.logStepsOk(roomy.id, steps(998));
    expect((await api.block(roomy.id, 'approve?', { op: 'deploy' })).episode.stepCount).toBe(999);
    expect((await api.resume(roomy.id)).episode).toMatchObject({ status: 'RUNNING', stepCount: 1000 });
    expect(await stepNumbers(t, roomy.id)).toEqual(range(1, 1000));
  });

  it('refuses the steps that would grow an episode past 10 MB with reason episode_size_limit', async () => {
    const episode = await api.startOk();
    const big = () => step({ parameters: { blob: 'b'.repeat(1_000_000) } });
    const first = await api.logStepsOk(episode.id, Array.from({ length: 6 }, big));
    expect(first.accepted).toBe(6);
    const second = await api.logStepsOk(episode.id, Array.from({ length: 6 }, big));
    // ~1 MB each: the 10th still fits under 10 MiB, the 11th does not.
    expect(second.results.map((r: Json) => r.status)).toEqual(['ACCEPTED', 'ACCEPTED', 'ACCEPTED', 'ACCEPTED', 'REJECTED', 'REJECTED']);
    expect(second.results[4].reason).toBe('episode_size_limit');
    expect(await stepNumbers(t, episode.id)).toEqual(range(1, 10));
    const { rows } = await t.services.db.pool.query('SELECT size_bytes::int AS size FROM episodes WHERE id = $1', [episode.id]);
    expect(rows[0].size).toBeLessThanOrEqual(10 * MB1);
  });
});
