// Every door that answers stored text charges it to MAX_RESPONSE_BYTES before reading it, not only
// blob(hash) and Episode.steps (response-budget.test.ts): one step (episodeStep), the steps of a
// logSteps answer, each stepsLogged event, an episode's texts (episode, episodes, a mutation's
// episode) and its checkpoint states. A small budget (64 KiB) keeps the stored values small. Real server, real PostgreSQL.
import { expect, it } from 'vitest';
import { unwrap } from '../../src/client/index.ts';
import { clientFor } from '../client/support.ts';
import { waitUntil, watch } from '../ledger-live/support.ts';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { statementsDuring } from '../support/statements.ts';

const BUDGET = 64 * 1024;
let t: TestApp;
useApp((app) => (t = app), { MAX_RESPONSE_BYTES: String(BUDGET) });

/** 40,000 bytes: one fits in the budget, two do not. */
const LARGE = 40_000;

const aliased = (count: number, body: string) => `{ ${Array.from({ length: count }, (_, i) => `a${i}: ${body}`).join(' ')} }`;
const mutations = (count: number, body: string) => `mutation ${aliased(count, body)}`;

function expectRefusals(errors: readonly { extensions?: Record<string, unknown> }[] | undefined, count: number): void {
  expect(errors).toHaveLength(count);
  for (const e of errors ?? []) expect(e.extensions).toMatchObject({ code: 'RESPONSE_TOO_LARGE', budget: 'MAX_RESPONSE_BYTES', limit: BUDGET });
}

async function episodeWithStep(output: string): Promise<string> {
  const api = clientFor(t, t.keys.write);
  const episode = unwrap(await api.startEpisode({ taskDescription: 'one large step', taskType: 'budget' })).episode;
  unwrap(await api.logSteps(episode.id, [{ tool: 'sh', result: { kind: 'SUCCESS', output } }]));
  return episode.id;
}

it('charges episodeStep at its stored size before reading it: the second alias is a typed ResponseBudgetError', async () => {
  const output = 'o'.repeat(LARGE);
  const id = await episodeWithStep(output);
  const body = `episodeStep(episodeId: "${id}", stepNumber: 1) { __typename ... on Step { result } ... on ResponseBudgetError { budget limit requested message } }`;
  const answer = await t.gql(aliased(2, body), {}, t.keys.read);
  expect(answer.errors).toBeUndefined();
  const steps = Object.values(answer.data as Record<string, Json>);
  expect(steps.filter((s) => s.__typename === 'Step').map((s) => s.result.output)).toEqual([output]);
  const [refused] = steps.filter((s) => s.__typename === 'ResponseBudgetError');
  expect(refused).toMatchObject({ budget: 'MAX_RESPONSE_BYTES', limit: BUDGET, requested: expect.any(Number) });
  expect(refused.requested).toBeGreaterThan(LARGE);
  expect(refused.message).toContain('MAX_RESPONSE_BYTES');
  // One step past the budget by itself: refused, and no statement read its content.
  const past = await episodeWithStep('p'.repeat(BUDGET + 1));
  const sent = await statementsDuring(async () => {
    const one = await t.gql(`{ episodeStep(episodeId: "${past}", stepNumber: 1) { __typename ... on Step { result } } }`, {}, t.keys.read);
    expect((one.data as Json).episodeStep.__typename).toBe('ResponseBudgetError');
  });
  expect(sent.some((q) => /size_bytes/.test(q))).toBe(true);
  const readsResult = (q: string) => /"result"|\bresult\b/.test(q);
  expect(sent.filter(readsResult)).toEqual([]);
  // The same filter sees the read of a step within the budget.
  const served = await statementsDuring(() => t.gql(`{ episodeStep(episodeId: "${id}", stepNumber: 1) { ... on Step { result } } }`, {}, t.keys.read));
  expect(served.some(readsResult)).toBe(true);
  // Without a content field nothing is charged.
  const numbers = await t.gql(aliased(5, `episodeStep(episodeId: "${id}", stepNumber: 1) { ... on Step { stepNumber tool } }`), {}, t.keys.read);
  expect(numbers.errors).toBeUndefined();
  expect((numbers.data as Json).a4.stepNumber).toBe(1);
});

it("charges the steps a logSteps answer returns, a duplicate's original included", async () => {
  const api = clientFor(t, t.keys.write);
  const episode = unwrap(await api.startEpisode({ taskDescription: 'answer with steps', taskType: 'budget' })).episode;
  const steps = ['x', 'y'].map((c) => ({ tool: 'sh', sideEffectKey: c, result: { kind: 'SUCCESS', output: c.repeat(LARGE) } }));
  const log = 'mutation($e: ID!, $s: [StepInput!]!) { logSteps(episodeId: $e, steps: $s) { ... on LogStepsPayload { results { status step { result } } } } }';
  const first = await t.gql(log, { e: episode.id, s: steps }, t.keys.write);
  expectRefusals(first.errors, 1);
  const results = (first.data as Json).logSteps.results as Json[];
  expect(results.map((r) => r.status)).toEqual(['ACCEPTED', 'ACCEPTED']);
  expect(results.filter((r) => r.step !== null)).toHaveLength(1);
  // Repeating the keys with tiny steps answers the stored originals: charged at their size too.
  const repeat = steps.map((s) => ({ ...s, result: { kind: 'SUCCESS', output: 'tiny' } }));
  const again = await t.gql(log, { e: episode.id, s: repeat }, t.keys.write);
  expectRefusals(again.errors, 1);
  expect(((again.data as Json).logSteps.results as Json[]).map((r) => r.status)).toEqual(['DUPLICATE', 'DUPLICATE']);
});

it("charges an episode's texts before reading them: episode, a page of episodes, a mutation's episode", async () => {
  const description = 'd'.repeat(LARGE);
  const tenant = await t.addTenant('texts');
  const writer = clientFor(t, tenant.write);
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) ids.push(unwrap(await writer.startEpisode({ taskDescription: description, taskType: 'budget' })).episode.id);
  const one = await t.gql(aliased(2, `episode(id: "${ids[0]}") { ... on Episode { taskDescription } }`), {}, tenant.read);
  expectRefusals(one.errors, 1);
  expect(Object.values(one.data as Record<string, Json>).filter((e) => e?.taskDescription === description)).toHaveLength(1);
  let page: Awaited<ReturnType<TestApp['gql']>> | undefined;
  const sent = await statementsDuring(async () => {
    page = await t.gql('{ episodes(first: 10) { edges { node { id taskDescription } } } }', {}, tenant.read);
  });
  expectRefusals(page?.errors, 1);
  const readsText = (q: string) => /"task_description"|e\.task_description\b(?!\))/.test(q);
  expect(sent.filter(readsText)).toEqual([]);
  const served = await statementsDuring(() => t.gql(`{ episode(id: "${ids[0]}") { ... on Episode { taskDescription } } }`, {}, tenant.read));
  expect(served.some(readsText)).toBe(true);
  expect((page?.data as Json | null)?.episodes ?? null).toBeNull();
  const idsOnly = await t.gql('{ episodes(first: 10) { edges { node { id taskType } } } }', {}, tenant.read);
  expect(idsOnly.errors).toBeUndefined();
  expect((idsOnly.data as Json).episodes.edges).toHaveLength(2);
  // A mutation's answer: two aliased checkpoints of one large episode (mutations run in order), both
  // saved, the second's episode refused.
  const save = `saveCheckpoint(episodeId: "${ids[1]}", state: {}) { ... on EpisodePayload { episode { taskDescription } } }`;
  const saves = await t.gql(mutations(2, save), {}, tenant.write);
  expectRefusals(saves.errors, 1);
  expect((saves.data as Json).a0.episode.taskDescription).toBe(description);
  expect((saves.data as Json).a1.episode).toBeNull();
  const saved = await t.gql(`{ episode(id: "${ids[1]}") { ... on Episode { checkpoints { id } } } }`, {}, tenant.read);
  expect((saved.data as Json).episode.checkpoints).toHaveLength(2);
});

it("charges an episode's checkpoint states before reading them", async () => {
  const api = clientFor(t, t.keys.write);
  const episode = unwrap(await api.startEpisode({ taskDescription: 'checkpoints', taskType: 'budget' })).episode;
  // Saved with a document of its own: the client's answers select the whole episode, checkpoint states included.
  const save = 'mutation($e: ID!, $s: JSON!, $l: String) { saveCheckpoint(episodeId: $e, state: $s, label: $l) { __typename } }';
  for (const l of ['a', 'b']) expect((await t.gql(save, { e: episode.id, s: { blob: l.repeat(LARGE) }, l }, t.keys.write)).errors).toBeUndefined();
  const refused = await t.gql(`{ episode(id: "${episode.id}") { ... on Episode { checkpoints { state } } } }`, {}, t.keys.read);
  expectRefusals(refused.errors, 1);
  const labels = await t.gql(`{ episode(id: "${episode.id}") { ... on Episode { checkpoints { label } } } }`, {}, t.keys.read);
  expect(labels.errors).toBeUndefined();
  expect((labels.data as Json).episode.checkpoints.map((c: Json) => c.label)).toEqual(['a', 'b']);
});

it('charges each stepsLogged event on a budget of its own', async () => {
  const api = clientFor(t, t.keys.write);
  const episode = unwrap(await api.startEpisode({ taskDescription: 'watched', taskType: 'budget' })).episode;
  const step = (c: string) => ({ tool: 'sh', result: { kind: 'SUCCESS' as const, output: c.repeat(LARGE) } });
  // Two events of one large step each (the second fits only on a budget of its own), then one of two.
  for (const batch of [[step('p')], [step('q')], [step('r'), step('s')]]) expect(unwrap(await api.logSteps(episode.id, batch)).accepted).toBe(batch.length);
  const w = watch(t.wsClient(t.keys.read), 'subscription($id: ID!) { stepsLogged(episodeId: $id, afterSeq: 0) { seq steps { result } } }', { id: episode.id });
  await waitUntil(() => w.results.length === 3, 'the three replayed events');
  w.stop();
  const outputs = w.results.slice(0, 2).map((r) => r.data?.stepsLogged.steps.map((s: Json) => s.result.output[0]));
  expect(outputs).toEqual([['p'], ['q']]);
  expectRefusals(w.results[2]?.errors, 1);
});
