// Experiments through the API (issue 54): started, paused and resumed with ledger events; an
// episode's arm is assigned once, on its first retrieval, and every retrieval of the run sees it;
// the receipt records the arm; the answer has one shape in every arm; a control-arm run learns as
// any other; bad input is a typed error that changes nothing.
import { describe, expect, it } from 'vitest';
import { ledger } from '../learning/support.ts';
import { errorFields } from '../lifecycle/support.ts';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';

let t: TestApp;
useApp((app) => (t = app));

const EXPERIMENT_FIELDS = 'id name kind status controlShare control minSample seed scopeAgent scopeTaskType pausedAt';
const START = `mutation($input: StartExperimentInput!) { startExperiment(input: $input) { ${errorFields('InputLimitError')} ... on Experiment { ${EXPERIMENT_FIELDS} } } }`;
const PAUSE = `mutation($id: ID!) { pauseExperiment(id: $id) { ${errorFields('NotFoundError', 'IllegalTransitionError')} ... on Experiment { ${EXPERIMENT_FIELDS} } } }`;
const RESUME = `mutation($id: ID!) { resumeExperiment(id: $id) { ${errorFields('NotFoundError', 'IllegalTransitionError')} ... on Experiment { ${EXPERIMENT_FIELDS} } } }`;
const LIST = `{ experiments { ${EXPERIMENT_FIELDS} } }`;
const IMPACT = `query($id: ID!) { memoryImpact(experimentId: $id) { ${errorFields('NotFoundError')} ... on MemoryImpact { verdict sentence arms { arm assigned ended successes } unasked { arm assigned ended } } } }`;
const START_EPISODE = `mutation($input: StartEpisodeInput!) { startEpisode(input: $input) { __typename ... on StartEpisodePayload { episode { id } } } }`;
const RELEVANT = `query($task: RetrievalTaskInput!, $episodeId: ID) {
  relevantEpisodes(task: $task, episodeId: $episodeId) { ${errorFields('InputLimitError', 'NotFoundError')} ... on RelevantEpisodes { retrievalId episodes { episode { id } failed } warnings { episode { id } } } }
}`;
const COMPLETE = `mutation($id: ID!, $outcome: OutcomeInput!) {
  completeEpisode(episodeId: $id, outcome: $outcome, extractPatterns: SYNC) { __typename ... on FinishEpisodePayload { episode { id status reward { normalized } reflection { successes } } } }
}`;
const RECEIPT = `query($id: ID!) { retrievalReceipt(id: $id) { __typename ... on RetrievalReceipt { id arm experimentId episodes { id } } } }`;

async function data(query: string, variables: Record<string, unknown>, token: string): Promise<Json> {
  const res = await t.gql(query, variables, token);
  expect(res.errors).toBeUndefined();
  return Object.values(res.data ?? {})[0];
}

const task = { description: 'Speed up the nightly invoice export', taskType: 'perf', context: { domain: 'billing' } };

async function runEpisode(token: string, agent: string): Promise<string> {
  return (await data(START_EPISODE, { input: { taskDescription: task.description, taskType: 'perf', agent, context: task.context } }, token)).episode.id;
}

async function complete(token: string, id: string): Promise<Json> {
  return data(COMPLETE, { id, outcome: { kind: 'SUCCESS', verdict: 'faster', artifacts: ['export.py'] } }, token);
}

describe('experiments', () => {
  it('starts, pauses and resumes with ledger events, and refuses bad input and transitions with typed errors', async () => {
    const keys = await t.addTenant('experiments-lifecycle');
    const bad = await data(START, { input: { name: 'too much', controlShare: 0.95 } }, keys.write);
    expect(bad.__typename).toBe('InputLimitError');
    expect(bad.violations.map((v: Json) => v.field)).toEqual(['input.controlShare']);
    const noRanking = await data(START, { input: { name: 'x', kind: 'INTERLEAVE', control: 'NOTHING' } }, keys.write);
    expect(noRanking.violations.map((v: Json) => v.field)).toEqual(['input.control']);
    expect(await data(LIST, {}, keys.read)).toEqual([]);

    const started = await data(START, { input: { name: 'holdout 10 %', seed: 's1', scope: { agent: 'bot' } } }, keys.write);
    expect(started).toMatchObject({
      __typename: 'Experiment',
      kind: 'HOLDOUT',
      status: 'RUNNING',
      controlShare: 0.1,
      control: 'NOTHING',
      minSample: 100,
      seed: 's1',
      scopeAgent: 'bot',
    });
    const paused = await data(PAUSE, { id: started.id }, keys.write);
    expect(paused.status).toBe('PAUSED');
    expect(paused.pausedAt).not.toBeNull();
    expect((await data(PAUSE, { id: started.id }, keys.write)).__typename).toBe('IllegalTransitionError');
    expect((await data(RESUME, { id: started.id }, keys.write)).status).toBe('RUNNING');
    expect((await data(PAUSE, { id: 'not-a-uuid' }, keys.write)).__typename).toBe('NotFoundError');
    expect((await data(IMPACT, { id: '00000000-0000-4000-8000-000000000000' }, keys.read)).__typename).toBe('NotFoundError');
    expect((await t.gql(START, { input: { name: 'read key' } }, keys.read)).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');

    const events = await ledger(t, keys.tenantId);
    expect(events.map((e) => e.type)).toEqual(['experiment.started', 'experiment.paused', 'experiment.resumed']);
    expect(events[0]?.payload).toMatchObject({
      experimentId: started.id,
      kind: 'holdout',
      controlShare: 0.1,
      seed: 's1',
      scope: { agent: 'bot', workItemId: null },
    });
  });

  it('assigns each run one arm on its first retrieval, records it on every receipt, and serves the control nothing in the same shape', async () => {
    const keys = await t.addTenant('experiments-arms');
    const past = await runEpisode(keys.write, 'history');
    await complete(keys.write, past);
    // Half the runs in control: among 12 runs both arms turn up (all in one arm: 2 × 0.5^12).
    const experiment = await data(START, { input: { name: 'half', controlShare: 0.5, seed: 'arms', minSample: 10, scope: { agent: 'bot' } } }, keys.write);
    const arms = new Map<string, string>();
    for (let i = 0; i < 12; i += 1) {
      const id = await runEpisode(keys.write, 'bot');
      const first = await data(RELEVANT, { task, episodeId: id }, keys.write);
      const second = await data(RELEVANT, { task, episodeId: id }, keys.write);
      const receipts = [await data(RECEIPT, { id: first.retrievalId }, keys.read), await data(RECEIPT, { id: second.retrievalId }, keys.read)];
      expect(new Set(receipts.map((r) => r.arm)).size).toBe(1);
      const arm = receipts[0].arm as string;
      arms.set(id, arm);
      expect(receipts[0].experimentId).toBe(experiment.id);
      expect(Object.keys(first).sort()).toEqual(['__typename', 'episodes', 'retrievalId', 'warnings']);
      expect(first.episodes.map((e: Json) => e.episode.id)).toEqual(arm === 'control' ? [] : [past]);
    }
    expect(new Set(arms.values())).toEqual(new Set(['memory', 'control']));

    const assigned = await ledger(t, keys.tenantId, 'experiment.assigned');
    expect(assigned.map((e) => [e.episodeId, (e.payload as Json).arm]).sort()).toEqual([...arms.entries()].sort());
    // A run outside the scope is served the memory, unassigned; an unknown episode is a typed error.
    const outside = await runEpisode(keys.write, 'other');
    expect((await data(RELEVANT, { task, episodeId: outside }, keys.write)).episodes).toHaveLength(1);
    expect((await ledger(t, keys.tenantId, 'experiment.assigned')).length).toBe(12);
    expect((await data(RELEVANT, { task, episodeId: 'nope' }, keys.write)).__typename).toBe('NotFoundError');

    // A control run's completion learns as any other: reward, reflection, and later served by the memory.
    const control = [...arms.entries()].find(([, arm]) => arm === 'control')?.[0] as string;
    const done = await complete(keys.write, control);
    expect(done.episode).toMatchObject({ id: control, status: 'COMPLETED' });
    expect(done.episode.reward.normalized).toBeGreaterThan(0);
    expect(done.episode.reflection.successes.length).toBeGreaterThan(0);
    const later = await data(RELEVANT, { task }, keys.write);
    expect(later.episodes.map((e: Json) => e.episode.id)).toContain(control);

    const impact = await data(IMPACT, { id: experiment.id }, keys.read);
    expect(impact.verdict).toBe('TOO_FEW_RUNS');
    const control1 = impact.arms.find((a: Json) => a.arm === 'control');
    expect(control1).toMatchObject({ assigned: [...arms.values()].filter((a) => a === 'control').length, ended: 1, successes: 1 });
    // The run outside the scope is not counted; nothing in scope went unasked.
    expect(impact.unasked).toMatchObject({ arm: 'unasked', assigned: 0 });
    expect(impact.sentence).toMatch(/^too few runs to tell yet: 0 with memory and 1 in control, at least 10 each are needed$/);
  });
});
