// Budgets are enforced, not advised: the crossing step is recorded, the episode stops with
// budget_exhausted{resource} by its policy (fail | converge), later steps are refused, and wall
// time is enforced by the sweeper even when the agent goes silent.
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { type Client, client, counts, ledgerTypes, sleep, startInput, step, stepNumbers, steps, useApp } from './support.ts';

let t: TestApp;
let api: Client;
// Learning runs as soon as an episode ends and appends patterns.extracted on its own schedule;
// these tests count the events of the lifecycle's own mutations, so no learning worker runs here.
const NO_LEARNING = { LEARNING_WORKERS: '0' };
useApp((app) => ([t, api] = [app, client(app)]), NO_LEARNING);

const usageOf = (episode: Json, resource: string) => episode.budgetUsage.find((b: Json) => b.resource === resource);

describe('step budget', () => {
  it('records the step that reaches maxSteps, rejects the rest of the call, and fails the episode (policy FAIL)', async () => {
    const episode = await api.startOk(startInput({ budget: { maxSteps: 3 } }));
    const r = await api.logStepsOk(episode.id, steps(5));
    expect(r.results.map((x: Json) => [x.status, x.stepNumber, x.reason])).toEqual([
      ['ACCEPTED', 1, null],
      ['ACCEPTED', 2, null],
      ['ACCEPTED', 3, null],
      ['REJECTED', null, 'budget_exhausted'],
      ['REJECTED', null, 'budget_exhausted'],
    ]);
    expect(r).toMatchObject({ accepted: 3, rejected: 2, budgetExhausted: 'steps' });
    expect(r.episode).toMatchObject({
      status: 'FAILED',
      stepCount: 3,
      stopReason: { kind: 'budget_exhausted', resource: 'steps', isSuccessful: false, canContinue: true },
      outcome: { kind: 'FAILURE', reason: 'budget_exceeded' },
    });
    expect(r.episode.outcome.details).toMatch(/step budget exhausted \(used 3 of 3 steps\)/);
    expect(usageOf(r.episode, 'steps')).toEqual({ resource: 'steps', used: 3, limit: 3, remaining: 0, fraction: 1 });
    expect(await stepNumbers(t, episode.id)).toEqual([1, 2, 3]);
  });

  it('refuses every later call with IllegalTransitionError and journals nothing', async () => {
    const episode = await api.startOk(startInput({ budget: { maxSteps: 2 } }));
    expect((await api.logStep(episode.id, step())).budgetExhausted).toBeNull();
    const crossing = await api.logStep(episode.id, step());
    expect(crossing).toMatchObject({ budgetExhausted: 'steps', result: { status: 'ACCEPTED', stepNumber: 2 }, episode: { status: 'FAILED' } });
    const before = await counts(t, t.keys.tenantId);
    expect(await api.logSteps(episode.id, steps(1))).toMatchObject({ __typename: 'IllegalTransitionError', from: 'failed', action: 'logSteps' });
    expect(await api.logStep(episode.id, step())).toMatchObject({ __typename: 'IllegalTransitionError', from: 'failed' });
    expect(await counts(t, t.keys.tenantId)).toEqual(before);
  });

  it('lets no more than maxSteps through when many calls race', async () => {
    const episode = await api.startOk(startInput({ budget: { maxSteps: 5 } }));
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? api.logStep(episode.id, step()) : api.logSteps(episode.id, steps(2)))));
    const items = answers.flatMap((a) => (a.__typename === 'LogStepPayload' ? [a.result] : a.__typename === 'LogStepsPayload' ? a.results : []));
    expect(
      items
        .filter((x: Json) => x.status === 'ACCEPTED')
        .map((x: Json) => x.stepNumber)
        .sort(),
    ).toEqual([1, 2, 3, 4, 5]);
    for (const a of answers) expect(['LogStepPayload', 'LogStepsPayload', 'IllegalTransitionError']).toContain(a.__typename);
    for (const x of items.filter((i: Json) => i.status !== 'ACCEPTED')) expect(x).toMatchObject({ status: 'REJECTED', reason: 'budget_exhausted' });
    expect(await stepNumbers(t, episode.id)).toEqual([1, 2, 3, 4, 5]);
    const types = await ledgerTypes(t, t.keys.tenantId, episode.id);
    expect(types.filter((x) => x === 'episode.budget_exhausted')).toHaveLength(1);
    expect(types.filter((x) => x === 'episode.failed')).toHaveLength(1);
    expect(types[types.length - 1]).toBe('episode.failed');
  });

  it('admits nothing from a call arriving once approval steps have used up the step budget', async () => {
    const episode = await api.startOk(startInput({ budget: { maxSteps: 2 } }));
    await api.logStep(episode.id, step());
    await api.block(episode.id, 'approve?', { op: 'rm' }); // journals step 2: approval_requested
    await api.resume(episode.id); // journals step 3: approval_resolved
    const r = await api.logStepsOk(episode.id, steps(2));
    expect(r).toMatchObject({ accepted: 0, rejected: 2, budgetExhausted: 'steps', episode: { status: 'FAILED', stopReason: { resource: 'steps' } } });
    expect(await stepNumbers(t, episode.id)).toEqual([1, 2, 3]);
  });

  it('shows used against limit before the budget runs out', async () => {
    const episode = await api.startOk(startInput({ budget: { maxSteps: 5, maxTokens: 1000 } }));
    const r = await api.logStepsOk(episode.id, [step({ tokens: 100 }), step({ tokens: 150 })]);
    expect(r.budgetExhausted).toBeNull();
    expect(r.episode.status).toBe('RUNNING');
    expect(usageOf(r.episode, 'steps')).toEqual({ resource: 'steps', used: 2, limit: 5, remaining: 3, fraction: 0.4 });
    expect(usageOf(r.episode, 'tokens')).toEqual({ resource: 'tokens', used: 250, limit: 1000, remaining: 750, fraction: 0.25 });
    expect(usageOf(r.episode, 'wall_time')).toMatchObject({ limit: null, remaining: null });
    expect(usageOf(r.episode, 'wall_time').used).toBeGreaterThanOrEqual(0);
  });
});

describe('token budget', () => {
  it('records the step that crosses maxTokens and stops the episode with resource tokens', async () => {
    const episode = await api.startOk(startInput({ budget: { maxTokens: 100 } }));
    const r = await api.logStepsOk(episode.id, [step({ tokens: 40 }), step({ tokens: 40 }), step({ tokens: 40 }), step({ tokens: 1 })]);
    expect(r.results.map((x: Json) => x.status)).toEqual(['ACCEPTED', 'ACCEPTED', 'ACCEPTED', 'REJECTED']);
    expect(r.results[3].reason).toBe('budget_exhausted');
    expect(r).toMatchObject({
      budgetExhausted: 'tokens',
      episode: { status: 'FAILED', usedTokens: '120', stopReason: { kind: 'budget_exhausted', resource: 'tokens' } },
    });
    expect(usageOf(r.episode, 'tokens')).toEqual({ resource: 'tokens', used: 120, limit: 100, remaining: 0, fraction: 1.2 });
    expect(r.episode.outcome.details).toMatch(/token budget exhausted \(used 120 of 100 tokens\)/);
  });
});

describe('converge policy', () => {
  it('completes the episode with a PARTIAL outcome summarising what succeeded and what failed', async () => {
    const episode = await api.startOk(startInput({ budget: { maxSteps: 3 }, onBudgetExhausted: 'CONVERGE' }));
    const r = await api.logStepsOk(episode.id, [
      step({ tool: 'git', action: 'clone' }),
      step({ tool: 'npm', action: 'test', result: { kind: 'ERROR', message: 'red' } }),
      step({ tool: 'npm', action: 'build', result: { kind: 'TIMEOUT' } }),
      step({ tool: 'npm', action: 'publish' }),
    ]);
    expect(r.results.map((x: Json) => x.status)).toEqual(['ACCEPTED', 'ACCEPTED', 'ACCEPTED', 'REJECTED']);
    expect(r.episode).toMatchObject({
      status: 'COMPLETED',
      stopReason: { kind: 'budget_exhausted', resource: 'steps', isSuccessful: false, canContinue: true },
      outcome: { kind: 'PARTIAL', completed: ['#1 git: clone'], failed: ['#2 npm: test', '#3 npm: build'] },
    });
    expect(r.episode.outcome.verdict).toBe('Ran out of budget: step budget exhausted (used 3 of 3 steps) after 3 steps; 1 succeeded, 2 failed.');
    expect(await ledgerTypes(t, t.keys.tenantId, episode.id)).toEqual(['episode.started', 'steps.logged', 'episode.budget_exhausted', 'episode.completed']);
  });

  it('converges on tokens too', async () => {
    const episode = await api.startOk(startInput({ budget: { maxTokens: 10 }, onBudgetExhausted: 'CONVERGE' }));
    const r = await api.logStep(episode.id, step({ tokens: 11 }));
    expect(r).toMatchObject({ budgetExhausted: 'tokens', episode: { status: 'COMPLETED', outcome: { kind: 'PARTIAL' }, stopReason: { resource: 'tokens' } } });
  });
});

describe('wall time', () => {
  it('is enforced by the sweeper when the agent goes silent, failing the episode even under CONVERGE', async () => {
    const quiet = await t.addTenant('silent-agent');
    const episode = await client(t, quiet.write).startOk(startInput({ budget: { maxWallMs: 300 }, onBudgetExhausted: 'CONVERGE' }));
    expect(episode.deadlineAt).not.toBeNull();
    expect(new Date(episode.deadlineAt).getTime() - new Date(episode.startedAt).getTime()).toBe(300);
    let seen: Json = episode;
    const giveUp = Date.now() + 45_000; // the job polls every 0.5 s; a busy machine delays it
    while (seen.status === 'RUNNING' && Date.now() < giveUp) {
      await sleep(200);
      seen = await client(t, quiet.read).episode(episode.id);
    }
    expect(seen).toMatchObject({
      status: 'FAILED',
      stopReason: { kind: 'budget_exhausted', resource: 'wall_time', isSuccessful: false, canContinue: true },
      outcome: { kind: 'FAILURE', reason: 'budget_exceeded' },
    });
    expect(new Date(seen.endedAt).getTime()).toBeGreaterThanOrEqual(new Date(episode.deadlineAt).getTime());
    expect(await ledgerTypes(t, quiet.tenantId, episode.id)).toEqual(['episode.started', 'episode.budget_exhausted', 'episode.failed']);
  });

  it('is enforced on a blocked episode waiting for approval', async () => {
    const quiet = await t.addTenant('blocked-agent');
    const api2 = client(t, quiet.write);
    // Blocked well before its deadline (a 300 ms budget ran out before the block call on a busy
    // machine); then the clock moves past the deadline for the episode and its deadline job alike.
    const episode = await api2.startOk(startInput({ budget: { maxWallMs: 3_600_000 } }));
    expect((await api2.block(episode.id, 'approve?')).episode.status).toBe('BLOCKED');
    await t.services.db.pool.query(
      `UPDATE episodes SET started_at = started_at - interval '2 hours', deadline_at = deadline_at - interval '2 hours' WHERE id = $1`,
      [episode.id],
    );
    const moved = await t.services.db.pool.query(`UPDATE pgboss.job SET start_after = now() WHERE name = 'episode-deadline' AND singleton_key = $1`, [
      episode.id,
    ]);
    expect(moved.rowCount).toBe(1);
    let seen: Json = episode;
    const giveUp = Date.now() + 45_000;
    while (seen.status !== 'FAILED' && Date.now() < giveUp) {
      await sleep(200);
      seen = await api2.episode(episode.id);
    }
    expect(seen).toMatchObject({ status: 'FAILED', blockedReason: null, stopReason: { kind: 'budget_exhausted', resource: 'wall_time' } });
  });

  it('refuses a completion, block or critique that arrives after the deadline: the episode fails on wall time first', async () => {
    // The deadline job has not run (the clock moved, not the job): each call must notice itself.
    for (const late of [(id: string) => api.complete(id), (id: string) => api.block(id), (id: string) => api.critique(id)]) {
      const episode = await api.startOk(startInput({ budget: { maxWallMs: 3_600_000 } }));
      await t.services.db.pool.query(`UPDATE episodes SET started_at = started_at - interval '2 hours' WHERE id = $1`, [episode.id]);
      expect(await late(episode.id)).toMatchObject({ __typename: 'IllegalTransitionError', from: 'failed' });
      expect(await api.episode(episode.id)).toMatchObject({
        status: 'FAILED',
        outcome: { kind: 'FAILURE', reason: 'budget_exceeded' },
        stopReason: { kind: 'budget_exhausted', resource: 'wall_time' },
      });
      expect(await ledgerTypes(t, t.keys.tenantId, episode.id)).toEqual(['episode.started', 'episode.budget_exhausted', 'episode.failed']);
    }
  });

  it('admits nothing from a logSteps that arrives after the deadline', async () => {
    // An hour's budget whose hour has passed (the clock moved, not the deadline job): the call itself must notice.
    const episode = await api.startOk(startInput({ budget: { maxWallMs: 3_600_000 } }));
    await t.services.db.pool.query(`UPDATE episodes SET started_at = started_at - interval '2 hours' WHERE id = $1`, [episode.id]);
    const r = await api.logStepsOk(episode.id, steps(3));
    expect(r).toMatchObject({ accepted: 0, rejected: 3, budgetExhausted: 'wall_time' });
    expect(r.results.map((x: Json) => x.reason)).toEqual(['budget_exhausted', 'budget_exhausted', 'budget_exhausted']);
    expect(r.episode).toMatchObject({ status: 'FAILED', stepCount: 0, stopReason: { kind: 'budget_exhausted', resource: 'wall_time' } });
    expect(await stepNumbers(t, episode.id)).toEqual([]);
    expect(await ledgerTypes(t, t.keys.tenantId, episode.id)).toEqual(['episode.started', 'episode.budget_exhausted', 'episode.failed']);
  });
});
