// Work items and leases: monotonic 1-indexed episode numbers across restarts, a lease
// charged after each episode, exhausted / revoked / expired leases refusing new episodes, and child
// leases that may only narrow their parent.
import { describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import type { TestApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { type Client, client, counts, inHours, ledgerTypes, startInput, step, useApp } from './support.ts';

let t: TestApp;
let api: Client;
// Learning appends patterns.extracted on its own schedule; these tests count the events of lease
// mutations, so no learning worker runs here.
useApp((app) => ([t, api] = [app, client(app)]), { LEARNING_WORKERS: '0' });

async function leaseOn(budget: Record<string, number> | null = null, extra: Record<string, unknown> = {}) {
  const workItem = await api.createWorkItem();
  const lease = await api.issueLeaseOk({ workItemId: workItem.id, budget, ...extra });
  return { workItem, lease };
}

/** Runs `act`, expects a LeaseError of `rule`, and proves nothing was written. */
async function expectLeaseError(act: () => Promise<Json>, rule: string) {
  const before = await counts(t, t.keys.tenantId);
  const result = await act();
  expect(result).toMatchObject({ __typename: 'LeaseError', rule });
  expect(await counts(t, t.keys.tenantId)).toEqual(before);
  return result;
}

describe('work items and leases', () => {
  it('issue a lease with its holder, scope, expiry and budget, nothing consumed yet', async () => {
    const workItem = await api.createWorkItem('migrate the database');
    expect(workItem).toMatchObject({ title: 'migrate the database', lastEpisodeNumber: 0 });
    const expiresAt = inHours(2);
    const lease = await api.issueLeaseOk({
      workItemId: workItem.id,
      scope: ['repo:a', 'tool:shell'],
      expiresAt,
      budget: { episodes: 3, toolCalls: 50, tokens: 10_000, wallMs: 600_000 },
    });
    expect(lease).toMatchObject({
      issuer: 'orchestrator',
      holder: 'agent-1',
      scope: ['repo:a', 'tool:shell'],
      expiresAt,
      revokedAt: null,
      budget: { episodes: 3, toolCalls: 50, tokens: 10_000, wallMs: 600_000 },
      consumed: { episodes: 0, toolCalls: 0, tokens: 0, wallMs: 0 },
      workItem: { id: workItem.id },
      parent: null,
      children: [],
    });
    expect(await api.lease(lease.id)).toMatchObject({ __typename: 'Lease', id: lease.id });
  });

  it('answer NotFoundError for a lease on an unknown work item and for an unknown lease', async () => {
    const missing = '00000000-0000-0000-0000-00000000abcd';
    expect(await api.issueLease({ workItemId: missing })).toMatchObject({ __typename: 'NotFoundError', entity: 'WorkItem' });
    expect(await api.start(startInput({ leaseId: missing }))).toMatchObject({ __typename: 'NotFoundError', entity: 'Lease' });
    expect(await api.lease(missing)).toMatchObject({ __typename: 'NotFoundError', entity: 'Lease' });
  });

  it('answer NotFoundError for an empty or malformed parent lease id, and issue nothing', async () => {
    const { workItem } = await leaseOn();
    const before = await counts(t, t.keys.tenantId);
    for (const parentLeaseId of ['', 'not-a-uuid']) {
      expect(await api.issueLease({ workItemId: workItem.id, parentLeaseId })).toMatchObject({ __typename: 'NotFoundError', entity: 'Lease' });
    }
    expect(await counts(t, t.keys.tenantId)).toEqual(before);
  });
});

describe('episode numbers', () => {
  it('are 1, 2, 3 for episodes under a lease, and the work item remembers the last one', async () => {
    const { workItem, lease } = await leaseOn({ episodes: 10 });
    const numbers = [];
    for (let i = 0; i < 3; i++) {
      const episode = await api.startOk(startInput({ leaseId: lease.id }));
      expect(episode.workItem.id).toBe(workItem.id);
      expect(episode.lease.id).toBe(lease.id);
      numbers.push(episode.episodeNumber);
      // PARTIAL: the goal is not reached yet, so the work item's loop goes on (SUCCESS would stop it).
      await api.complete(episode.id, { kind: 'PARTIAL', verdict: 'progress', completed: ['a'], failed: [] });
    }
    expect(numbers).toEqual([1, 2, 3]);
    expect(await api.workItem(workItem.id)).toMatchObject({ lastEpisodeNumber: 3 });
  });

  it('refuse a restart that asks for a number not after the last one, and accept a higher one', async () => {
    const { workItem, lease } = await leaseOn({ episodes: 10 });
    await api.startOk(startInput({ leaseId: lease.id }));
    await api.startOk(startInput({ leaseId: lease.id }));
    for (const requested of [1, 2]) {
      const before = await counts(t, t.keys.tenantId);
      const refused = await api.start(startInput({ leaseId: lease.id, episodeNumber: requested }));
      expect(refused).toMatchObject({ __typename: 'InputLimitError', violations: [{ field: 'input.episodeNumber', limit: '> 2', actual: String(requested) }] });
      expect(await counts(t, t.keys.tenantId)).toEqual(before);
    }
    expect((await api.startOk(startInput({ leaseId: lease.id, episodeNumber: 7 }))).episodeNumber).toBe(7);
    expect((await api.startOk(startInput({ leaseId: lease.id }))).episodeNumber).toBe(8);
    expect(await api.workItem(workItem.id)).toMatchObject({ lastEpisodeNumber: 8 });
  });

  it('are 1-indexed: a restart asking for 0 on a fresh work item gets 1', async () => {
    const workItem = await api.createWorkItem();
    expect((await api.startOk(startInput({ workItemId: workItem.id, episodeNumber: 0 }))).episodeNumber).toBe(1);
  });

  it('stay unique and gapless under concurrent starts on one work item', async () => {
    const workItem = await api.createWorkItem();
    const episodes = await Promise.all(Array.from({ length: 10 }, () => api.startOk(startInput({ workItemId: workItem.id }))));
    expect(episodes.map((e) => e.episodeNumber).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});

describe('lease charging', () => {
  it('charges the lease after each episode with its episodes, tool calls, tokens and wall time', async () => {
    const { lease } = await leaseOn({ episodes: 5, toolCalls: 10, tokens: 1000 });
    const episode = await api.startOk(startInput({ leaseId: lease.id }));
    await api.logStepsOk(episode.id, [step({ tokens: 100 }), step({ tokens: 150 }), step({ kind: 'llm_call', tokens: 50 })]);
    expect((await api.lease(lease.id)).consumed).toEqual({ episodes: 0, toolCalls: 0, tokens: 0, wallMs: 0 });
    const done = await api.complete(episode.id);
    expect(done.leaseCharge).toEqual({ ok: true, exhausted: null, remainingEpisodes: 4, remainingToolCalls: 8, remainingTokens: 700, remainingWallMs: null });
    const after = await api.lease(lease.id);
    expect(after.consumed).toMatchObject({ episodes: 1, toolCalls: 2, tokens: 300 });
    expect(after.consumed.wallMs).toBeGreaterThanOrEqual(0);
    // SUCCESS reached the goal: the server stops the work item's loop after charging the lease.
    expect((await ledgerTypes(t, t.keys.tenantId)).slice(-3)).toEqual(['episode.completed', 'lease.charged', 'work_item.stopped']);
  });

  it('charges on every ending: fail, cancel and escalate', async () => {
    const { lease } = await leaseOn({ episodes: 5 });
    // Started together: the first ending (fail) stops the loop, but episodes already running still end and are charged.
    const episodes = [
      await api.startOk(startInput({ leaseId: lease.id })),
      await api.startOk(startInput({ leaseId: lease.id })),
      await api.startOk(startInput({ leaseId: lease.id })),
    ];
    const endings = [(id: string) => api.fail(id), (id: string) => api.cancel(id), (id: string) => api.escalate(id)];
    for (const [i, end] of endings.entries()) {
      const ended = await end(must(episodes[i]).id);
      expect(ended.leaseCharge).toMatchObject({ ok: true, remainingEpisodes: 2 });
      expect(ended.charge).toMatchObject({ hold: { episodes: 1 }, charged: { episodes: 1 }, released: { episodes: 0 } });
    }
    expect(await api.lease(lease.id)).toMatchObject({ consumed: { episodes: 3 }, reserved: { episodes: 0 }, remaining: { episodes: 2 } });
  });

  it('refuses a second episode under a lease of one episode with LeaseError exhausted', async () => {
    const { lease } = await leaseOn({ episodes: 1 });
    const first = await api.startOk(startInput({ leaseId: lease.id }));
    expect((await api.complete(first.id)).leaseCharge).toMatchObject({ ok: true, exhausted: 'episodes', remainingEpisodes: 0 });
    const refused = await expectLeaseError(() => api.start(startInput({ leaseId: lease.id })), 'exhausted');
    expect(refused.leaseId).toBe(lease.id);
    expect(refused.message).toMatch(/episodes/);
  });

  it('counts episodes still running against the lease, so a lease of one episode cannot run two at once', async () => {
    const { lease } = await leaseOn({ episodes: 1 });
    const first = await api.startOk(startInput({ leaseId: lease.id }));
    await expectLeaseError(() => api.start(startInput({ leaseId: lease.id })), 'exhausted');
    await api.block(first.id);
    await expectLeaseError(() => api.start(startInput({ leaseId: lease.id })), 'exhausted');
  });

  it('lets exactly as many concurrent starts through as the lease has episodes', async () => {
    const { lease } = await leaseOn({ episodes: 3 });
    const results = await Promise.all(Array.from({ length: 10 }, () => api.start(startInput({ leaseId: lease.id }))));
    expect(
      results
        .filter((r) => r.__typename === 'StartEpisodePayload')
        .map((r) => r.episode.episodeNumber)
        .sort(),
    ).toEqual([1, 2, 3]);
    expect(results.filter((r) => r.__typename === 'LeaseError').map((r) => r.rule)).toEqual(Array(7).fill('exhausted'));
  });

  it('caps an episode token budget at what the lease has left, and refuses new episodes once the tokens are spent', async () => {
    const { lease } = await leaseOn({ tokens: 150 });
    const episode = await api.startOk(startInput({ leaseId: lease.id, budget: { maxTokens: 1000 } }));
    expect(episode.budgetUsage.find((b: Json) => b.resource === 'tokens')).toMatchObject({ limit: 150 });
    const r = await api.logStepsOk(episode.id, [step({ tokens: 100 }), step({ tokens: 100 }), step({ tokens: 100 })]);
    expect(r).toMatchObject({ accepted: 2, rejected: 1, budgetExhausted: 'tokens', episode: { status: 'FAILED' } });
    expect((await api.lease(lease.id)).consumed).toMatchObject({ episodes: 1, tokens: 200 });
    expect(await ledgerTypes(t, t.keys.tenantId, episode.id)).toEqual([
      'episode.started',
      'steps.logged',
      'episode.budget_exhausted',
      'episode.failed',
      'work_item.stopped',
    ]);
    await expectLeaseError(() => api.start(startInput({ leaseId: lease.id })), 'exhausted');
  });

  it('refuses an episode whose work item is not the lease’s', async () => {
    const { lease } = await leaseOn();
    const other = await api.createWorkItem();
    await expectLeaseError(() => api.start(startInput({ leaseId: lease.id, workItemId: other.id })), 'wrong_work_item');
  });
});

describe('child leases', () => {
  const parentBudget = { episodes: 5, toolCalls: 100, tokens: 1000, wallMs: 600_000 };

  async function parent() {
    return leaseOn(parentBudget, { scope: ['repo:a', 'repo:b'], expiresAt: inHours(2) });
  }

  it('may narrow the parent: smaller budget, earlier expiry, a subset of the scope', async () => {
    const { workItem, lease } = await parent();
    const child = await api.issueLeaseOk({
      workItemId: workItem.id,
      parentLeaseId: lease.id,
      holder: 'sub-agent',
      scope: ['repo:a'],
      expiresAt: inHours(1),
      budget: { episodes: 2, toolCalls: 10, tokens: 500, wallMs: 60_000 },
    });
    expect(child).toMatchObject({ parent: { id: lease.id }, scope: ['repo:a'], budget: { episodes: 2, tokens: 500 } });
    expect((await api.lease(lease.id)).children).toEqual([{ id: child.id }]);
    const episode = await api.startOk(startInput({ leaseId: child.id }));
    expect(episode.workItem.id).toBe(workItem.id);
  });

  it('may not widen the budget, nor leave unlimited what the parent limits', async () => {
    const { workItem, lease } = await parent();
    const wider = await expectLeaseError(
      () =>
        api.issueLease({
          workItemId: workItem.id,
          parentLeaseId: lease.id,
          scope: ['repo:a'],
          expiresAt: inHours(1),
          budget: { ...parentBudget, tokens: 2000 },
        }),
      'budget_exceeds_parent',
    );
    expect(wider.violations).toEqual([expect.objectContaining({ field: 'budget.tokens', limit: 'budget_exceeds_parent' })]);
    const unlimited = await expectLeaseError(
      () => api.issueLease({ workItemId: workItem.id, parentLeaseId: lease.id, scope: ['repo:a'], expiresAt: inHours(1), budget: { episodes: 1 } }),
      'budget_exceeds_parent',
    );
    expect(unlimited.violations.map((v: Json) => v.field)).toEqual(['budget.toolCalls', 'budget.tokens', 'budget.wallMs']);
  });

  it('is checked against what the parent has left, not what it was granted', async () => {
    const { workItem, lease } = await parent();
    const episode = await api.startOk(startInput({ leaseId: lease.id }));
    await api.logStepsOk(episode.id, [step({ tokens: 800 })]);
    await api.complete(episode.id);
    const refused = await expectLeaseError(
      () =>
        api.issueLease({
          workItemId: workItem.id,
          parentLeaseId: lease.id,
          scope: ['repo:a'],
          expiresAt: inHours(1),
          budget: { episodes: 1, toolCalls: 50, tokens: 500, wallMs: 1000 },
        }),
      'budget_exceeds_parent',
    );
    expect(refused.violations.map((v: Json) => v.field)).toEqual(['budget.tokens']);
    expect(refused.message).toMatch(/200/);
  });

  it('may not outlive the parent', async () => {
    const { workItem, lease } = await parent();
    const refused = await expectLeaseError(
      () => api.issueLease({ workItemId: workItem.id, parentLeaseId: lease.id, scope: ['repo:a'], expiresAt: inHours(3), budget: parentBudget }),
      'expiry_after_parent',
    );
    expect(refused.violations).toEqual([expect.objectContaining({ field: 'expiresAt', limit: 'expiry_after_parent' })]);
  });

  it('may not reach outside the parent scope', async () => {
    const { workItem, lease } = await parent();
    const refused = await expectLeaseError(
      () => api.issueLease({ workItemId: workItem.id, parentLeaseId: lease.id, scope: ['repo:b', 'repo:c', '*'], expiresAt: inHours(1), budget: parentBudget }),
      'scope_not_subset',
    );
    expect(refused.violations.map((v: Json) => v.field)).toEqual(['scope.1', 'scope.2']);
  });

  it('reports every widening at once', async () => {
    const { workItem, lease } = await parent();
    const refused = await expectLeaseError(
      () =>
        api.issueLease({
          workItemId: workItem.id,
          parentLeaseId: lease.id,
          scope: ['repo:z'],
          expiresAt: inHours(5),
          budget: { ...parentBudget, episodes: 6 },
        }),
      'budget_exceeds_parent',
    );
    expect(refused.violations.map((v: Json) => v.limit)).toEqual(['budget_exceeds_parent', 'expiry_after_parent', 'scope_not_subset']);
  });

  it('must be on the parent’s work item', async () => {
    const { lease } = await parent();
    const other = await api.createWorkItem();
    await expectLeaseError(
      () => api.issueLease({ workItemId: other.id, parentLeaseId: lease.id, scope: ['repo:a'], expiresAt: inHours(1), budget: parentBudget }),
      'wrong_work_item',
    );
  });
});

describe('revoked and expired leases', () => {
  it('revoking a lease revokes its children, and neither starts new episodes nor issues children', async () => {
    const { workItem, lease } = await leaseOn({ episodes: 5 });
    const child = await api.issueLeaseOk({ workItemId: workItem.id, parentLeaseId: lease.id, budget: { episodes: 2 }, expiresAt: inHours(0.5) });
    const grandchild = await api.issueLeaseOk({ workItemId: workItem.id, parentLeaseId: child.id, budget: { episodes: 1 }, expiresAt: inHours(0.25) });
    const revoked = await api.revokeLease(lease.id);
    expect(revoked.lease.revokedAt).not.toBeNull();
    for (const id of [child.id, grandchild.id]) expect((await api.lease(id)).revokedAt).not.toBeNull();
    for (const id of [lease.id, child.id, grandchild.id]) {
      const refused = await expectLeaseError(() => api.start(startInput({ leaseId: id })), 'revoked');
      expect(refused.leaseId).toBe(id);
    }
    await expectLeaseError(
      () => api.issueLease({ workItemId: workItem.id, parentLeaseId: lease.id, budget: { episodes: 1 }, expiresAt: inHours(0.5) }),
      'revoked',
    );
    expect((await ledgerTypes(t, t.keys.tenantId)).at(-1)).toBe('lease.revoked');
  });

  it('revoking a child leaves its parent usable', async () => {
    const { workItem, lease } = await leaseOn({ episodes: 5 });
    const child = await api.issueLeaseOk({ workItemId: workItem.id, parentLeaseId: lease.id, budget: { episodes: 1 }, expiresAt: inHours(0.5) });
    await api.revokeLease(child.id);
    expect((await api.lease(lease.id)).revokedAt).toBeNull();
    await api.startOk(startInput({ leaseId: lease.id }));
  });

  it('takes a lease id in any letter case, as PostgreSQL does: a child revoked by its id in upper case', async () => {
    const { workItem, lease } = await leaseOn({ episodes: 5 });
    const child = await api.issueLeaseOk({ workItemId: workItem.id, parentLeaseId: lease.id.toUpperCase(), budget: { episodes: 1 }, expiresAt: inHours(0.5) });
    expect((await api.lease(child.id.toUpperCase())).__typename).toBe('Lease');
    const revoked = await api.revokeLease(child.id.toUpperCase());
    expect(revoked.__typename).toBe('LeasePayload');
    expect((await api.lease(child.id)).revokedAt).not.toBeNull();
    const { rows } = await t.services.db.pool.query<{ payload: { leaseId: string } }>(
      `SELECT payload FROM ledger_events WHERE tenant_id = $1 AND type = 'lease.revoked' ORDER BY seq DESC LIMIT 1`,
      [t.keys.tenantId],
    );
    expect(rows[0]?.payload.leaseId).toBe(child.id);
    await api.startOk(startInput({ leaseId: lease.id }));
  });

  it('matches a work item id in any letter case against the lease: a child lease and an episode on it', async () => {
    const { workItem, lease } = await leaseOn({ episodes: 5 });
    const upper = workItem.id.toUpperCase();
    const child = await api.issueLeaseOk({ workItemId: upper, parentLeaseId: lease.id, budget: { episodes: 2 }, expiresAt: inHours(0.5) });
    const episode = await api.startOk(startInput({ leaseId: child.id, workItemId: upper }));
    expect(episode.workItem?.id).toBe(workItem.id);
    const grandchild = await api.issueLeaseOk({
      workItemId: upper,
      parentLeaseId: child.id.toUpperCase(),
      budget: { episodes: 1 },
      expiresAt: inHours(0.25),
    });
    const { rows } = await t.services.db.pool.query<{ payload: { leaseId: string; parentLeaseId: string } }>(
      `SELECT payload FROM ledger_events WHERE tenant_id = $1 AND type = 'lease.issued' ORDER BY seq DESC LIMIT 1`,
      [t.keys.tenantId],
    );
    // The ledger keeps the stored spelling, whatever the request's.
    expect(rows[0]?.payload).toMatchObject({ leaseId: grandchild.id, parentLeaseId: child.id });
  });

  it('an expired lease starts no episode', async () => {
    // The API refuses a past expiry, so the lease expires in the database: time passing, not a request.
    const { lease } = await leaseOn({ episodes: 5 });
    await t.services.db.pool.query(`UPDATE leases SET expires_at = now() - interval '1 second' WHERE id = $1`, [lease.id]);
    await expectLeaseError(() => api.start(startInput({ leaseId: lease.id })), 'expired');
  });
});
