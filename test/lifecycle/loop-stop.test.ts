// The server evaluates the stop conditions for a work item's loop of episodes when an episode
// ends, in priority order (budget exhaustion > the holon's own stop > max episodes), records them on
// the work item and in the ledger, refuses further starts with LoopStoppedError, and lets an
// operator resume the loop.
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { type Client, client, counts, startInput, step, useApp } from './support.ts';

let t: TestApp;
let api: Client;
useApp((app) => ([t, api] = [app, client(app)]));

const PARTIAL = { kind: 'PARTIAL', verdict: 'not there yet', completed: ['a'], failed: [] };
const SUCCESS = { kind: 'SUCCESS', verdict: 'done', artifacts: [] };

/** Expects the start to be refused with LoopStoppedError carrying `stop`, and nothing written. */
async function expectStopped(input: Record<string, unknown>, stop: Record<string, unknown>) {
  const before = await counts(t, t.keys.tenantId);
  const refused = await api.start(startInput(input));
  expect(refused).toMatchObject({ __typename: 'LoopStoppedError', stopCondition: stop });
  expect(await counts(t, t.keys.tenantId)).toEqual(before);
  return refused;
}

async function stoppedEvents(workItemId: string): Promise<Json[]> {
  const { rows } = await t.services.db.pool.query(
    `SELECT type, episode_id AS "episodeId", payload FROM ledger_events WHERE tenant_id = $1 AND work_item_id = $2 AND type IN ('work_item.stopped', 'work_item.resumed') ORDER BY seq`,
    [t.keys.tenantId, workItemId],
  );
  return rows;
}

describe('the loop of a work item', () => {
  it('goes on after PARTIAL, stops when the holon reaches its goal, and refuses the next start until resumed', async () => {
    const workItem = await api.createWorkItem('loop');
    const first = await api.startOk(startInput({ workItemId: workItem.id }));
    expect((await api.complete(first.id, PARTIAL)).stopCondition).toBeNull();
    const second = await api.startOk(startInput({ workItemId: workItem.id }));
    const done = await api.complete(second.id, SUCCESS);
    expect(done.stopCondition).toEqual({ kind: 'completed', resource: null, reason: null, recoverable: null, isSuccessful: true, canContinue: false });
    expect(await api.workItem(workItem.id)).toMatchObject({ stopCondition: { kind: 'completed' }, stoppedAt: expect.any(String) });

    const refused = await expectStopped({ workItemId: workItem.id }, { kind: 'completed' });
    expect(refused).toMatchObject({ workItemId: workItem.id, message: expect.stringContaining('resumeWorkItem') });

    const resumed = await api.resumeWorkItem(workItem.id);
    expect(resumed.workItem).toMatchObject({ stopCondition: null, stoppedAt: null });
    expect((await api.startOk(startInput({ workItemId: workItem.id }))).episodeNumber).toBe(3);
    expect(await stoppedEvents(workItem.id)).toEqual([
      {
        type: 'work_item.stopped',
        episodeId: second.id,
        payload: { stopCondition: { kind: 'completed' }, leaseId: null, episodesExecuted: 2, maxEpisodes: null },
      },
      { type: 'work_item.resumed', episodeId: null, payload: { previousStopCondition: { kind: 'completed' }, maxEpisodes: null } },
    ]);
  });

  it('stops at max episodes exactly, and resumes only with a higher maxEpisodes', async () => {
    const workItem = await api.createWorkItem('bounded', 2);
    expect(workItem).toMatchObject({ maxEpisodes: 2, stopCondition: null });
    for (const expected of [null, { kind: 'max_episodes', canContinue: true }]) {
      const episode = await api.startOk(startInput({ workItemId: workItem.id }));
      const ended = await api.complete(episode.id, PARTIAL);
      if (expected === null) expect(ended.stopCondition).toBeNull();
      else expect(ended.stopCondition).toMatchObject(expected);
    }
    await expectStopped({ workItemId: workItem.id }, { kind: 'max_episodes' });

    const before = await counts(t, t.keys.tenantId);
    expect(await api.resumeWorkItem(workItem.id)).toMatchObject({
      __typename: 'InputLimitError',
      violations: [{ field: 'maxEpisodes', limit: '> 2', actual: '2' }],
    });
    expect(await api.resumeWorkItem(workItem.id, 0)).toMatchObject({ __typename: 'InputLimitError', violations: [{ field: 'maxEpisodes' }] });
    expect(await counts(t, t.keys.tenantId)).toEqual(before);
    expect((await api.resumeWorkItem(workItem.id, 3)).workItem).toMatchObject({ maxEpisodes: 3, stopCondition: null });
    await api.startOk(startInput({ workItemId: workItem.id }));
    await expectStopped({ workItemId: workItem.id }, { kind: 'max_episodes' });
  });

  it('lets no more than maxEpisodes concurrent starts through', async () => {
    const workItem = await api.createWorkItem('concurrent', 3);
    const results = await Promise.all(Array.from({ length: 8 }, () => api.start(startInput({ workItemId: workItem.id }))));
    expect(results.filter((r) => r.__typename === 'StartEpisodePayload')).toHaveLength(3);
    expect(results.filter((r) => r.__typename === 'LoopStoppedError').map((r) => r.stopCondition.kind)).toEqual(Array(5).fill('max_episodes'));
  });

  it('ranks the lease budget before max episodes, and the holon’s own stop before max episodes', async () => {
    const spent = await api.createWorkItem('spent', 1);
    const lease = await api.issueLeaseOk({ workItemId: spent.id, budget: { episodes: 1 } });
    const last = await api.startOk(startInput({ leaseId: lease.id }));
    expect((await api.complete(last.id, PARTIAL)).stopCondition).toMatchObject({ kind: 'budget_exhausted', resource: 'episodes' });

    const escalating = await api.createWorkItem('escalating', 1);
    const episode = await api.startOk(startInput({ workItemId: escalating.id }));
    expect((await api.escalate(episode.id, 'needs a human')).stopCondition).toMatchObject({ kind: 'escalated', reason: 'needs a human', canContinue: false });
  });

  it('lets a holon that reaches its goal with the last episode of the lease complete, but stops one that would go on', async () => {
    const exact = await api.createWorkItem('exact');
    const lease = await api.issueLeaseOk({ workItemId: exact.id, budget: { episodes: 1 } });
    const done = await api.complete((await api.startOk(startInput({ leaseId: lease.id }))).id, SUCCESS);
    // The deduction succeeded (ok) and used the last episode: the holon's own stop stands.
    expect(done.leaseCharge).toMatchObject({ ok: true, exhausted: 'episodes' });
    expect(done.stopCondition).toMatchObject({ kind: 'completed' });

    const going = await api.createWorkItem('going on');
    const lease2 = await api.issueLeaseOk({ workItemId: going.id, budget: { episodes: 2 } });
    expect((await api.complete((await api.startOk(startInput({ leaseId: lease2.id }))).id, PARTIAL)).stopCondition).toBeNull();
    const second = await api.complete((await api.startOk(startInput({ leaseId: lease2.id }))).id, PARTIAL);
    expect(second.leaseCharge).toMatchObject({ ok: true, exhausted: 'episodes' });
    expect(second.stopCondition).toMatchObject({ kind: 'budget_exhausted', resource: 'episodes', canContinue: true });
  });

  it('does not stop for an episode stopped by its own smaller budget, nor for an operator’s cancel', async () => {
    const workItem = await api.createWorkItem('own budget');
    const lease = await api.issueLeaseOk({ workItemId: workItem.id, budget: { tokens: 1000 } });
    const small = await api.startOk(startInput({ leaseId: lease.id, budget: { maxSteps: 1 } }));
    const r = await api.logStepsOk(small.id, [step(), step()]);
    expect(r).toMatchObject({ budgetExhausted: 'steps', episode: { status: 'FAILED' } });
    const cancelled = await api.startOk(startInput({ leaseId: lease.id }));
    expect((await api.cancel(cancelled.id)).stopCondition).toBeNull();
    expect(await api.workItem(workItem.id)).toMatchObject({ stopCondition: null });
    await api.startOk(startInput({ leaseId: lease.id }));
    expect(await stoppedEvents(workItem.id)).toEqual([]);
  });

  it('stops on a failed episode with the holon’s error, and on a FAILURE outcome', async () => {
    const failing = await api.createWorkItem('failing');
    const episode = await api.startOk(startInput({ workItemId: failing.id }));
    expect((await api.fail(episode.id, 'tool crashed', true)).stopCondition).toMatchObject({
      kind: 'error',
      reason: 'tool crashed',
      recoverable: true,
      canContinue: false,
    });

    const failure = await api.createWorkItem('failure');
    const other = await api.startOk(startInput({ workItemId: failure.id }));
    expect((await api.complete(other.id, { kind: 'FAILURE', reason: 'tests fail' })).stopCondition).toMatchObject({ kind: 'failed', reason: 'tests fail' });
    await expectStopped({ workItemId: failure.id }, { kind: 'failed' });
  });

  it('keeps the first stop when a concurrent episode ends afterwards', async () => {
    const workItem = await api.createWorkItem('concurrent endings');
    const a = await api.startOk(startInput({ workItemId: workItem.id }));
    const b = await api.startOk(startInput({ workItemId: workItem.id }));
    await api.complete(a.id, SUCCESS);
    expect((await api.escalate(b.id)).stopCondition).toMatchObject({ kind: 'completed' });
    expect((await stoppedEvents(workItem.id)).map((e) => e.type)).toEqual(['work_item.stopped']);
  });
});
