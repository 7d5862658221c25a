// The episode status machine through the API: legal paths work and journal what they should;
// every illegal transition is an IllegalTransitionError that changes nothing.
import { describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import type { TestApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { type Client, client, counts, episodeRow, ledgerTypes, step, useApp } from './support.ts';

let t: TestApp;
let api: Client;
useApp((app) => ([t, api] = [app, client(app)]));

const STEPS_QUERY = `query($id: ID!) { episode(id: $id) { ... on Episode { steps(first: 50) { edges { node { stepNumber kind parameters } } } } } }`;
const journal = async (id: string) => (await api.call(STEPS_QUERY, { id })).steps.edges.map((e: Json) => e.node);

describe('legal paths', () => {
  it('block with an approval request, resume with the decision, then complete; both approval steps are journaled', async () => {
    const { id } = await api.startOk();
    await api.logStep(id, step());
    const blocked = await api.block(id, 'deploy to prod?', { action: 'deploy', env: 'prod' });
    expect(blocked.__typename).toBe('EpisodePayload');
    expect(blocked.episode).toMatchObject({
      status: 'BLOCKED',
      blockedReason: 'deploy to prod?',
      approvalRequest: { action: 'deploy', env: 'prod' },
      stepCount: 2,
      stopReason: { kind: 'blocked', reason: 'deploy to prod?', isSuccessful: false, canContinue: true },
    });

    const resumed = await api.resume(id, true, 'alice', 'go ahead');
    expect(resumed.episode).toMatchObject({ status: 'RUNNING', blockedReason: null, stopReason: null, stepCount: 3 });

    const done = await api.complete(id, { kind: 'SUCCESS', verdict: 'deployed', artifacts: ['release-1.2'] });
    expect(done.__typename).toBe('FinishEpisodePayload');
    expect(done.leaseCharge).toBeNull();
    expect(done.episode).toMatchObject({
      status: 'COMPLETED',
      outcome: { kind: 'SUCCESS', verdict: 'deployed', artifacts: ['release-1.2'] },
      stopReason: { kind: 'completed', isSuccessful: true, canContinue: false },
    });
    expect(done.episode.endedAt).not.toBeNull();

    expect(await journal(id)).toEqual([
      { stepNumber: 1, kind: 'tool_call', parameters: null },
      { stepNumber: 2, kind: 'approval_requested', parameters: { reason: 'deploy to prod?', request: { action: 'deploy', env: 'prod' } } },
      { stepNumber: 3, kind: 'approval_resolved', parameters: { approved: true, decidedBy: 'alice', comment: 'go ahead' } },
    ]);
    expect(await ledgerTypes(t, t.keys.tenantId, id)).toEqual([
      'episode.started',
      'steps.logged',
      'steps.logged',
      'episode.blocked',
      'steps.logged',
      'episode.resumed',
      'episode.completed',
    ]);
  });

  it('reads the episode id in any letter case: every mutation on it, asked in upper case, acts on it', async () => {
    const { id } = await api.startOk();
    const upper = id.toUpperCase();
    expect((await api.logStep(upper, step())).__typename).toBe('LogStepPayload');
    expect((await api.logSteps(upper, [step()])).__typename).toBe('LogStepsPayload');
    for (const changed of [await api.checkpoint(upper), await api.critique(upper), await api.block(upper), await api.resume(upper)])
      expect(changed.__typename).toBe('EpisodePayload');
    const done = await api.complete(upper);
    expect(done.__typename).toBe('FinishEpisodePayload');
    expect(done.episode).toMatchObject({ id, status: 'COMPLETED', stepCount: 3 }); // the resume's decision is a step
    expect(await ledgerTypes(t, t.keys.tenantId, id)).toEqual([
      'episode.started',
      'steps.logged',
      'steps.logged',
      'checkpoint.saved',
      'critique.recorded',
      'episode.blocked',
      'steps.logged',
      'episode.resumed',
      'episode.completed',
    ]);
  });

  it('blocks without an approval request without journaling a step, and journals a rejected decision on resume', async () => {
    const { id } = await api.startOk();
    expect((await api.block(id, 'waiting for CI')).episode).toMatchObject({ status: 'BLOCKED', stepCount: 0, approvalRequest: null });
    expect((await api.resume(id, false, null, 'not now')).episode.status).toBe('RUNNING');
    expect(await journal(id)).toEqual([{ stepNumber: 1, kind: 'approval_resolved', parameters: { approved: false, decidedBy: null, comment: 'not now' } }]);
  });

  it('fails with an error stop reason and a failure outcome', async () => {
    const { id } = await api.startOk();
    const r = await api.fail(id, 'disk full', true);
    expect(r.episode).toMatchObject({
      status: 'FAILED',
      outcome: { kind: 'FAILURE', reason: 'disk full' },
      stopReason: { kind: 'error', reason: 'disk full', recoverable: true, isSuccessful: false, canContinue: false },
    });
  });

  it('completes with a FAILURE outcome as failed', async () => {
    const { id } = await api.startOk();
    const r = await api.complete(id, { kind: 'FAILURE', reason: 'tests still red', details: '3 failing' });
    expect(r.episode).toMatchObject({
      status: 'FAILED',
      outcome: { kind: 'FAILURE', reason: 'tests still red', details: '3 failing' },
      stopReason: { kind: 'failed', reason: 'tests still red', isSuccessful: false },
    });
  });

  it('completes with a PARTIAL outcome', async () => {
    const { id } = await api.startOk();
    const r = await api.complete(id, { kind: 'PARTIAL', verdict: 'half', completed: ['a'], failed: ['b'] });
    expect(r.episode).toMatchObject({ status: 'COMPLETED', outcome: { kind: 'PARTIAL', verdict: 'half', completed: ['a'], failed: ['b'] } });
  });

  it('cancels and escalates, from running and from blocked', async () => {
    for (const fromBlocked of [false, true]) {
      const a = await api.startOk();
      const b = await api.startOk();
      if (fromBlocked) await Promise.all([api.block(a.id), api.block(b.id)]);
      expect((await api.cancel(a.id, 'obsolete')).episode).toMatchObject({
        status: 'CANCELLED',
        outcome: null,
        stopReason: { kind: 'cancelled', reason: 'obsolete', isSuccessful: false, canContinue: false },
      });
      expect((await api.escalate(b.id, 'need a human')).episode).toMatchObject({
        status: 'ESCALATED',
        stopReason: { kind: 'escalated', reason: 'need a human', isSuccessful: false, canContinue: false },
      });
    }
  });

  it('records a critique while running, while blocked, and after completion', async () => {
    const { id } = await api.startOk();
    const virtues = [
      { name: 'honesty', score: 0.9 },
      { name: 'care', score: 0.7 },
    ];
    expect((await api.critique(id, 'on track', 0.6)).episode.critique).toMatchObject({ verdict: 'on track', score: 0.6 });
    await api.block(id);
    expect((await api.critique(id, 'waiting is fine', 0.5)).episode.status).toBe('BLOCKED');
    await api.resume(id);
    await api.complete(id);
    const after = await api.critique(id, 'solid work', 0.95, virtues);
    expect(after.episode).toMatchObject({ status: 'COMPLETED', critique: { verdict: 'solid work', score: 0.95, feedback: 'fine', virtueScores: virtues } });
    expect((await ledgerTypes(t, t.keys.tenantId, id)).filter((x) => x === 'critique.recorded')).toHaveLength(3);
  });

  it('saves checkpoints at the current step number', async () => {
    const { id } = await api.startOk();
    await api.logStep(id, step());
    await api.logStep(id, step());
    await api.checkpoint(id, { cursor: 2 }, 'after two');
    const q = `query($id: ID!) { episode(id: $id) { ... on Episode { checkpoints { stepNumber label state } } } }`;
    expect((await api.call(q, { id })).checkpoints).toEqual([{ stepNumber: 2, label: 'after two', state: { cursor: 2 } }]);
  });
});

// The expected machine, written out here rather than read from the implementation.
const ACTIONS = ['block', 'resume', 'complete', 'fail', 'cancel', 'escalate', 'logSteps', 'checkpoint', 'critique'] as const;
type Action = (typeof ACTIONS)[number];
const ALLOWED: Record<string, Action[]> = {
  running: ['block', 'complete', 'fail', 'cancel', 'escalate', 'logSteps', 'checkpoint', 'critique'],
  blocked: ['resume', 'fail', 'cancel', 'escalate', 'critique'],
  completed: ['critique'],
  failed: [],
  cancelled: [],
  escalated: [],
};

async function episodeIn(status: string): Promise<string> {
  const { id } = await api.startOk();
  if (status === 'blocked') await api.block(id);
  if (status === 'completed') await api.complete(id);
  if (status === 'failed') await api.fail(id);
  if (status === 'cancelled') await api.cancel(id);
  if (status === 'escalated') await api.escalate(id);
  const row = await episodeRow(t, id);
  expect(row.status).toBe(status);
  return id;
}

function attempt(action: Action, id: string) {
  switch (action) {
    case 'block':
      return api.block(id, 'again', { q: 1 });
    case 'resume':
      return api.resume(id);
    case 'complete':
      return api.complete(id);
    case 'fail':
      return api.fail(id);
    case 'cancel':
      return api.cancel(id);
    case 'escalate':
      return api.escalate(id);
    case 'logSteps':
      return api.logSteps(id, [step(), step()]);
    case 'checkpoint':
      return api.checkpoint(id);
    case 'critique':
      return api.critique(id);
  }
}

describe('illegal transitions', () => {
  for (const status of Object.keys(ALLOWED)) {
    const illegal = ACTIONS.filter((a) => !must(ALLOWED[status]).includes(a));
    it(`refuse ${illegal.join(', ')} on a ${status} episode with IllegalTransitionError, changing nothing`, async () => {
      const id = await episodeIn(status);
      for (const action of illegal) {
        const row = await episodeRow(t, id);
        const before = await counts(t, t.keys.tenantId);
        const result = await attempt(action, id);
        expect(result, `${action} on ${status}`).toMatchObject({ __typename: 'IllegalTransitionError', from: status, action, allowed: ALLOWED[status] });
        expect(result.message).toContain(status);
        expect(await episodeRow(t, id)).toEqual(row);
        expect(await counts(t, t.keys.tenantId)).toEqual(before);
      }
    });
  }

  it('refuses logStep on a completed episode and journals nothing', async () => {
    const id = await episodeIn('completed');
    const before = await counts(t, t.keys.tenantId);
    expect(await api.logStep(id, step())).toMatchObject({ __typename: 'IllegalTransitionError', from: 'completed', action: 'logSteps', allowed: ['critique'] });
    expect(await counts(t, t.keys.tenantId)).toEqual(before);
  });

  it('refuses a success outcome without a verdict as InputLimitError, leaving the episode running', async () => {
    const { id } = await api.startOk();
    const row = await episodeRow(t, id);
    const result = await api.complete(id, { kind: 'SUCCESS', verdict: ' ' });
    expect(result).toMatchObject({ __typename: 'InputLimitError', violations: [{ field: 'input.outcome.verdict', limit: 'non-empty' }] });
    expect(await episodeRow(t, id)).toEqual(row);
  });

  it('answers NotFoundError for lifecycle mutations on an unknown episode', async () => {
    const missing = '00000000-0000-0000-0000-0000000000ff';
    for (const action of ACTIONS) {
      expect(await attempt(action, missing), action).toMatchObject({ __typename: 'NotFoundError', entity: 'Episode' });
    }
  });
});
