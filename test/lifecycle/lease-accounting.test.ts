// Lease accounting through the API against PostgreSQL: episodes hold part of their lease while they
// run (so concurrent episodes cannot together overdraw it), the unused hold comes back when they
// end, a child lease reserves its budget on its parent, what a child spends reaches every ancestor,
// and revoking or expiring a child gives the unspent part back. The ledger tells the same story.
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { type Client, client, counts, inHours, sleep, startInput, step, useApp } from './support.ts';

let t: TestApp;
let api: Client;
useApp((app) => ([t, api] = [app, client(app)]));

const PARTIAL = { kind: 'PARTIAL', verdict: 'progress', completed: ['a'], failed: [] };
const AMOUNT_KEYS = ['episodes', 'toolCalls', 'tokens', 'wallMs'] as const;

async function leaseOn(budget: Record<string, number>, extra: Record<string, unknown> = {}) {
  const workItem = await api.createWorkItem();
  const lease = await api.issueLeaseOk({ workItemId: workItem.id, budget, ...extra });
  return { workItem, lease };
}

/** A child lease, expiring before its parent (which expires in an hour). */
const issueChild = (vars: Record<string, unknown>) => api.issueLeaseOk({ expiresAt: inHours(0.5), ...vars });

const limitOf = (episode: Json, resource: string) => episode.budgetUsage.find((b: Json) => b.resource === resource).limit;

async function leaseEvents(type: string, leaseId: string): Promise<Json[]> {
  const { rows } = await t.services.db.pool.query(
    `SELECT payload FROM ledger_events WHERE tenant_id = $1 AND type = $2 AND payload->>'leaseId' = $3 ORDER BY seq`,
    [t.keys.tenantId, type, leaseId],
  );
  return rows.map((r) => r.payload);
}

/** budget = consumed + reserved + remaining for every resource the lease limits (nothing is overdrawn). */
function expectBalanced(lease: Json) {
  for (const key of AMOUNT_KEYS) {
    if (lease.budget[key] === null) continue;
    expect(lease.consumed[key] + lease.reserved[key] + lease.remaining[key], key).toBe(lease.budget[key]);
  }
}

describe('episode holds on a lease', () => {
  it('hold the smaller of the episode budget and what is unreserved; an episode without a budget takes all that is left', async () => {
    const { lease } = await leaseOn({ episodes: 5, toolCalls: 10, tokens: 1000 });
    const first = await api.startOk(startInput({ leaseId: lease.id, budget: { maxTokens: 300, maxToolCalls: 4 } }));
    expect([limitOf(first, 'tokens'), limitOf(first, 'tool_calls')]).toEqual([300, 4]);
    expect(await api.lease(lease.id)).toMatchObject({
      reserved: { episodes: 1, toolCalls: 4, tokens: 300, wallMs: null },
      remaining: { episodes: 4, toolCalls: 6, tokens: 700, wallMs: null },
    });
    const second = await api.startOk(startInput({ leaseId: lease.id }));
    expect([limitOf(second, 'tokens'), limitOf(second, 'tool_calls'), limitOf(second, 'wall_time')]).toEqual([700, 6, null]);
    const after = await api.lease(lease.id);
    expect(after).toMatchObject({
      consumed: { episodes: 0, tokens: 0 },
      reserved: { episodes: 2, toolCalls: 10, tokens: 1000 },
      remaining: { episodes: 3, toolCalls: 0, tokens: 0 },
    });
    expectBalanced(after);
  });

  it('refuse a start once a limited resource has nothing unreserved, naming it, and write nothing', async () => {
    const { lease } = await leaseOn({ episodes: 5, toolCalls: 10, tokens: 1000 });
    await api.startOk(startInput({ leaseId: lease.id, budget: { maxTokens: 10 } })); // holds all 10 tool calls
    const before = await counts(t, t.keys.tenantId);
    const refused = await api.start(startInput({ leaseId: lease.id, budget: { maxTokens: 10, maxToolCalls: 1 } }));
    expect(refused).toMatchObject({ __typename: 'LeaseError', rule: 'exhausted', leaseId: lease.id, violations: [{ field: 'budget.toolCalls', actual: '0' }] });
    expect(refused.message).toBe(`lease ${lease.id} has no toolCalls left unreserved (10 granted, 0 consumed, 10 reserved)`);
    expect(await counts(t, t.keys.tenantId)).toEqual(before);
  });

  it('keep concurrent episodes under one lease from ever spending more than it grants together', async () => {
    const { workItem, lease } = await leaseOn({ tokens: 100 });
    const starts = await Promise.all(Array.from({ length: 5 }, () => api.start(startInput({ leaseId: lease.id, budget: { maxTokens: 30 } }))));
    const started = starts.filter((r) => r.__typename === 'StartEpisodePayload').map((r) => r.episode);
    expect(started.map((e) => limitOf(e, 'tokens')).sort((a, b) => a - b)).toEqual([10, 30, 30, 30]);
    expect(starts.filter((r) => r.__typename === 'LeaseError').map((r) => r.violations[0].field)).toEqual(['budget.tokens']);

    // Each tries to spend 50 tokens at once; the server stops each at its hold.
    const logged = await Promise.all(
      started.map((e) =>
        api.logStepsOk(
          e.id,
          Array.from({ length: 5 }, () => step({ kind: 'llm_call', tokens: 10 })),
        ),
      ),
    );
    expect(logged.map((r) => r.budgetExhausted)).toEqual(Array(4).fill('tokens'));
    for (const [i, e] of started.entries()) expect(Number(logged[i].episode.usedTokens)).toBe(limitOf(e, 'tokens'));

    const after = await api.lease(lease.id);
    expect(after).toMatchObject({ consumed: { episodes: 4, tokens: 100 }, reserved: { tokens: 0 }, remaining: { tokens: 0 } });
    const charges = await leaseEvents('lease.charged', lease.id);
    expect(charges.map((c) => c.ok)).toEqual([true, true, true, true]);
    expect(charges.reduce((sum, c) => sum + c.charge.tokens, 0)).toBe(100);
    // Spent out: the next start is refused, and the work item's loop stopped on the lease budget.
    await expect(api.start(startInput({ leaseId: lease.id }))).resolves.toMatchObject({ __typename: 'LeaseError', rule: 'exhausted' });
    expect(await api.workItem(workItem.id)).toMatchObject({ stopCondition: { kind: 'budget_exhausted', resource: 'tokens', canContinue: true } });
  });

  it('release the unused part when the episode ends, for the next episode to use', async () => {
    const { lease } = await leaseOn({ episodes: 10, tokens: 100 });
    const first = await api.startOk(startInput({ leaseId: lease.id }));
    await expect(api.start(startInput({ leaseId: lease.id }))).resolves.toMatchObject({
      __typename: 'LeaseError',
      rule: 'exhausted',
      violations: [{ field: 'budget.tokens' }],
    });
    await api.logStepsOk(first.id, [step({ tokens: 30 })]);
    const done = await api.complete(first.id, PARTIAL);
    expect(done.charge).toMatchObject({
      hold: { episodes: 1, toolCalls: 0, tokens: 100, wallMs: 0 },
      charged: { episodes: 1, toolCalls: 1, tokens: 30 },
      released: { episodes: 0, tokens: 70 },
    });
    expect(done.leaseCharge).toMatchObject({ ok: true, exhausted: null, remainingTokens: 70, remainingEpisodes: 9 });
    const between = await api.lease(lease.id);
    expect(between).toMatchObject({ consumed: { tokens: 30 }, reserved: { tokens: 0 }, remaining: { tokens: 70 } });
    expectBalanced(between);
    const second = await api.startOk(startInput({ leaseId: lease.id }));
    expect(limitOf(second, 'tokens')).toBe(70);
    expect(await leaseEvents('lease.charged', lease.id)).toEqual([
      expect.objectContaining({
        episodeId: first.id,
        hold: done.charge.hold,
        charge: done.charge.charged,
        released: done.charge.released,
        ok: true,
        ancestors: [],
      }),
    ]);
  });

  it('report an overdraft when a crossing step spends past the hold while others still hold the rest (INV-EP03)', async () => {
    const { workItem, lease } = await leaseOn({ tokens: 100 });
    const greedy = await api.startOk(startInput({ leaseId: lease.id, budget: { maxTokens: 50 } }));
    await api.startOk(startInput({ leaseId: lease.id })); // holds the other 50
    // The step that crosses the budget is recorded (its tokens were spent), and the episode stops.
    const r = await api.logStepsOk(greedy.id, [step({ tokens: 80 })]);
    expect(r).toMatchObject({ accepted: 1, budgetExhausted: 'tokens', episode: { status: 'FAILED' } });
    expect(await leaseEvents('lease.charged', lease.id)).toEqual([
      expect.objectContaining({ ok: false, overdrawn: 'tokens', exhausted: null, charge: expect.objectContaining({ tokens: 80 }) }),
    ]);
    expect(await api.lease(lease.id)).toMatchObject({ consumed: { tokens: 80 }, reserved: { tokens: 50 }, remaining: { tokens: 0 } });
    expect(await api.workItem(workItem.id)).toMatchObject({ stopCondition: { kind: 'budget_exhausted', resource: 'tokens' } });
  });

  it('stop an episode at the tool calls it holds, so tool calls cannot overdraw the lease either', async () => {
    const { lease } = await leaseOn({ toolCalls: 5 });
    const first = await api.startOk(startInput({ leaseId: lease.id, budget: { maxToolCalls: 3 } }));
    const second = await api.startOk(startInput({ leaseId: lease.id }));
    expect([limitOf(first, 'tool_calls'), limitOf(second, 'tool_calls')]).toEqual([3, 2]);
    const logged = await Promise.all([first, second].map((e) => api.logStepsOk(e.id, [step(), step(), step(), step()])));
    expect(logged.map((r) => [r.accepted, r.budgetExhausted, r.episode.status])).toEqual([
      [3, 'tool_calls', 'FAILED'],
      [2, 'tool_calls', 'FAILED'],
    ]);
    expect(await api.lease(lease.id)).toMatchObject({ consumed: { toolCalls: 5 }, reserved: { toolCalls: 0 }, remaining: { toolCalls: 0 } });
  });

  it('charge wall time up to the episode deadline, however late the ending arrives', async () => {
    const { lease } = await leaseOn({ wallMs: 300 });
    const episode = await api.startOk(startInput({ leaseId: lease.id }));
    expect(limitOf(episode, 'wall_time')).toBe(300);
    expect(new Date(episode.deadlineAt).getTime() - new Date(episode.startedAt).getTime()).toBe(300);
    await sleep(800);
    // The deadline job may have stopped it already; if not, end it now, well past the deadline.
    if ((await api.episode(episode.id)).status === 'RUNNING') await api.cancel(episode.id);
    const ended = await api.episode(episode.id);
    expect(ended.budgetUsage.find((b: Json) => b.resource === 'wall_time').used).toBeGreaterThan(300);
    expect(await api.lease(lease.id)).toMatchObject({ consumed: { wallMs: 300 }, reserved: { wallMs: 0 }, remaining: { wallMs: 0 } });
  });
});

describe('child leases and their parent', () => {
  const parentBudget = { episodes: 5, toolCalls: 100, tokens: 1000, wallMs: 600_000 };

  it('reserve the child budget on the parent, so two children cannot both take what the parent has left', async () => {
    const { workItem, lease: parent } = await leaseOn(parentBudget);
    const first = await issueChild({ workItemId: workItem.id, parentLeaseId: parent.id, budget: { episodes: 3, toolCalls: 60, tokens: 600, wallMs: 400_000 } });
    expect(first).toMatchObject({ reserved: { episodes: 0, tokens: 0 }, remaining: { episodes: 3, tokens: 600 } });
    const afterFirst = await api.lease(parent.id);
    expect(afterFirst).toMatchObject({
      consumed: { tokens: 0 },
      reserved: { episodes: 3, toolCalls: 60, tokens: 600, wallMs: 400_000 },
      remaining: { episodes: 2, toolCalls: 40, tokens: 400, wallMs: 200_000 },
    });

    const before = await counts(t, t.keys.tenantId);
    const greedy = await api.issueLease({ workItemId: workItem.id, parentLeaseId: parent.id, budget: parentBudget, expiresAt: inHours(0.5) });
    expect(greedy).toMatchObject({ __typename: 'LeaseError', rule: 'budget_exceeds_parent' });
    expect(greedy.violations.map((v: Json) => v.field)).toEqual(['budget.episodes', 'budget.toolCalls', 'budget.tokens', 'budget.wallMs']);
    expect(greedy.message).toContain("Child tokens budget 1000 exceeds the parent's remaining 400");
    expect(await counts(t, t.keys.tenantId)).toEqual(before);

    await issueChild({ workItemId: workItem.id, parentLeaseId: parent.id, budget: { episodes: 2, toolCalls: 40, tokens: 400, wallMs: 200_000 } });
    expect((await api.lease(parent.id)).remaining).toEqual({ episodes: 0, toolCalls: 0, tokens: 0, wallMs: 0 });
    // Everything is promised to the children: the parent itself starts nothing more.
    await expect(api.start(startInput({ leaseId: parent.id }))).resolves.toMatchObject({ __typename: 'LeaseError', rule: 'exhausted' });
    expect(await leaseEvents('lease.issued', first.id)).toEqual([
      expect.objectContaining({
        parentLeaseId: parent.id,
        reservedOnParent: { episodes: 3, toolCalls: 60, tokens: 600, wallMs: 400_000 },
        parentRemaining: { episodes: 2, toolCalls: 40, tokens: 400, wallMs: 200_000 },
      }),
    ]);
  });

  it('charge what a grandchild spends on it and on every ancestor, once', async () => {
    const { workItem, lease: parent } = await leaseOn(parentBudget);
    const child = await issueChild({ workItemId: workItem.id, parentLeaseId: parent.id, budget: { episodes: 3, toolCalls: 50, tokens: 500, wallMs: 300_000 } });
    const grandchild = await issueChild({
      workItemId: workItem.id,
      parentLeaseId: child.id,
      expiresAt: inHours(0.25),
      budget: { episodes: 1, toolCalls: 20, tokens: 200, wallMs: 100_000 },
    });
    const episode = await api.startOk(startInput({ leaseId: grandchild.id }));
    expect([limitOf(episode, 'tokens'), limitOf(episode, 'tool_calls'), limitOf(episode, 'wall_time')]).toEqual([200, 20, 100_000]);
    await api.logStepsOk(episode.id, [step({ tokens: 40 }), step({ tokens: 40 })]);
    const done = await api.complete(episode.id, PARTIAL);
    const wallMs = done.charge.charged.wallMs;
    const spent = { episodes: 1, toolCalls: 2, tokens: 80, wallMs };
    expect(done.charge.charged).toEqual(spent);

    const [p, c, g] = await Promise.all([parent.id, child.id, grandchild.id].map((id) => api.lease(id)));
    for (const lease of [p, c, g]) {
      expect(lease.consumed).toEqual(spent);
      expectBalanced(lease);
    }
    // The child's spending is on the parent's books once: as consumption, no longer as reservation.
    expect(p).toMatchObject({ reserved: { tokens: 420, toolCalls: 48 }, remaining: { tokens: 500, toolCalls: 50, episodes: 2 } });
    expect(c).toMatchObject({ reserved: { tokens: 120, episodes: 0 }, remaining: { tokens: 300, episodes: 2 } });
    expect(g.remaining).toMatchObject({ episodes: 0, tokens: 120 });
    expect(await leaseEvents('lease.charged', grandchild.id)).toEqual([expect.objectContaining({ ancestors: [child.id, parent.id], charge: spent })]);
  });

  it('give back the unspent reservation when the child is revoked; an episode still running keeps its hold until it ends', async () => {
    const { workItem, lease: parent } = await leaseOn({ episodes: 5, tokens: 1000 });
    const child = await issueChild({ workItemId: workItem.id, parentLeaseId: parent.id, budget: { episodes: 3, tokens: 600 } });
    const episode = await api.startOk(startInput({ leaseId: child.id, budget: { maxTokens: 200 } }));
    await api.logStepsOk(episode.id, [step({ tokens: 50 })]);
    expect((await api.lease(parent.id)).remaining).toMatchObject({ episodes: 2, tokens: 400 });

    await api.revokeLease(child.id);
    const revoked = await api.lease(parent.id);
    expect(revoked).toMatchObject({ reserved: { episodes: 1, tokens: 200 }, remaining: { episodes: 4, tokens: 800 } });
    expect(await leaseEvents('lease.revoked', child.id)).toEqual([
      expect.objectContaining({ parentLeaseId: parent.id, revoked: [child.id], releasedToParent: { episodes: 2, toolCalls: 0, tokens: 400, wallMs: 0 } }),
    ]);

    const done = await api.complete(episode.id, PARTIAL);
    expect(done.charge.released).toMatchObject({ tokens: 150 });
    // The lease ended under the loop: the server stops it rather than let it run on a revoked lease.
    expect(done.stopCondition).toMatchObject({ kind: 'error', reason: `lease ${child.id} is revoked`, recoverable: false });
    const after = await api.lease(parent.id);
    expect(after).toMatchObject({ consumed: { episodes: 1, tokens: 50 }, reserved: { episodes: 0, tokens: 0 }, remaining: { episodes: 4, tokens: 950 } });
    expectBalanced(after);
  });

  it('give back the unspent reservation at the child expiry, with no write needed', async () => {
    const { workItem, lease: parent } = await leaseOn({ episodes: 5, tokens: 1000 });
    const child = await issueChild({ workItemId: workItem.id, parentLeaseId: parent.id, budget: { episodes: 2, tokens: 700 } });
    expect((await api.lease(parent.id)).remaining).toMatchObject({ episodes: 3, tokens: 300 });
    // The clock moves past the child's expiry (a 1.5 s expiry ran out before the first read on a busy machine).
    await t.services.db.pool.query(`UPDATE leases SET expires_at = now() - interval '1 second' WHERE id = $1`, [child.id]);
    expect(await api.lease(parent.id)).toMatchObject({ reserved: { episodes: 0, tokens: 0 }, remaining: { episodes: 5, tokens: 1000 } });
    await issueChild({ workItemId: workItem.id, parentLeaseId: parent.id, budget: { episodes: 5, tokens: 1000 }, expiresAt: inHours(0.5) });
  });
});
