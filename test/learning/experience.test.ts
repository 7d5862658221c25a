// Completion turns the journal into experience: reward (with its components and a normalised value)
// and reflection, stored with the ending in its own transaction, for every ending that has an outcome.
import { describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { MAX_REWARD_TOTAL } from '../../src/learning/reward.ts';
import { contentHash } from '../../src/ledger/format/hash.ts';
import { startInput } from '../lifecycle/support.ts';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { err, FAILURE, type Learner, learner, ledger, ok } from './support.ts';

let t: TestApp;
let l: Learner;
useApp((app) => {
  t = app;
  l = learner(t);
});

function expectConsistent(reward: Json) {
  expect(reward.total).toBeCloseTo(reward.base * reward.efficiency * reward.complexityBonus * reward.qualityMultiplier + reward.learningBonus, 10);
  expect(reward.normalized).toBeCloseTo(reward.total / MAX_REWARD_TOTAL, 10);
  expect(reward.normalized).toBeGreaterThanOrEqual(0);
  expect(reward.normalized).toBeLessThanOrEqual(1);
}

describe('reward and reflection on completion', () => {
  it('stores the reward components and the reflection of a clean success', async () => {
    const done = await l.run({ context: { complexity: 'SIMPLE' }, steps: [ok('git'), ok('npm'), ok('shell')] });
    const { reward, reflection } = done.episode;
    expect(reward).toMatchObject({ base: 1, complexityBonus: 1, qualityMultiplier: 1.1 });
    // 3 distinct tools (0.1) + every one of 3 resulted steps succeeded (0.15) + quick and short (0.1)
    expect(reward.learningBonus).toBeCloseTo(0.35, 10);
    expect(reward.efficiency).toBeGreaterThan(1.2);
    expectConsistent(reward);
    expect(reflection.successes[0]).toBe('Completed the task: done');
    expect(reflection.successes).toContain('Produced 1 artifact(s): result.txt');
    expect(reflection.insights).toContain('Effective sequence: git → npm → shell');
    expect(reflection.insights).toContain('Every step that ran succeeded');
    expect(await l.episode(done.episode.id)).toMatchObject({ reward, reflection });
  });

  it('scores a failure by its learning bonus only and says what went wrong', async () => {
    const done = await l.run({ steps: [err('pytest'), err('pytest'), ok('pip')], outcome: FAILURE });
    const { reward, reflection } = done.episode;
    expect(reward.base).toBe(0);
    expect(reward.total).toBeCloseTo(reward.learningBonus, 10);
    expect(reward.qualityMultiplier).toBeCloseTo(0.8, 10); // error rate 2/3 > 0.3
    expectConsistent(reward);
    expect(done.episode.status).toBe('FAILED');
    expect(reflection.improvements[0]).toBe('Failed: tests still failing (gave up)');
    expect(reflection.improvements).toContain('pytest failed 2 times; check its inputs or use another tool');
    expect(reflection.insights[0]).toBe('When pytest hit Boom, switching to pip recovered (step #3)');
  });

  it('rewards a partial outcome by its completed share', async () => {
    const done = await l.run({ steps: [ok('a'), ok('b')], outcome: { kind: 'PARTIAL', verdict: 'most of it', completed: ['x', 'y', 'z'], failed: ['w'] } });
    expect(done.episode.reward.base).toBe(0.75);
    expect(done.episode.reflection.successes[0]).toBe('Completed 3 of 4 items: most of it');
    expect(done.episode.reflection.improvements[0]).toBe('1 item(s) left unfinished, e.g. w');
  });

  it('gives failEpisode and a converged budget stop a reward too, but not a cancellation', async () => {
    const failed = await l.api.startOk();
    await l.api.logStepsOk(failed.id, [ok('curl')]);
    expect((await l.api.fail(failed.id, 'server down')).__typename).toBe('FinishEpisodePayload');
    const f = await l.episode(failed.id);
    expect(f.reward.base).toBe(0);
    expect(f.reflection.improvements[0]).toBe('Failed: server down');

    const converged = await l.api.startOk(startInput({ budget: { maxSteps: 2 }, onBudgetExhausted: 'CONVERGE' }));
    await l.api.logStepsOk(converged.id, [ok('a'), err('b'), ok('c')]);
    const c = await l.episode(converged.id);
    expect(c.status).toBe('COMPLETED');
    expect(c.reward.base).toBe(0.5); // 1 of 2 journaled steps succeeded
    expect(c.reflection.improvements).toContain('Ran out of the steps budget; plan a shorter path or ask for a larger budget');

    const cancelled = await l.api.startOk();
    await l.api.cancel(cancelled.id);
    expect(await l.episode(cancelled.id)).toMatchObject({ reward: null, reflection: null, learningState: null });
  });

  it('puts the hashes of the stored reward and reflection into the ending ledger event', async () => {
    // Tools seen nowhere else: extraction keeps no pattern, so the reward stays what the ending recorded.
    const done = await l.run({ steps: [ok('hash-a'), ok('hash-b')] });
    expect(done.extraction).toMatchObject({ kept: 0 });
    const [event] = (await ledger(t, t.keys.tenantId, 'episode.completed')).filter((e) => e.episodeId === done.episode.id);
    const { rows } = await t.services.db.pool.query('SELECT reward, reflection, reward_score FROM episodes WHERE id = $1', [done.episode.id]);
    expect(must(event).payload.experience).toMatchObject({
      rewardHash: contentHash(rows[0].reward),
      reflectionHash: contentHash(rows[0].reflection),
      reward: rows[0].reward_score,
    });
    expect(rows[0].reward_score).toBe(done.episode.reward.normalized);
  });

  it('re-scores an ended episode when its critique arrives afterwards', async () => {
    const done = await l.run({ steps: [ok('git'), ok('npm')] });
    const before = done.episode.reward;
    await l.api.critique(done.episode.id, 'excellent', 1, [{ name: 'care', score: 1 }]);
    const after = (await l.episode(done.episode.id)).reward;
    // critic 1.0 adds 0.4 × 0.5, virtues 1.0 add 0.2 × 0.5
    expect(after.qualityMultiplier).toBeCloseTo(Math.min(1.5, before.qualityMultiplier + 0.3), 10);
    expect(after.normalized).toBeGreaterThan(before.normalized);
    expect((await l.episode(done.episode.id)).reflection.successes).toContain('Critic scored 1.00: excellent');
  });
});
