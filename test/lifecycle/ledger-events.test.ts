// Every mutation appends its ledger event in the same transaction as its change, to a per-tenant
// hash chain with a gapless seq; a refused mutation appends nothing; steps.logged events carry
// the content hash of each step they cover.
import { describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { chainHash, GENESIS_HASH } from '../../src/ledger/format/hash.ts';
import { rowToPreparedStep, stepContentHash } from '../../src/steps/prepare.ts';
import { type TenantKeys, type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { client, counts, LEARNING_EVENTS, range, startInput, step, steps } from './support.ts';

let t: TestApp;
// Learning runs as soon as an episode ends and appends patterns.extracted on its own schedule;
// these tests count the events of the lifecycle's own mutations, so no learning worker runs here.
const NO_LEARNING = { LEARNING_WORKERS: '0' };
useApp((app) => (t = app), NO_LEARNING);

interface EventRow {
  seq: number;
  type: string;
  episodeId: string | null;
  workItemId: string | null;
  payload: Json;
  prevHash: string;
  hash: string;
  createdAt: Date;
}

async function events(tenantId: string): Promise<EventRow[]> {
  const { rows } = await t.services.db.pool.query(
    `SELECT seq::int AS seq, type, episode_id AS "episodeId", work_item_id AS "workItemId", payload, prev_hash AS "prevHash", hash, created_at AS "createdAt"
       FROM ledger_events WHERE tenant_id = $1 ORDER BY seq`,
    [tenantId],
  );
  return rows;
}

/** Recomputes every hash from the stored fields and checks the links; returns the head hash. */
function verifyChain(tenantId: string, rows: EventRow[]): string {
  let prev = GENESIS_HASH;
  for (const row of rows) {
    expect(row.prevHash, `prevHash of seq ${row.seq}`).toBe(prev);
    const recomputed = chainHash(prev, {
      tenantId,
      seq: row.seq,
      type: row.type,
      episodeId: row.episodeId,
      workItemId: row.workItemId,
      payload: row.payload,
      createdAt: row.createdAt.toISOString(),
    });
    expect(recomputed, `hash of seq ${row.seq}`).toBe(row.hash);
    prev = row.hash;
  }
  return prev;
}

/** The content hash of a step, recomputed from its stored row. */
function rowContentHash(r: Json): string {
  return stepContentHash(r.episode_id, rowToPreparedStep(r));
}

describe('the ledger of a lifecycle', () => {
  let tenant: TenantKeys;
  let episodeId: string;

  it('holds exactly one event per change, in order, and nothing for refused mutations', async () => {
    tenant = await t.addTenant('ledger-lifecycle');
    const api = client(t, tenant.write);
    const workItem = await api.createWorkItem('ledger');
    const lease = await api.issueLeaseOk({ workItemId: workItem.id, budget: { episodes: 5 } });
    const episode = await api.startOk(startInput({ leaseId: lease.id, budget: { maxSteps: 6 }, onBudgetExhausted: 'CONVERGE' }));
    episodeId = episode.id;
    await api.logStepsOk(episodeId, [step({ parameters: { password: 'p', q: 1 } }), step({ kind: 'llm_call', tokens: 12, cost: 0.125 })]);
    await api.checkpoint(episodeId, { cursor: 2 }, 'two');
    await api.block(episodeId, 'approve deploy?', { target: 'prod' });
    await api.resume(episodeId, true, 'bob', 'ok');
    await api.critique(episodeId, 'fine so far', 0.7, [{ name: 'care', score: 0.8 }]);

    // Refused mutations: each is a typed error and must append nothing.
    const before = await counts(t, tenant.tenantId);
    expect((await api.resume(episodeId)).__typename).toBe('IllegalTransitionError');
    expect((await api.logSteps(episodeId, [step({ observation: 'x'.repeat(10 * 1024 + 1) })])).__typename).toBe('InputLimitError');
    expect((await api.complete(episodeId, { kind: 'SUCCESS', verdict: '' })).__typename).toBe('InputLimitError');
    expect((await api.start(startInput({ leaseId: lease.id, episodeNumber: 1 }))).__typename).toBe('InputLimitError');
    expect((await api.issueLease({ workItemId: workItem.id, parentLeaseId: lease.id, budget: { episodes: 9 } })).__typename).toBe('LeaseError');
    expect(await counts(t, tenant.tenantId)).toEqual(before);

    const exhausting = await api.logStepsOk(episodeId, steps(3));
    expect(exhausting.results.map((r: Json) => r.status)).toEqual(['ACCEPTED', 'ACCEPTED', 'REJECTED']);
    expect(exhausting.episode.status).toBe('COMPLETED');
    await api.critique(episodeId, 'converged', 0.5);
    const second = await api.startOk(startInput({ leaseId: lease.id }));
    await api.cancel(second.id, 'superseded');
    await api.revokeLease(lease.id);
    expect((await api.start(startInput({ leaseId: lease.id }))).__typename).toBe('LeaseError');

    const rows = await events(tenant.tenantId);
    expect(rows.map((r) => r.type).filter((type) => !LEARNING_EVENTS.includes(type))).toEqual([
      'work_item.created',
      'lease.issued',
      'episode.started',
      'steps.logged',
      'checkpoint.saved',
      'steps.logged', // approval_requested
      'episode.blocked',
      'steps.logged', // approval_resolved
      'episode.resumed',
      'critique.recorded',
      'steps.logged',
      'episode.budget_exhausted',
      'episode.completed',
      'lease.charged',
      'critique.recorded',
      'episode.started',
      'episode.cancelled',
      'lease.charged',
      'lease.revoked',
    ]);
    expect(rows.map((r) => r.seq)).toEqual(range(1, rows.length));
    const byType = (type: string) => rows.filter((r) => r.type === type);
    expect(byType('episode.started').map((r) => r.episodeId)).toEqual([episodeId, second.id]);
    for (const r of rows.filter((x) => x.type.startsWith('episode.') || x.type.startsWith('steps.') || x.type.startsWith('c'))) {
      expect(r.workItemId, r.type).toBe(workItem.id);
    }
    expect(must(byType('episode.budget_exhausted')[0]).payload).toMatchObject({ resource: 'steps', policy: 'converge' });
    expect(must(byType('lease.charged')[0]).payload).toMatchObject({ leaseId: lease.id, consumed: { episodes: 1 } });
  });

  it('is a hash chain that verifies from genesis to the head', async () => {
    const rows = await events(tenant.tenantId);
    const head = verifyChain(tenant.tenantId, rows);
    const { rows: heads } = await t.services.db.pool.query('SELECT seq::int AS seq, hash FROM ledger_heads WHERE tenant_id = $1', [tenant.tenantId]);
    expect(heads).toEqual([{ seq: rows.length, hash: head }]);
  });

  it('covers every stored step exactly once, with the step content hash', async () => {
    const rows = await events(tenant.tenantId);
    const covered = rows
      .filter((r) => r.type === 'steps.logged')
      .flatMap((r) => r.payload.steps.map((s: Json) => ({ key: `${r.episodeId}:${s.n}`, hash: s.hash })));
    const { rows: stored } = await t.services.db.pool.query('SELECT * FROM steps WHERE tenant_id = $1 ORDER BY episode_id, step_number', [tenant.tenantId]);
    expect(stored).toHaveLength(6);
    expect(covered.map((c) => c.key).sort()).toEqual(stored.map((s) => `${s.episode_id}:${s.step_number}`).sort());
    for (const s of stored) {
      const event = must(covered.find((c) => c.key === `${s.episode_id}:${s.step_number}`));
      expect(event.hash).toBe(s.content_hash);
      expect(rowContentHash(s)).toBe(s.content_hash);
    }
  });

  it('detects a step altered in its table: its content no longer matches the hash in the chain', async () => {
    const {
      rows: [s],
    } = await t.services.db.pool.query('SELECT * FROM steps WHERE episode_id = $1 AND step_number = 1', [episodeId]);
    const tampered = { ...s, parameters: { password: '[REDACTED]', q: 2 } };
    expect(rowContentHash(tampered)).not.toBe(s.content_hash);
  });
});

describe('ledger under concurrency', () => {
  it('keeps seq gapless and the chain valid with many concurrent writers', async () => {
    const tenant = await t.addTenant('ledger-concurrent');
    const api = client(t, tenant.write);
    const episodes = await Promise.all(Array.from({ length: 5 }, () => api.startOk()));
    await Promise.all([
      ...episodes.flatMap((e) => Array.from({ length: 6 }, (_, i) => (i % 2 ? api.logStep(e.id, step()) : api.logStepsOk(e.id, steps(2))))),
      ...episodes.map((e) => api.checkpoint(e.id)),
      ...Array.from({ length: 10 }, () => api.startOk()),
    ]);
    const rows = await events(tenant.tenantId);
    expect(rows.map((r) => r.seq)).toEqual(range(1, rows.length));
    expect(rows.filter((r) => r.type === 'episode.started')).toHaveLength(15);
    expect(rows.filter((r) => r.type === 'checkpoint.saved')).toHaveLength(5);
    const loggedSteps = rows.filter((r) => r.type === 'steps.logged').reduce((n, r) => n + r.payload.steps.length, 0);
    expect(loggedSteps).toBe(5 * (3 * 2 + 3));
    verifyChain(tenant.tenantId, rows);
  });

  it('keeps tenants on separate chains, each starting at seq 1', async () => {
    const a = await t.addTenant('chain-a');
    const b = await t.addTenant('chain-b');
    await Promise.all([client(t, a.write).startOk(), client(t, b.write).startOk(), client(t, a.write).startOk()]);
    expect((await events(a.tenantId)).map((r) => r.seq)).toEqual([1, 2]);
    expect((await events(b.tenantId)).map((r) => r.seq)).toEqual([1]);
    verifyChain(b.tenantId, await events(b.tenantId));
  });
});

describe('a change and its event commit together', () => {
  // A CHECK constraint makes the ledger insert of one event type fail: the change must roll back with it.
  async function withLedgerRefusing<T>(type: string, fn: () => Promise<T>): Promise<T> {
    await t.services.db.pool.query(`ALTER TABLE ledger_events ADD CONSTRAINT refuse_for_test CHECK (type <> '${type}') NOT VALID`);
    try {
      return await fn();
    } finally {
      await t.services.db.pool.query('ALTER TABLE ledger_events DROP CONSTRAINT refuse_for_test');
    }
  }

  it('startEpisode: no episode without its episode.started event', async () => {
    const before = await counts(t, t.keys.tenantId);
    const res = await withLedgerRefusing('episode.started', () =>
      t.gql('mutation { startEpisode(input: {taskDescription: "x", taskType: "code"}) { __typename } }'),
    );
    expect(res.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
    expect(await counts(t, t.keys.tenantId)).toEqual(before);
  });

  it('logSteps (group commit): no steps and no usage change without the steps.logged event', async () => {
    const api = client(t);
    const episode = await api.startOk();
    const before = await counts(t, t.keys.tenantId);
    const res = await withLedgerRefusing('steps.logged', () =>
      t.gql('mutation($id: ID!) { logSteps(episodeId: $id, steps: [{tool: "x", tokens: 5}]) { __typename } }', { id: episode.id }),
    );
    expect(res.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
    expect(await counts(t, t.keys.tenantId)).toEqual(before);
    const { rows } = await t.services.db.pool.query('SELECT step_count, used_tokens::int AS tokens FROM episodes WHERE id = $1', [episode.id]);
    expect(rows[0]).toEqual({ step_count: 0, tokens: 0 });
  });

  it('saveCheckpoint and completeEpisode: nothing changes without their events', async () => {
    const api = client(t);
    const episode = await api.startOk();
    const before = await counts(t, t.keys.tenantId);
    const cp = await withLedgerRefusing('checkpoint.saved', () =>
      t.gql('mutation($id: ID!) { saveCheckpoint(episodeId: $id, state: {a: 1}) { __typename } }', { id: episode.id }),
    );
    expect(cp.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
    const done = await withLedgerRefusing('episode.completed', () =>
      t.gql('mutation($id: ID!) { completeEpisode(episodeId: $id, outcome: {kind: SUCCESS, verdict: "ok"}) { __typename } }', { id: episode.id }),
    );
    expect(done.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
    expect(await counts(t, t.keys.tenantId)).toEqual(before);
    expect((await api.episode(episode.id)).status).toBe('RUNNING');
  });
});
