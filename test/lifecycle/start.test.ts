// startEpisode: what it stores, idempotent starts by dedupeKey (also under concurrency), and
// the idempotency-conflict error.
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.ts';
import { type Client, client, counts, ledgerTypes, startInput, useApp } from './support.ts';

let t: TestApp;
let api: Client;
useApp((app) => ([t, api] = [app, client(app)]));

describe('startEpisode', () => {
  it('opens a running episode with the context, goal spec, budget and policy it was given', async () => {
    const episode = await api.startOk(
      startInput({
        agent: 'coder-1',
        context: { language: 'typescript', framework: 'vitest', complexity: 'COMPLEX', domain: 'web', tags: ['api', 'auth'] },
        goalSpec: { done: 'tests pass' },
        maxAttempts: 3,
        mode: 'DRY_RUN',
        budget: { maxSteps: 10, maxTokens: 5000, maxToolCalls: 4 },
        onBudgetExhausted: 'CONVERGE',
        metadata: { ticket: 'ENG-1' },
      }),
    );
    expect(episode).toMatchObject({
      status: 'RUNNING',
      stepCount: 0,
      attempt: 1,
      maxAttempts: 3,
      mode: 'DRY_RUN',
      onBudgetExhausted: 'CONVERGE',
      agent: 'coder-1',
      goalSpec: { done: 'tests pass' },
      metadata: { ticket: 'ENG-1' },
      context: { language: 'typescript', framework: 'vitest', complexity: 'COMPLEX', domain: 'web', tags: ['api', 'auth'] },
      stopReason: null,
      outcome: null,
      endedAt: null,
      deadlineAt: null,
      episodeNumber: null,
    });
    expect(episode.budgetUsage).toEqual([
      { resource: 'tokens', used: 0, limit: 5000, remaining: 5000, fraction: 0 },
      { resource: 'steps', used: 0, limit: 10, remaining: 10, fraction: 0 },
      { resource: 'tool_calls', used: 0, limit: 4, remaining: 4, fraction: 0 },
      expect.objectContaining({ resource: 'wall_time', limit: null, remaining: null, fraction: null }),
    ]);
    expect(await ledgerTypes(t, t.keys.tenantId, episode.id)).toEqual(['episode.started']);
  });

  it('answers NotFoundError for an unknown parent episode and writes nothing', async () => {
    const before = await counts(t, t.keys.tenantId);
    const result = await api.start(startInput({ parentEpisodeId: '00000000-0000-0000-0000-000000000001' }));
    expect(result).toMatchObject({ __typename: 'NotFoundError', entity: 'Episode' });
    expect(await counts(t, t.keys.tenantId)).toEqual(before);
  });
});

describe('dedupeKey', () => {
  it('returns the same episode for the same key and input, marked deduplicated, without a second row or event', async () => {
    const input = startInput({ dedupeKey: 'run-1', context: { tags: ['x'] }, budget: { maxSteps: 5 } });
    const first = await api.ok(
      `mutation($input: StartEpisodeInput!) { startEpisode(input: $input) { __typename ... on StartEpisodePayload { deduplicated episode { id } } } }`,
      { input },
      'StartEpisodePayload',
    );
    const before = await counts(t, t.keys.tenantId);
    const again = await api.start(input);
    expect(again).toMatchObject({ __typename: 'StartEpisodePayload', deduplicated: true, episode: { id: first.episode.id, dedupeKey: 'run-1' } });
    expect(first.deduplicated).toBe(false);
    expect(await counts(t, t.keys.tenantId)).toEqual(before);
  });

  it('answers IdempotencyConflictError for the same key with different input and writes nothing', async () => {
    const original = await api.startOk(startInput({ dedupeKey: 'run-2', taskDescription: 'first' }));
    const before = await counts(t, t.keys.tenantId);
    for (const changed of [{ taskDescription: 'second' }, { budget: { maxSteps: 3 } }, { agent: 'someone-else' }]) {
      const result = await api.start(startInput({ dedupeKey: 'run-2', taskDescription: 'first', ...changed }));
      expect(result).toMatchObject({ __typename: 'IdempotencyConflictError', dedupeKey: 'run-2', existingEpisodeId: original.id });
    }
    expect(await counts(t, t.keys.tenantId)).toEqual(before);
  });

  it('gives concurrent starts with one key one episode and one episode.started event', async () => {
    const input = startInput({ dedupeKey: 'race-1' });
    const results = await Promise.all(Array.from({ length: 12 }, () => api.start(input)));
    expect(results.map((r) => r.__typename)).toEqual(Array(12).fill('StartEpisodePayload'));
    const ids = new Set(results.map((r) => r.episode.id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => !r.deduplicated)).toHaveLength(1);
    const { rows } = await t.services.db.pool.query(`SELECT id FROM episodes WHERE tenant_id = $1 AND dedupe_key = 'race-1'`, [t.keys.tenantId]);
    expect(rows.map((r) => r.id)).toEqual([...ids]);
    expect(await ledgerTypes(t, t.keys.tenantId, rows[0].id)).toEqual(['episode.started']);
  });

  it('issues one episode number for concurrent deduplicated starts on a work item', async () => {
    const workItem = await api.createWorkItem('dedupe numbering');
    const input = startInput({ dedupeKey: 'race-2', workItemId: workItem.id });
    const results = await Promise.all(Array.from({ length: 8 }, () => api.start(input)));
    expect(new Set(results.map((r) => r.episode?.id)).size).toBe(1);
    expect(results.map((r) => r.episode.episodeNumber)).toEqual(Array(8).fill(1));
    // A deduplicated start changes nothing, so the work item's counter moved once.
    expect((await api.workItem(workItem.id)).lastEpisodeNumber).toBe(1);
    expect((await api.startOk(startInput({ workItemId: workItem.id }))).episodeNumber).toBe(2);
  });

  it('scopes keys to the tenant: another tenant with the same key gets its own episode', async () => {
    const other = await t.addTenant('dedupe-other');
    const mine = await api.startOk(startInput({ dedupeKey: 'shared-key' }));
    const theirs = await client(t, other.write).startOk(startInput({ dedupeKey: 'shared-key' }));
    expect(theirs.id).not.toBe(mine.id);
  });
});
