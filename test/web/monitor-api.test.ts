// The monitor's GraphQL queries against a real server and PostgreSQL: the dashboard aggregates
// what was created through the API (per bucket, filtered, tenant-scoped), refuses bad ranges with
// a typed error, and the step, receipt, credit and lift fields answer what the ledger recorded.
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';

let t: TestApp;
useApp((app) => (t = app));

async function api<T = Json>(query: string, variables?: Record<string, unknown>, token?: string): Promise<T> {
  const res = await t.gql<T>(query, variables, token);
  expect(res.errors).toBeUndefined();
  return res.data as T;
}

async function start(input: Record<string, unknown>): Promise<string> {
  const data = await api('mutation($input: StartEpisodeInput!) { startEpisode(input: $input) { ... on StartEpisodePayload { episode { id } } } }', { input });
  return data.startEpisode.episode.id;
}

async function log(id: string, steps: Array<Record<string, unknown>>) {
  await api('mutation($id: ID!, $steps: [StepInput!]!) { logSteps(episodeId: $id, steps: $steps) { ... on LogStepsPayload { accepted } } }', { id, steps });
}

async function complete(id: string, outcome: Record<string, unknown>, usedRetrievals: string[] = []) {
  const data = await api(
    'mutation($id: ID!, $o: OutcomeInput!, $r: [ID!]) { completeEpisode(episodeId: $id, outcome: $o, usedRetrievals: $r) { __typename } }',
    { id, o: outcome, r: usedRetrievals },
  );
  expect(data.completeEpisode.__typename).toBe('FinishEpisodePayload');
}

const DASHBOARD = `query($filter: DashboardFilter!) { dashboard(filter: $filter) {
  __typename
  ... on Dashboard { bucketSeconds steps latencyP50 latencyP95
    totals { runs ended successes partials failures successRate tokens cost budgetExhaustions retrievalsServed retrievalsCredited }
    series { start runs running completed failed successes partials failures tokens budgetExhaustions retrievalsCredited }
    tools { tool calls errors timeouts errorRate }
    budgetExhaustions { resource count } }
  ... on InputLimitError { message violations { field limit } } } }`;

const hourAgo = () => new Date(Date.now() - 3_600_000).toISOString();
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
const dashboard = (filter: Record<string, unknown> = {}, token?: string) =>
  api(DASHBOARD, { filter: { from: hourAgo(), to: inAnHour(), ...filter } }, token).then((d) => d.dashboard);

let failedId: string;
let retrievalId: string;

beforeAll(async () => {
  const ok = await start({ taskDescription: 'Fix the parser', taskType: 'bugfix', context: { domain: 'acme/parser' } });
  await log(ok, [
    { tool: 'shell', latencyMs: 100, tokens: 50, cost: 0.01, result: { kind: 'SUCCESS', output: 'ok' } },
    { tool: 'shell', latencyMs: 300, tokens: 50, cost: 0.01, result: { kind: 'ERROR', message: 'exit 1', errorClass: 'ExitCode' } },
  ]);
  await complete(ok, { kind: 'SUCCESS', verdict: 'fixed' });
  const served = await api('{ relevantEpisodes(task: { description: "parser" }) { ... on RelevantEpisodes { retrievalId } } }');
  retrievalId = served.relevantEpisodes.retrievalId;

  const partial = await start({ taskDescription: 'Port the docs', taskType: 'docs', context: { domain: 'acme/docs' } });
  await log(partial, [{ tool: 'editor', latencyMs: 500, tokens: 20, result: { kind: 'TIMEOUT' } }]);
  await complete(partial, { kind: 'PARTIAL', verdict: 'half', completed: ['intro'], failed: ['api'] }, [retrievalId]);

  failedId = await start({ taskDescription: 'Tight budget', taskType: 'bugfix', context: { domain: 'acme/parser' }, budget: { maxTokens: 10 } });
  await log(failedId, [
    {
      tool: 'shell',
      latencyMs: 700,
      tokens: 40,
      parameters: { cmd: 'make', token: 'secret-value' },
      observation: 'compiling',
      result: { kind: 'ERROR', message: 'out of tokens', errorClass: 'Budget' },
    },
  ]);
  await start({ taskDescription: 'Still going', taskType: 'docs' });
});

describe('dashboard query', () => {
  it('aggregates the runs, outcomes, spend, latency, tool errors and budget exhaustions created through the API', async () => {
    const d = await dashboard();
    expect(d.__typename).toBe('Dashboard');
    expect(d.bucketSeconds).toBe(3600);
    expect(d.totals).toMatchObject({
      runs: 4,
      ended: 3,
      successes: 1,
      partials: 1,
      failures: 1,
      tokens: 160,
      budgetExhaustions: 1,
      retrievalsServed: 1,
      retrievalsCredited: 1,
    });
    expect(d.totals.successRate).toBeCloseTo(1 / 3);
    expect(d.totals.cost).toBeCloseTo(0.02);
    expect(d.steps).toBe(4);
    // 100, 300, 500, 700 ms: the nearest-rank sample, from 10% wide histogram buckets.
    for (const [estimate, sample] of [
      [d.latencyP50, 300],
      [d.latencyP95, 700],
    ]) {
      expect(estimate).toBeGreaterThan(sample / 1.1);
      expect(estimate).toBeLessThan(sample * 1.1);
    }
    expect(d.tools).toEqual([
      { tool: 'shell', calls: 3, errors: 2, timeouts: 0, errorRate: 2 / 3 },
      { tool: 'editor', calls: 1, errors: 0, timeouts: 1, errorRate: 1 },
    ]);
    expect(d.budgetExhaustions).toEqual([{ resource: 'tokens', count: 1 }]);
    // Hourly buckets over [from, to): every hour present, the runs in the current one.
    expect(d.series.length).toBe(3); // [from, to) widened to whole hours
    expect(d.series.reduce((n: number, b: { runs: number }) => n + b.runs, 0)).toBe(4);
    const now = d.series.find((b: { runs: number }) => b.runs > 0);
    expect(now).toMatchObject({ runs: 4, running: 1, completed: 2, failed: 1, successes: 1, partials: 1, failures: 1, budgetExhaustions: 1 });
  });

  it('filters by task type and domain, steps and credit included', async () => {
    const bugfix = await dashboard({ taskType: 'bugfix' });
    expect(bugfix.totals).toMatchObject({ runs: 2, successes: 1, failures: 1, budgetExhaustions: 1, retrievalsCredited: 0 });
    expect(bugfix.steps).toBe(3);
    const docs = await dashboard({ domain: 'acme/docs' });
    expect(docs.totals).toMatchObject({ runs: 1, partials: 1, retrievalsCredited: 1 });
    expect(docs.tools).toEqual([{ tool: 'editor', calls: 1, errors: 0, timeouts: 1, errorRate: 1 }]);
    expect((await dashboard({ domain: 'nobody' })).totals.runs).toBe(0);
  });

  it('cuts ranges longer than 14 days into days and leaves out what started outside the range', async () => {
    const d = await dashboard({ from: new Date(Date.now() - 30 * 86_400_000).toISOString(), to: new Date(Date.now() - 86_400_000).toISOString() });
    expect(d.bucketSeconds).toBe(86_400);
    expect(d.series).toHaveLength(30);
    expect(d.totals.runs).toBe(0);
    expect(d.steps).toBe(0);
  });

  it('follows the ledger: a run completed or a step logged after a read shows in the next read', async () => {
    const before = await dashboard({ taskType: 'late' });
    expect(before.totals.runs).toBe(0);
    const id = await start({ taskDescription: 'Late run', taskType: 'late' });
    await log(id, [{ tool: 'late-tool', latencyMs: 10, tokens: 5, result: { kind: 'SUCCESS', output: 'ok' } }]);
    expect((await dashboard({ taskType: 'late' })).totals).toMatchObject({ runs: 1, ended: 0, tokens: 5 });
    await log(id, [{ tool: 'late-tool', latencyMs: 10, tokens: 7, result: { kind: 'ERROR', message: 'no' } }]);
    await complete(id, { kind: 'FAILURE', reason: 'gave up' });
    const after = await dashboard({ taskType: 'late' });
    expect(after.totals).toMatchObject({ runs: 1, ended: 1, failures: 1, tokens: 12 });
    expect(after.tools).toEqual([{ tool: 'late-tool', calls: 2, errors: 1, timeouts: 0, errorRate: 0.5 }]);
  });

  it("over all time (no from) starts at the first run, in days, and counts an old run's steps and tokens on the day it started", async () => {
    const before = await dashboard({ from: null });
    const longAgo = new Date(Date.now() - 400 * 86_400_000);
    const id = await start({ taskDescription: 'An imported run', taskType: 'history', startedAt: longAgo.toISOString() });
    await log(id, [
      { tool: 'shell', tokens: 11, startedAt: longAgo.toISOString(), result: { kind: 'ERROR', message: 'exit 1' } },
      { tool: 'shell', tokens: 13, startedAt: new Date(longAgo.getTime() + 60_000).toISOString(), result: { kind: 'SUCCESS', output: 'ok' } },
    ]);
    const all = await api(
      `query($to: DateTime!) { dashboard(filter: { to: $to }) { ... on Dashboard { from bucketSeconds steps totals { runs tokens } series { start runs steps tokens } } } }`,
      {
        to: inAnHour(),
      },
    ).then((d) => d.dashboard);
    expect(all.from).toBe(new Date(Math.floor(longAgo.getTime() / 3_600_000) * 3_600_000).toISOString());
    expect(all.bucketSeconds).toBe(86_400);
    expect(all.totals.runs).toBe(before.totals.runs + 1);
    expect(all.steps).toBe(before.steps + 2);
    const day = all.series.find((b: { runs: number }) => b.runs > 0);
    expect(day).toMatchObject({ start: new Date(Math.floor(longAgo.getTime() / 86_400_000) * 86_400_000).toISOString(), runs: 1, steps: 2, tokens: 24 });
    // The last 24 hours do not see it, not even its steps (journaled just now).
    const recent = await dashboard({ taskType: 'history' });
    expect(recent.totals.runs).toBe(0);
    expect(recent.steps).toBe(0);
  });

  it('over all time with no end either spans the first to the latest run, so runs imported a year ago fill the chart', async () => {
    const archive = await t.addTenant('tenant-archive');
    const first = new Date(Date.now() - 400 * 86_400_000);
    const latest = new Date(first.getTime() + 3 * 86_400_000 + 90 * 60_000);
    const START = 'mutation($input: StartEpisodeInput!) { startEpisode(input: $input) { __typename } }';
    for (const startedAt of [first, latest]) {
      const data = await api(START, { input: { taskDescription: 'An imported run', taskType: 'history', startedAt: startedAt.toISOString() } }, archive.write);
      expect(data.startEpisode.__typename).toBe('StartEpisodePayload');
    }
    const hour = (d: Date) => Math.floor(d.getTime() / 3_600_000) * 3_600_000;
    const all = await api('{ dashboard(filter: {}) { ... on Dashboard { from bucketSeconds totals { runs } series { start runs } } } }', {}, archive.read).then(
      (d) => d.dashboard,
    );
    expect(all.from).toBe(new Date(hour(first)).toISOString());
    expect(all.bucketSeconds).toBe(3_600); // four days: hours, not one weekly bar
    expect(all.totals.runs).toBe(2);
    const last = all.series.at(-1);
    expect(last).toMatchObject({ start: new Date(hour(latest)).toISOString(), runs: 1 });
    expect(all.series[0]).toMatchObject({ runs: 1 });
  });

  it('is confined to the tenant of the key', async () => {
    const other = await t.addTenant('tenant-b');
    const d = await dashboard({}, other.read);
    expect(d.totals).toMatchObject({ runs: 0, tokens: 0, retrievalsServed: 0 });
    expect(d.tools).toEqual([]);
  });

  it('refuses a reversed or too long range with a typed error naming the field and the limit', async () => {
    const reversed = await dashboard({ from: inAnHour(), to: hourAgo() });
    expect(reversed).toMatchObject({ __typename: 'InputLimitError', violations: [{ field: 'filter.to', limit: 'after filter.from' }] });
    const long = await dashboard({ from: new Date(Date.now() - 4000 * 86_400_000).toISOString(), to: inAnHour() });
    expect(long).toMatchObject({ __typename: 'InputLimitError', violations: [{ field: 'filter.to', limit: '3653 days after filter.from' }] });
    const wide = await dashboard({ domain: 'x'.repeat(201) });
    expect(wide).toMatchObject({ __typename: 'InputLimitError', violations: [{ field: 'filter.domain', limit: '200 characters' }] });
  });
});

describe('episode debugging fields', () => {
  it('episodeStep answers one step in full, parameters redacted, and a typed error for a missing one', async () => {
    const q =
      'query($id: ID!, $n: Int!) { episodeStep(episodeId: $id, stepNumber: $n) { __typename ... on Step { parameters argsHash result observation } ... on NotFoundError { message } } }';
    const { episodeStep: step } = await api(q, { id: failedId, n: 1 });
    expect(step.result).toEqual({ message: 'out of tokens', errorClass: 'Budget' });
    expect(step.observation).toBe('compiling');
    expect(JSON.stringify(step.parameters)).not.toContain('secret-value');
    expect(step.argsHash).toMatch(/^[0-9a-f]{64}$/);
    expect((await api(q, { id: failedId, n: 9 })).episodeStep.__typename).toBe('NotFoundError');
    const other = await t.addTenant('tenant-c');
    expect((await api(q, { id: failedId, n: 1 }, other.read)).episodeStep.__typename).toBe('NotFoundError');
  });

  it('a receipt lists what it served and the completion that credited it; the episode lists the retrievals it used', async () => {
    const { retrievalReceipts } = await api(
      `{ retrievalReceipts { ... on QueryRetrievalReceiptsSuccess { data { id kind episodes { taskDescription } credits { outcome target episode { taskDescription } } } } } }`,
    );
    expect(retrievalReceipts.data).toEqual([
      {
        id: retrievalId,
        kind: 'episodes',
        episodes: [{ taskDescription: 'Fix the parser' }],
        credits: [{ outcome: 'partial', target: 0, episode: { taskDescription: 'Port the docs' } }],
      },
    ]);
    const { episodes } = await api(
      '{ episodes(filter: { taskType: "docs", outcome: PARTIAL }) { edges { node { retrievalCredits { retrievalIds outcome } } } } }',
    );
    expect(episodes.edges[0].node.retrievalCredits).toEqual([{ retrievalIds: [retrievalId], outcome: 'partial' }]);
    const bad = await api('{ retrievalReceipts(first: 500) { __typename ... on InputLimitError { violations { field } } } }');
    expect(bad.retrievalReceipts).toEqual({ __typename: 'InputLimitError', violations: [{ field: 'first' }] });
  });
});
