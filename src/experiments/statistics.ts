/**
 * The statistics of an experiment's answer. Pure.
 *
 * Holdout: the two-proportion z-test on the success rates of the memory and control arms (pooled
 * standard error for the test, unpooled for the Wald confidence interval of the difference).
 * Interleaving: the two-sided exact sign test on the retrievals one ranking won against the other
 * (ties say nothing and are left out). A normal CDF of our own (Abramowitz and Stegun 7.1.26, error
 * below 1.5e-7) instead of a statistics package for one function.
 */

/** The level every answer is stated at: a 95 % interval, an effect claimed when p < 0.05. */
export const SIGNIFICANCE = 0.05;
/** z for a two-sided 95 % interval. */
const Z_95 = 1.959964;
/** z for 80 % power. */
const Z_POWER_80 = 0.841621;

export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-x * x);
  return z >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

export interface Proportion {
  runs: number;
  successes: number;
}

export interface ProportionDifference {
  /** treatment rate − control rate. */
  difference: number;
  low: number;
  high: number;
  pValue: number;
}

/** The difference of two success rates with its 95 % interval and two-sided p-value; null when an arm has no runs. */
export function twoProportionTest(treatment: Proportion, control: Proportion): ProportionDifference | null {
  if (treatment.runs === 0 || control.runs === 0) return null;
  const p1 = treatment.successes / treatment.runs;
  const p0 = control.successes / control.runs;
  const difference = p1 - p0;
  const unpooled = Math.sqrt((p1 * (1 - p1)) / treatment.runs + (p0 * (1 - p0)) / control.runs);
  const pooledRate = (treatment.successes + control.successes) / (treatment.runs + control.runs);
  const pooled = Math.sqrt(pooledRate * (1 - pooledRate) * (1 / treatment.runs + 1 / control.runs));
  const pValue = pooled === 0 ? 1 : 2 * (1 - normalCdf(Math.abs(difference) / pooled));
  return { difference, low: difference - Z_95 * unpooled, high: difference + Z_95 * unpooled, pValue: Math.min(1, pValue) };
}

/** Two-sided exact sign test: the probability, under a fair coin, of a split at least this uneven. */
export function signTest(wins: number, losses: number): number {
  const n = wins + losses;
  if (n === 0) return 1;
  const k = Math.min(wins, losses);
  // Sum the binomial(n, 1/2) tail in log space: n can be thousands.
  let logTerm = -n * Math.LN2;
  let tail = Math.exp(logTerm);
  for (let i = 1; i <= k; i += 1) {
    logTerm += Math.log((n - i + 1) / i);
    tail += Math.exp(logTerm);
  }
  return Math.min(1, 2 * tail);
}

/** Runs each arm needs for an 80 % chance to find a difference from rate p0 to p1 at the 5 % level. */
export function runsPerArmNeeded(p0: number, p1: number): number {
  const mean = (p0 + p1) / 2;
  const spread = Z_95 * Math.sqrt(2 * mean * (1 - mean)) + Z_POWER_80 * Math.sqrt(p0 * (1 - p0) + p1 * (1 - p1));
  return Math.ceil((spread * spread) / ((p1 - p0) * (p1 - p0)));
}
