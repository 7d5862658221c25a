// The experiments' pure rules: seeded assignment, team-draft interleaving, the two-proportion and
// sign tests, the verdict and its sentence, the sample size (src/experiments/).
import { describe, expect, it } from 'vitest';
import { assignArm, seededUnit, teamDraft } from '../../src/experiments/arms.ts';
import { normalCdf, runsPerArmNeeded, signTest, twoProportionTest } from '../../src/experiments/statistics.ts';
import { holdoutVerdict, interleavingVerdict } from '../../src/experiments/verdict.ts';
import { seededRandom } from '../support/impact-simulation.ts';

describe('assignment', () => {
  it('is a function of the seed and the episode, and puts about the control share in control', () => {
    expect(assignArm('holdout', 's', 'episode-1', 0.3)).toBe(assignArm('holdout', 's', 'episode-1', 0.3));
    const ids = Array.from({ length: 4000 }, (_, i) => `episode-${i}`);
    const control = ids.filter((id) => assignArm('holdout', 's', id, 0.1) === 'control').length / ids.length;
    expect(control).toBeGreaterThan(0.085);
    expect(control).toBeLessThan(0.115);
    // Another seed assigns other episodes.
    const moved = ids.filter((id) => assignArm('holdout', 's', id, 0.5) !== assignArm('holdout', 't', id, 0.5)).length;
    expect(moved).toBeGreaterThan(1500);
    expect(assignArm('interleave', 's', 'episode-1', 0.5)).toBe('interleaved');
    expect(seededUnit('s', 'x')).toBeGreaterThanOrEqual(0);
    expect(seededUnit('s', 'x')).toBeLessThan(1);
  });
});

describe('team-draft interleaving', () => {
  it('alternates the teams, skips what the other team took, and fills from one list when the other runs out', () => {
    const drafted = teamDraft(['a', 'b', 'c', 'd'], ['b', 'e', 'a', 'f'], 4, 'seed', 'q');
    expect(new Set(drafted.map((d) => d.id)).size).toBe(4);
    const counts = { memory: 0, baseline: 0 };
    for (const d of drafted) counts[d.team] += 1;
    expect(counts).toEqual({ memory: 2, baseline: 2 });
    // Each team's picks keep its own order.
    const memory = drafted.filter((d) => d.team === 'memory').map((d) => d.id);
    expect(['a', 'b', 'c', 'd'].filter((id) => memory.includes(id))).toEqual(memory);
    expect(teamDraft(['a', 'b', 'c'], [], 5, 'seed', 'q')).toEqual([
      { id: 'a', team: 'memory' },
      { id: 'b', team: 'memory' },
      { id: 'c', team: 'memory' },
    ]);
    // The coin is seeded: the same key drafts the same list; over many keys each team picks first about half the time.
    expect(teamDraft(['a'], ['b'], 2, 'seed', 'q')).toEqual(teamDraft(['a'], ['b'], 2, 'seed', 'q'));
    const memoryFirst = Array.from({ length: 1000 }, (_, i) => teamDraft(['a'], ['b'], 1, 'seed', `k${i}`)[0]?.team === 'memory').filter(Boolean).length;
    expect(memoryFirst).toBeGreaterThan(430);
    expect(memoryFirst).toBeLessThan(570);
  });
});

describe('statistics', () => {
  it('computes the normal CDF, the sign test and the sample size', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-1)).toBeCloseTo(0.158655, 6);
    expect(signTest(10, 0)).toBeCloseTo(2 / 1024, 10);
    expect(signTest(5, 5)).toBe(1);
    expect(signTest(9, 1)).toBeCloseTo((2 * 11) / 1024, 10);
    expect(signTest(0, 0)).toBe(1);
    // 41 % to 48 %: the textbook figure, about 780 per arm at 5 % and 80 % power.
    expect(runsPerArmNeeded(0.41, 0.48)).toBeGreaterThan(760);
    expect(runsPerArmNeeded(0.41, 0.48)).toBeLessThan(800);
  });

  it('tests two proportions with a Wald interval around the difference', () => {
    const result = twoProportionTest({ runs: 320, successes: 154 }, { runs: 320, successes: 131 });
    expect(result?.difference).toBeCloseTo(23 / 320, 10);
    expect(result?.low).toBeLessThan(result?.difference as number);
    expect(result?.pValue).toBeGreaterThan(0.05);
    expect(twoProportionTest({ runs: 0, successes: 0 }, { runs: 5, successes: 1 })).toBeNull();
    expect(twoProportionTest({ runs: 10, successes: 10 }, { runs: 10, successes: 10 })?.pValue).toBe(1);
  });

  it('claims an effect in about 5 % of null experiments and covers the truth in about 95 % of effect experiments', () => {
    const random = seededRandom(7);
    const draw = (n: number, p: number) => Array.from({ length: n }, () => random() < p).filter(Boolean).length;
    let falsePositives = 0;
    let covered = 0;
    const experiments = 2000;
    for (let i = 0; i < experiments; i += 1) {
      const nullTest = twoProportionTest({ runs: 200, successes: draw(200, 0.4) }, { runs: 200, successes: draw(200, 0.4) });
      if ((nullTest?.pValue ?? 1) < 0.05) falsePositives += 1;
      const effect = twoProportionTest({ runs: 200, successes: draw(200, 0.5) }, { runs: 200, successes: draw(200, 0.4) });
      if ((effect?.low ?? 1) <= 0.1 && 0.1 <= (effect?.high ?? 0)) covered += 1;
    }
    expect(falsePositives / experiments).toBeGreaterThan(0.035);
    expect(falsePositives / experiments).toBeLessThan(0.065);
    expect(covered / experiments).toBeGreaterThan(0.935);
    expect(covered / experiments).toBeLessThan(0.965);
  });
});

describe('verdicts', () => {
  it('says nothing before the minimum sample, then states the effect in a plain sentence', () => {
    expect(holdoutVerdict({ runs: 50, successes: 30 }, { runs: 9, successes: 2 }, 10)).toMatchObject({
      kind: 'too_few_runs',
      sentence: 'too few runs to tell yet: 50 with memory and 9 in control, at least 10 each are needed',
    });
    // 48 % against 41 % on a 10 % holdout of 640 runs: too few in control to tell.
    expect(holdoutVerdict({ runs: 576, successes: 276 }, { runs: 64, successes: 26 }, 30).kind).toBe('no_difference');
    const big = holdoutVerdict({ runs: 320, successes: 154 }, { runs: 320, successes: 115 }, 30);
    expect(big.kind).toBe('raised');
    expect(big.sentence).toBe('memory raised the success rate from 36 % to 48 %, 95 % CI +5 to +20 points, p = 0.002, 640 runs');
    const lowered = holdoutVerdict({ runs: 320, successes: 100 }, { runs: 320, successes: 150 }, 30);
    expect(lowered.kind).toBe('lowered');
    expect(lowered.sentence).toMatch(/^memory lowered the success rate from 47 % to 31 %, 95 % CI −23 to −8 points, p < 0.001, 640 runs$/);
  });

  it('names the better ranking of an interleaving once enough retrievals are decided', () => {
    expect(interleavingVerdict(5, 1, 20, 'bm25', 10).kind).toBe('too_few_runs');
    const won = interleavingVerdict(14, 2, 30, 'bm25', 10);
    expect(won).toMatchObject({ kind: 'raised', wins: 14, losses: 2, ties: 30 });
    expect(won.sentence).toBe('memory ranked better: the agents used its picks more in 14 won, 2 lost, 30 tied, p = 0.004');
    expect(interleavingVerdict(7, 6, 0, 'bm25', 10).kind).toBe('no_difference');
    expect(interleavingVerdict(2, 14, 0, 'fixed_formula', 10).sentence).toMatch(/^fixed_formula ranked better/);
  });
});
