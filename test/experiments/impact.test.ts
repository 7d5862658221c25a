// Does memoryImpact find what was planted? A simulated population (test/support/impact-simulation.ts:
// the agents are the fake, the server real) succeeds more often when it was served a past run of
// its task family. Under a holdout memoryImpact finds the effect, its interval covering the truth;
// under planted nulls it claims nothing (but by chance); interleaving calls the effect in fewer runs.
//
// The planted-effect population draws its outcomes in balanced blocks (exactly round(10 p) of each
// 10 runs of a condition succeed), so its noise is below the binomial noise the 95 % interval
// allows for: the interval's coverage of the truth is then near certain, and this test does not
// fail one run in twenty by design. The null populations draw plain Bernoulli outcomes: their
// false-positive rate is the stated 5 %, and 3 of 3 null experiments claiming has odds 1 in 8,000
// (bench:impact measures the rate over more of them).
import { describe, expect, it } from 'vitest';
import { type TestApp, useApp } from '../support/app.ts';
import { type Call, type Population, runExperiment, seedHistory } from '../support/impact-simulation.ts';

let t: TestApp;
useApp((app) => (t = app));

const callFor =
  (token: string): Call =>
  async (query, variables) => {
    const res = await t.gql(query, variables, token);
    if (res.errors?.length) throw new Error(JSON.stringify(res.errors));
    return res.data;
  };

const effect = (agent: string, seed: number): Population => ({ agent, seed, helped: 0.6, unhelped: 0.3, draws: 'balanced' });
const nullEffect = (agent: string, seed: number): Population => ({ agent, seed, helped: 0.4, unhelped: 0.4, draws: 'bernoulli' });

describe('memoryImpact on a simulated population', () => {
  it('finds a planted effect under a holdout with an interval covering the truth, and interleaving calls it in fewer runs', async () => {
    const keys = await t.addTenant('impact-effect');
    const call = callFor(keys.write);
    await seedHistory(call, 2);

    const holdout = await runExperiment(call, effect('holdout-agents', 11), {
      kind: 'HOLDOUT',
      control: 'NOTHING',
      controlShare: 0.5,
      minSample: 10,
      runs: 80,
      checkEvery: 5,
      parallel: 4,
    });
    const { impact } = holdout;
    expect(impact.method).toBe('two-proportion z-test');
    expect(impact.verdict).toBe('RAISED');
    const memory = impact.arms.find((a: { arm: string }) => a.arm === 'memory');
    const control = impact.arms.find((a: { arm: string }) => a.arm === 'control');
    expect(memory.ended + control.ended).toBe(80);
    // The truth: control is served nothing (0.3); a memory run is helped (0.6) when its family was served.
    const helpedShare = holdout.runs.filter((r) => r.helped).length / memory.ended;
    const truth = helpedShare * (0.6 - 0.3);
    expect(helpedShare).toBeGreaterThan(0.8);
    expect(impact.differenceLow).toBeLessThan(truth);
    expect(impact.differenceHigh).toBeGreaterThan(truth);
    expect(impact.pValue).toBeLessThan(0.05);
    expect(impact.sentence).toMatch(/^memory raised the success rate from \d+ % to \d+ %, 95 % CI \+\d+ to \+\d+ points, p [=<] [\d.]+, 80 runs$/);
    expect(holdout.calledAfter).not.toBeNull();

    const interleaving = await runExperiment(call, effect('interleave-agents', 12), {
      kind: 'INTERLEAVE',
      control: 'BM25',
      minSample: 10,
      runs: holdout.calledAfter as number,
      checkEvery: 5,
      parallel: 4,
    });
    expect(interleaving.calledAfter).not.toBeNull();
    expect(interleaving.impact.method).toBe('exact sign test');
    expect(interleaving.impact.verdict).toBe('RAISED');
    expect(interleaving.impact.wins).toBeGreaterThan(interleaving.impact.losses);
    expect(interleaving.calledAfter).toBeLessThan(holdout.calledAfter as number);
  }, 600_000);

  it('claims nothing under planted nulls but by chance', async () => {
    const keys = await t.addTenant('impact-null');
    const call = callFor(keys.write);
    await seedHistory(call, 2);
    const verdicts: string[] = [];
    for (const seed of [21, 22, 23]) {
      const result = await runExperiment(call, nullEffect(`null-${seed}`, seed), {
        kind: 'HOLDOUT',
        control: 'NOTHING',
        controlShare: 0.5,
        minSample: 10,
        runs: 40,
        checkEvery: 40,
        parallel: 4,
      });
      verdicts.push(result.impact.verdict);
    }
    expect(verdicts.filter((v) => v !== 'NO_DIFFERENCE').length).toBeLessThan(3);
  }, 600_000);
});
