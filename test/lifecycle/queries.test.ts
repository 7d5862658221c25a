// Reading episodes: episode(id) with its steps connection, checkpoints, usage and stop reason;
// episodes(filter) where each filter narrows; tenant isolation; read keys cannot write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { startTestApp, type TenantKeys, type TestApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { type Client, client, counts, startInput, step, steps } from './support.ts';

let t: TestApp;
let api: Client;
let other: TenantKeys;
const ids: Record<string, string> = {};
let workItemId: string;

beforeAll(async () => {
  t = await startTestApp();
  api = client(t);
  other = await t.addTenant('tenant-b');
  workItemId = (await api.createWorkItem('shared work')).id;
  const start = async (name: string, input: Record<string, unknown>) => (ids[name] = (await api.startOk(startInput(input))).id);
  await start('login', {
    taskDescription: 'Fix the LOGIN bug',
    taskType: 'code',
    agent: 'alice',
    workItemId,
    context: { domain: 'web', language: 'ts', tags: ['api', 'urgent'] },
  });
  await start('etl', {
    taskDescription: 'Speed up the nightly ETL',
    taskType: 'code',
    agent: 'bob',
    context: { domain: 'data', language: 'python', tags: ['etl'] },
  });
  await start('review', {
    taskDescription: 'Review the login flow',
    taskType: 'review',
    agent: 'alice',
    workItemId,
    context: { domain: 'web', language: 'ts', tags: ['api'] },
  });
  await start('docs', { taskDescription: 'Write the docs', taskType: 'docs', agent: 'carol', context: { domain: 'web', tags: [] } });
  await start('ops', {
    taskDescription: 'Rotate certificates',
    taskType: 'ops',
    agent: 'carol',
    context: { domain: 'ops', language: 'bash', tags: ['urgent'] },
  });
  await api.complete(must(ids.login), { kind: 'SUCCESS', verdict: 'fixed', artifacts: [] });
  await api.complete(must(ids.etl), { kind: 'PARTIAL', verdict: 'faster', completed: ['a'], failed: ['b'] });
  await api.fail(must(ids.review), 'reviewer unavailable');
  await api.block(must(ids.ops), 'needs a change window');
  // Fixed start times (a day apart) instead of the clock's, so order and time ranges are exact.
  const days: Record<string, number> = { login: 1, etl: 2, review: 3, docs: 4, ops: 5 };
  for (const [name, day] of Object.entries(days)) {
    await t.services.db.pool.query('UPDATE episodes SET started_at = $2 WHERE id = $1', [ids[name], new Date(Date.UTC(2026, 0, day))]);
  }
  // The other tenant has a look-alike that must never show up.
  ids.foreign = (
    await client(t, other.write).startOk(
      startInput({
        taskDescription: 'Fix the login bug',
        taskType: 'code',
        agent: 'alice',
        context: { domain: 'web', language: 'ts', tags: ['api', 'urgent'] },
      }),
    )
  ).id;
});
afterAll(() => t.stop());

const LIST = `query($filter: EpisodeFilter, $first: Int, $after: String) {
  episodes(filter: $filter, first: $first, after: $after) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } }
}`;

async function list(filter: Record<string, unknown> | null, token = t.keys.read): Promise<string[]> {
  const res = await t.gql(LIST, { filter, first: 100 }, token);
  expect(res.errors).toBeUndefined();
  return res.data.episodes.edges.map((e: Json) => e.node.id);
}

const named = (...names: string[]) => names.map((n) => ids[n]).sort();
const sorted = (xs: string[]) => [...xs].sort();

describe('episodes(filter)', () => {
  it('lists every episode of the tenant, newest first, and nothing of another tenant', async () => {
    expect(await list(null)).toEqual(['ops', 'docs', 'review', 'etl', 'login'].map((n) => ids[n]));
  });

  it.each([
    ['status', { status: ['COMPLETED'] }, ['login', 'etl']],
    ['several statuses', { status: ['RUNNING', 'BLOCKED'] }, ['docs', 'ops']],
    ['taskType', { taskType: 'code' }, ['login', 'etl']],
    ['domain', { domain: 'web' }, ['login', 'review', 'docs']],
    ['language', { language: 'ts' }, ['login', 'review']],
    ['one tag', { tags: ['api'] }, ['login', 'review']],
    ['all of several tags', { tags: ['api', 'urgent'] }, ['login']],
    ['work item', { workItemId: 'WORK_ITEM' }, ['login', 'review']],
    ['agent', { agent: 'carol' }, ['docs', 'ops']],
    ['outcome SUCCESS', { outcome: 'SUCCESS' }, ['login']],
    ['outcome PARTIAL', { outcome: 'PARTIAL' }, ['etl']],
    ['outcome FAILURE', { outcome: 'FAILURE' }, ['review']],
    ['text, case-insensitively', { text: 'login' }, ['login', 'review']],
    ['several filters at once', { domain: 'web', status: ['COMPLETED', 'FAILED'], agent: 'alice', tags: ['urgent'] }, ['login']],
    ['a filter nothing matches', { taskType: 'nope' }, []],
  ])('narrows by %s', async (_name, filter, expected) => {
    const f = 'workItemId' in filter ? { ...filter, workItemId } : filter;
    expect(sorted(await list(f))).toEqual(named(...expected));
  });

  it('narrows by a time range: startedAfter inclusive, startedBefore exclusive', async () => {
    const at = (day: number) => new Date(Date.UTC(2026, 0, day)).toISOString();
    expect(sorted(await list({ startedAfter: at(2) }))).toEqual(named('etl', 'review', 'docs', 'ops'));
    expect(sorted(await list({ startedBefore: at(3) }))).toEqual(named('login', 'etl'));
    expect(sorted(await list({ startedAfter: at(2), startedBefore: at(4) }))).toEqual(named('etl', 'review'));
    expect(await list({ startedAfter: at(6) })).toEqual([]);
  });

  it('pages with first/after without repeating or skipping', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page++) {
      const res: Json = await t.gql(LIST, { filter: null, first: 2, after }, t.keys.read);
      seen.push(...res.data.episodes.edges.map((e: Json) => e.node.id));
      if (!res.data.episodes.pageInfo.hasNextPage) break;
      after = res.data.episodes.pageInfo.endCursor;
    }
    expect(seen).toEqual(await list(null));
  });
});

describe('episode(id)', () => {
  it('pages its steps in step order with first/after', async () => {
    const episode = await api.startOk();
    await api.logStepsOk(
      episode.id,
      steps(3, (i) => ({ action: `a${i + 1}` })),
    );
    await api.logStep(episode.id, step({ action: 'a4' }));
    await api.logStep(episode.id, step({ action: 'a5' }));
    const q = `query($id: ID!, $after: String) { episode(id: $id) { ... on Episode {
      steps(first: 2, after: $after) { edges { cursor node { stepNumber action } } pageInfo { hasNextPage endCursor } } } } }`;
    const pages: Json[] = [];
    let after: string | null = null;
    do {
      const page: Json = (await api.call(q, { id: episode.id, after })).steps;
      pages.push(page.edges.map((e: Json) => [e.node.stepNumber, e.node.action]));
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    } while (after);
    expect(pages).toEqual([
      [
        [1, 'a1'],
        [2, 'a2'],
      ],
      [
        [3, 'a3'],
        [4, 'a4'],
      ],
      [[5, 'a5']],
    ]);
  });

  it('shows checkpoints, usage against budget and the stop reason', async () => {
    const episode = await api.startOk(startInput({ budget: { maxSteps: 4, maxTokens: 500 } }));
    await api.logStepsOk(episode.id, [step({ tokens: 100 })]);
    await api.checkpoint(episode.id, { phase: 'one' }, 'first');
    await api.logStepsOk(episode.id, [step({ tokens: 50 }), step({ tokens: 50 })]);
    await api.checkpoint(episode.id, { phase: 'two' }, 'second');
    await api.block(episode.id, 'wait');
    const q = `query($id: ID!) { episode(id: $id) { ... on Episode {
      status stepCount checkpoints { stepNumber label state }
      budgetUsage { resource used limit remaining fraction }
      stopReason { kind reason isSuccessful canContinue } } } }`;
    const read = await api.call(q, { id: episode.id });
    expect(read).toMatchObject({
      status: 'BLOCKED',
      stepCount: 3,
      checkpoints: [
        { stepNumber: 1, label: 'first', state: { phase: 'one' } },
        { stepNumber: 3, label: 'second', state: { phase: 'two' } },
      ],
      stopReason: { kind: 'blocked', reason: 'wait', isSuccessful: false, canContinue: true },
    });
    expect(read.budgetUsage.slice(0, 2)).toEqual([
      { resource: 'tokens', used: 200, limit: 500, remaining: 300, fraction: 0.4 },
      { resource: 'steps', used: 3, limit: 4, remaining: 1, fraction: 0.75 },
    ]);
  });

  it('shows the work item and its episodes in number order', async () => {
    const res = await api.workItem(workItemId);
    expect(res.episodes.edges.map((e: Json) => [e.node.episodeNumber, e.node.id])).toEqual([
      [1, ids.login],
      [2, ids.review],
    ]);
  });
});

describe('tenant isolation', () => {
  it('another tenant never sees, reads or changes these episodes', async () => {
    expect(await list(null, other.read)).toEqual([ids.foreign]);
    expect(await list({ text: 'login' }, other.read)).toEqual([ids.foreign]);
    const theirs = client(t, other.write);
    expect(await theirs.episode(must(ids.docs))).toMatchObject({ __typename: 'NotFoundError', entity: 'Episode', notFoundId: ids.docs });
    expect(await theirs.workItem(workItemId)).toMatchObject({ __typename: 'NotFoundError' });
    const before = await counts(t, t.keys.tenantId);
    expect(await theirs.logSteps(must(ids.docs), steps(1))).toMatchObject({ __typename: 'NotFoundError' });
    expect(await theirs.complete(must(ids.docs))).toMatchObject({ __typename: 'NotFoundError' });
    expect(await theirs.cancel(must(ids.docs))).toMatchObject({ __typename: 'NotFoundError' });
    expect(await theirs.start(startInput({ workItemId }))).toMatchObject({ __typename: 'NotFoundError', entity: 'WorkItem' });
    expect(await theirs.start(startInput({ parentEpisodeId: ids.docs }))).toMatchObject({ __typename: 'NotFoundError', entity: 'Episode' });
    expect(await counts(t, t.keys.tenantId)).toEqual(before);
    expect((await api.episode(must(ids.docs))).status).toBe('RUNNING');
  });
});

describe('scopes', () => {
  it('a read key can query but every lifecycle mutation is FORBIDDEN and writes nothing', async () => {
    const before = await counts(t, t.keys.tenantId);
    const attempts: Array<[string, Record<string, unknown>]> = [
      ['mutation { startEpisode(input: {taskDescription: "x", taskType: "code"}) { __typename } }', {}],
      ['mutation($id: ID!) { logSteps(episodeId: $id, steps: [{tool: "x"}]) { __typename } }', { id: ids.docs }],
      ['mutation($id: ID!) { logStep(episodeId: $id, step: {tool: "x"}) { __typename } }', { id: ids.docs }],
      ['mutation($id: ID!) { saveCheckpoint(episodeId: $id, state: {}) { __typename } }', { id: ids.docs }],
      ['mutation($id: ID!) { blockEpisode(episodeId: $id, reason: "r") { __typename } }', { id: ids.docs }],
      ['mutation($id: ID!) { recordCritique(episodeId: $id, verdict: "v") { __typename } }', { id: ids.docs }],
      ['mutation($id: ID!) { completeEpisode(episodeId: $id, outcome: {kind: SUCCESS, verdict: "v"}) { __typename } }', { id: ids.docs }],
      ['mutation($id: ID!) { cancelEpisode(episodeId: $id) { __typename } }', { id: ids.docs }],
      ['mutation { createWorkItem(title: "w") { __typename } }', {}],
      ['mutation($w: ID!) { issueLease(workItemId: $w, issuer: "i", holder: "h", expiresAt: "2099-01-01T00:00:00.000Z") { __typename } }', { w: workItemId }],
    ];
    for (const [query, variables] of attempts) {
      const res = await t.gql(query, variables, t.keys.read);
      expect(res.errors?.[0]?.extensions?.code, query).toBe('FORBIDDEN');
      expect(
        Object.values(res.data ?? {}).every((v) => v === null),
        query,
      ).toBe(true);
    }
    expect(await counts(t, t.keys.tenantId)).toEqual(before);
    expect((await client(t, t.keys.read).episode(must(ids.docs))).status).toBe('RUNNING');
  });

  it('a write key may drive the lifecycle', async () => {
    const episode = await client(t, t.keys.write).startOk();
    expect((await client(t, t.keys.write).complete(episode.id)).episode.status).toBe('COMPLETED');
  });
});
