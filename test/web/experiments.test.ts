// The experiments panel end to end in headless Chromium (Debian's /usr/bin/chromium via
// playwright-core) against the real server: two holdouts are started over GraphQL and fake agents
// run episodes through them (ask with their episode id, journal steps, complete); the panel lists
// both (name, kind, status, control, started), shows memoryImpact's per-arm counts and means, the
// difference with its interval and p-value and the sentence for the one past its minimum sample,
// the "not enough runs yet" state for the other, follows new runs live, and reads at 360, 800 and
// 1440 px. The arms the test expects come from the receipts, not from memoryImpact.
import { mkdir } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { controlLabel, percent, points, pValue } from '../../web/src/impact-format.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { BROWSER_TEST_MS, openSignedIn, type SignedInMonitor } from '../support/browser.ts';
import type { Json } from '../support/json.ts';
import { findOverlaps, unnamedControls } from './layout.ts';

const LIVE = { timeout: 15_000, interval: 100 };
const WIDTHS = [360, 800, 1440];
const MIN_SAMPLE = 10;
const NO_VALUE = '–';

const START = `mutation($input: StartExperimentInput!) { startExperiment(input: $input) { ... on Experiment { id name startedAt } ... on Error { message } } }`;
const PAUSE = 'mutation($id: ID!) { pauseExperiment(id: $id) { ... on Experiment { status } } }';
const IMPACT = `query($id: ID!) { memoryImpact(experimentId: $id) { ... on MemoryImpact {
  verdict sentence difference differenceLow differenceHigh pValue
  arms { arm assigned ended successes successRate meanReward meanSteps meanTokens meanWallMs }
  unasked { arm assigned ended successes } } } }`;
const START_EPISODE = 'mutation($input: StartEpisodeInput!) { startEpisode(input: $input) { ... on StartEpisodePayload { episode { id } } } }';
const RELEVANT = `query($task: RetrievalTaskInput!, $episodeId: ID) { relevantEpisodes(task: $task, episodeId: $episodeId) {
  ... on RelevantEpisodes { retrievalId } ... on Error { message } } }`;
const RECEIPT = 'query($id: ID!) { retrievalReceipt(id: $id) { ... on RetrievalReceipt { arm experimentId } } }';
const LOG = 'mutation($id: ID!, $steps: [StepInput!]!) { logSteps(episodeId: $id, steps: $steps) { ... on LogStepsPayload { accepted } } }';
const COMPLETE = `mutation($id: ID!, $o: OutcomeInput!, $r: [ID!]) {
  completeEpisode(episodeId: $id, outcome: $o, usedRetrievals: $r, extractPatterns: SYNC) { __typename } }`;

let t: TestApp;
let monitor: SignedInMonitor | undefined;
let page: Page;
let pageProblems: string[] = [];

async function api<T = Json>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const res = await t.gql<T>(query, variables);
  expect(res.errors).toBeUndefined();
  return must(res.data);
}

/** What the test itself saw per arm: runs ended and successes. */
type Tally = Record<string, { ended: number; successes: number }>;

/**
 * One fake agent's run: it asks for experience with its episode id (unless `ask` is false),
 * journals two steps, and completes. It is not told its arm; the test reads it from the receipt
 * and makes the memory arm succeed more often (4 in 5 against 1 in 3), as a memory that helps would.
 */
async function agentRun(agent: string, n: number, tally: Tally, ask = true): Promise<string> {
  const task = { description: `Speed up the nightly export ${n}`, taskType: 'perf', context: { domain: 'billing' } };
  const started = await api(START_EPISODE, { input: { taskDescription: task.description, taskType: 'perf', agent, context: task.context } });
  const id = started.startEpisode.episode.id;
  let arm = 'unasked';
  let used: string[] = [];
  if (ask) {
    const served = await api(RELEVANT, { task, episodeId: id });
    const retrievalId = served.relevantEpisodes.retrievalId;
    expect(retrievalId, served.relevantEpisodes.message).toBeTruthy();
    arm = (await api(RECEIPT, { id: retrievalId })).retrievalReceipt.arm;
    used = arm === 'memory' ? [retrievalId] : [];
  }
  await api(LOG, {
    id,
    steps: [
      { kind: 'llm_call', action: 'plan', latencyMs: 300 + n * 7, tokens: 200 + n, result: { kind: 'SUCCESS', output: 'plan' } },
      { tool: 'shell', action: 'profile', latencyMs: 700, tokens: 0, result: { kind: 'SUCCESS', output: 'hot loop' } },
    ],
  });
  const success = arm === 'memory' ? n % 5 !== 0 : n % 3 === 0;
  const outcome = success ? { kind: 'SUCCESS', verdict: 'faster' } : { kind: 'FAILURE', reason: 'still slow' };
  expect((await api(COMPLETE, { id, o: outcome, r: used })).completeEpisode.__typename).toBe('FinishEpisodePayload');
  const seen = (tally[arm] ??= { ended: 0, successes: 0 });
  seen.ended += 1;
  seen.successes += success ? 1 : 0;
  return arm;
}

async function startExperiment(name: string, agent: string, seed: string) {
  const data = await api(START, { input: { name, controlShare: 0.5, minSample: MIN_SAMPLE, seed, scope: { agent } } });
  expect(data.startExperiment.id, data.startExperiment.message).toBeTruthy();
  return data.startExperiment as { id: string; name: string; startedAt: string };
}

/** Table cells of the list whose text runs past their box (a column too narrow for a nowrap value). */
const overflowingCells = `[...document.querySelectorAll('.experiment-list td')].filter((td) => td.scrollWidth > td.clientWidth + 1).map((td) => td.textContent)`;
const impactOf = async (id: string) => (await api(IMPACT, { id })).memoryImpact;
const home = () => t.url.replace(/\/graphql$/, '/');
const cell = (measure: string, arm: string) => page.locator(`.arms tr[data-measure="${measure}"] td[data-arm="${arm}"]`);

/** The page shows, per arm, exactly what memoryImpact answers, written as impact-format writes it. */
async function expectArmsShown(impact: Json) {
  for (const a of [...impact.arms, impact.unasked]) {
    await expect.poll(() => cell('ended', a.arm).textContent(), LIVE).toBe(String(a.ended));
    expect(await cell('assigned', a.arm).textContent()).toBe(String(a.assigned));
    expect(await cell('successes', a.arm).textContent()).toBe(String(a.successes));
  }
  for (const a of impact.arms) {
    expect(await cell('successRate', a.arm).textContent()).toBe(percent(a.successRate));
    // An arm no run has ended in yet (arms are drawn at random) has no means: its cells show the dash.
    if (a.ended === 0) {
      for (const key of ['meanSteps', 'meanTokens', 'meanReward', 'meanWallMs']) expect(await cell(key, a.arm).textContent()).toBe(NO_VALUE);
      continue;
    }
    expect(Number(await cell('meanSteps', a.arm).textContent())).toBeCloseTo(a.meanSteps, 2);
    expect(Number((await cell('meanTokens', a.arm).textContent())?.replace(/,/g, ''))).toBeCloseTo(a.meanTokens, 2);
    expect(Number(await cell('meanReward', a.arm).textContent())).toBeCloseTo(a.meanReward, 2);
    expect(await cell('meanWallMs', a.arm).textContent()).toMatch(/^\d+(\.\d+)? (ms|s)$/);
  }
}

beforeAll(async () => {
  t = await startTestApp();
  monitor = await openSignedIn(home(), t.keys.read, LIVE.timeout);
  page = monitor.page;
  pageProblems = monitor.problems;
});

afterAll(async () => {
  await monitor?.close();
  await t?.stop();
});

describe('experiments panel', { timeout: BROWSER_TEST_MS }, () => {
  let early: { id: string; name: string; startedAt: string };
  let fleet: { id: string; name: string; startedAt: string };
  const fleetTally: Tally = {};

  it('lists the experiments and, past the minimum sample, the impact per arm with its interval, p-value and sentence', async () => {
    await page.getByRole('link', { name: 'Experiments' }).click();
    await page.getByText('No experiment has been started').waitFor(LIVE);

    early = await startExperiment('scout holdout', 'scout', 'panel-scout');
    for (let n = 1; n <= 3; n++) await agentRun('scout', n, {});
    await api(PAUSE, { id: early.id });
    fleet = await startExperiment('fleet holdout', 'fleet', 'panel-fleet');
    // Runs until both arms have the minimum sample (half in control: about 20 runs), then one that asks nothing.
    for (let n = 1; n <= 80 && !['memory', 'control'].every((arm) => (fleetTally[arm]?.ended ?? 0) >= MIN_SAMPLE); n++) await agentRun('fleet', n, fleetTally);
    await agentRun('fleet', 100, fleetTally, false);

    const rows = page.locator('table.experiment-list tbody tr');
    await expect.poll(() => rows.count(), LIVE).toBe(2);
    expect(await rows.nth(0).getAttribute('data-experiment')).toBe(fleet.id); // newest first
    const first = rows.nth(0);
    expect(await first.getByRole('link').textContent()).toBe('fleet holdout');
    expect(await first.locator('td[data-label="kind"]').textContent()).toBe('holdout');
    expect(await first.locator('.status').textContent()).toBe('RUNNING');
    expect(await first.locator('[data-control]').textContent()).toBe(controlLabel('HOLDOUT', 0.5, 'NOTHING'));
    expect(await first.locator('td[data-label="started"]').textContent()).toBe(new Date(fleet.startedAt).toLocaleString('en-GB', { hour12: false }));
    expect(await rows.nth(1).locator('.status').textContent()).toBe('PAUSED');

    // The newest is shown; the API's answer is the test's own tally, and the page shows the API's answer.
    const impact = await impactOf(fleet.id);
    for (const arm of ['memory', 'control', 'unasked']) {
      const shown = arm === 'unasked' ? impact.unasked : impact.arms.find((a: Json) => a.arm === arm);
      expect(shown, arm).toMatchObject({ ended: fleetTally[arm]?.ended, successes: fleetTally[arm]?.successes });
    }
    expect(impact.verdict).not.toBe('TOO_FEW_RUNS');
    await page.locator(`.impact[data-impact="${fleet.id}"]`).waitFor(LIVE);
    await expectArmsShown(impact);
    expect(await page.locator('[data-sentence]').textContent()).toBe(impact.sentence);
    expect(await page.locator('[data-points]').textContent()).toBe(points(impact.difference));
    expect(await page.locator('[data-interval]').textContent()).toBe(`${points(impact.differenceLow)} to ${points(impact.differenceHigh)}`);
    expect(await page.locator('[data-p]').textContent()).toBe(pValue(impact.pValue));
    expect(await page.locator('[data-too-few]').count()).toBe(0);
  });

  it('follows new runs live', async () => {
    const before = await impactOf(fleet.id);
    const arm = await agentRun('fleet', 200, fleetTally);
    const after = await impactOf(fleet.id);
    const ended = (i: Json) => i.arms.find((a: Json) => a.arm === arm).ended;
    expect(ended(after)).toBe(ended(before) + 1);
    await expectArmsShown(after);
    await expect.poll(() => page.locator('[data-sentence]').textContent(), LIVE).toBe(after.sentence);
  });

  it('shows "not enough runs yet" below the minimum sample', async () => {
    await page.getByRole('link', { name: 'scout holdout' }).click();
    await page.locator(`.impact[data-impact="${early.id}"]`).waitFor(LIVE);
    await expect.poll(() => page.locator('#impact-title').textContent(), LIVE).toBe('Memory impact: scout holdout');
    const impact = await impactOf(early.id);
    expect(impact.verdict).toBe('TOO_FEW_RUNS');
    expect(impact.arms.reduce((sum: number, a: Json) => sum + a.ended, 0)).toBe(3);
    await expect.poll(() => page.locator('[data-sentence]').textContent(), LIVE).toBe(impact.sentence);
    await expectArmsShown(impact);
    const note = must(await page.locator('[data-too-few]').textContent());
    expect(note).toContain(`Not enough runs yet: it claims nothing before ${MIN_SAMPLE} ended runs per arm`);
    for (const a of impact.arms) expect(note).toContain(`${a.arm} ${a.ended}`);
    expect(await page.locator('[data-difference]').count()).toBe(0);
    expect(await page.locator('table.experiment-list tr[aria-current]').getAttribute('data-experiment')).toBe(early.id);
  });

  it('at 360, 800 and 1440 px: no text over text, nothing sideways, every control named', async () => {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      for (const x of [fleet, early]) {
        await page.goto(`${home()}#/experiments/${x.id}`);
        await page.locator(`.impact[data-impact="${x.id}"]`).waitFor(LIVE);
        await page.waitForLoadState('networkidle');
        expect(await page.evaluate(findOverlaps), `${x.name} at ${width} px`).toEqual([]);
        expect(await page.evaluate(() => document.documentElement.scrollWidth - innerWidth), `${x.name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(
          0,
        );
        expect(await page.evaluate(unnamedControls), `${x.name} at ${width} px`).toEqual([]);
        expect(await page.evaluate(overflowingCells), `${x.name} at ${width} px: text past its cell`).toEqual([]);
        if (width === 360 || width === 1440) {
          await mkdir('test-results', { recursive: true });
          await page.screenshot({ path: `test-results/experiments-${x === fleet ? 'impact' : 'too-few'}-${width}.png`, fullPage: true });
        }
      }
    }
    expect(pageProblems).toEqual([]);
  });
});
