// The strength of a served run is a calibrated probability (issue 51): fitted on a history it
// matches the hit rates it was fitted on, it never rises down a ranking (the order follows it), and
// the query's level tells "nothing similar" from "the same bug" where the relative total cannot.
import { describe, expect, it } from 'vitest';
import {
  type CalibrationSample,
  calibratedStrength,
  DEFAULT_CALIBRATION,
  fitCalibration,
  type StrengthCalibration,
  strengthWord,
} from '../../src/retrieval/calibration.ts';
import { seededRandom } from '../support/impact-simulation.ts';

const TRUE: StrengthCalibration = [-2.5, 1, 0.5, 0.3];

/** Samples whose usefulness is drawn from TRUE's probability (a fixed seed). */
function history(n: number, truth: StrengthCalibration = TRUE): CalibrationSample[] {
  const random = seededRandom(51);
  return Array.from({ length: n }, () => {
    const inputs = { total: 0.05 + 0.95 * random(), bestText: 200 * random(), bestScore: 4 * random() - 2 };
    return { ...inputs, useful: random() < calibratedStrength(truth, inputs) };
  });
}

/** Expected calibration error over ten equal bins (what bench:memory prints). */
function ece(samples: readonly CalibrationSample[], calibration: StrengthCalibration): number {
  const bins = Array.from({ length: 10 }, () => ({ n: 0, p: 0, hits: 0 }));
  for (const s of samples) {
    const p = calibratedStrength(calibration, s);
    const bin = bins[Math.min(9, Math.floor(p * 10))];
    if (!bin) continue;
    bin.n += 1;
    bin.p += p;
    bin.hits += s.useful ? 1 : 0;
  }
  return bins.reduce((sum, b) => sum + (b.n === 0 ? 0 : (b.n / samples.length) * Math.abs(b.p / b.n - b.hits / b.n)), 0);
}

describe('the strength calibration', () => {
  it('fitted on a history, gives the chances that history shows', () => {
    const samples = history(4000);
    const fitted = fitCalibration(samples);
    expect(fitted).not.toBeNull();
    const calibration = fitted as StrengthCalibration;
    expect(ece(samples, calibration)).toBeLessThan(0.03);
    for (const inputs of [
      { total: 1, bestText: 150, bestScore: 1 },
      { total: 0.3, bestText: 5, bestScore: -1 },
    ])
      expect(Math.abs(calibratedStrength(calibration, inputs) - calibratedStrength(TRUE, inputs))).toBeLessThan(0.06);
    // The fixed formula's default would be far off on this history: the fit is what makes it a probability.
    expect(ece(samples, DEFAULT_CALIBRATION)).toBeGreaterThan(ece(samples, calibration));
  });

  it('never rises down a ranking, even when a history says a lower total is likelier useful', () => {
    const inverted = fitCalibration(history(2000, [-1, -1.5, 0, 0]));
    expect(inverted).not.toBeNull();
    const calibration = inverted as StrengthCalibration;
    expect(calibration[1]).toBeGreaterThanOrEqual(0);
    const totals = [1.1, 1, 0.8, 0.5, 0.2, 0.01, 0];
    for (const c of [calibration, DEFAULT_CALIBRATION]) {
      const strengths = totals.map((total) => calibratedStrength(c, { total, bestText: 40, bestScore: 0.5 }));
      for (const [i, s] of strengths.entries()) if (i > 0) expect(s).toBeLessThanOrEqual(strengths[i - 1] ?? 1);
    }
  });

  it('tells a query that matches nothing well from one that matches the same bug, at the same relative total', () => {
    // The top hit's total is about 1 in every query; the query's best BM25 is what differs.
    const nothing = calibratedStrength(DEFAULT_CALIBRATION, { total: 1, bestText: 3, bestScore: 0 });
    const sameBug = calibratedStrength(DEFAULT_CALIBRATION, { total: 1, bestText: 300, bestScore: 0 });
    expect(sameBug).toBeGreaterThan(nothing);
    expect(strengthWord(nothing)).not.toBe('strong');
  });

  it('keeps the default below enough history or when every run had one outcome', () => {
    expect(fitCalibration(history(30))).toBeNull();
    expect(fitCalibration(history(500).map((s) => ({ ...s, useful: false })))).toBeNull();
    expect(fitCalibration(history(500).map((s) => ({ ...s, useful: true })))).toBeNull();
  });

  it('names each band by its lower bound on the chance', () => {
    expect([0.5, 0.499, 0.25, 0.249, 0.1, 0.099, 0].map(strengthWord)).toEqual(['strong', 'moderate', 'moderate', 'weak', 'weak', 'none', 'none']);
  });
});
