/**
 * The strength of a served run: the calibrated chance that it is useful (that it changed a file the
 * task's own run changes), fitted per tenant on its own history as the ranker is (ranker-training.ts),
 * with DEFAULT_CALIBRATION until a tenant has enough history. Pure.
 *
 * Model (Platt scaling with the query's level): P = σ(b + a·ln(total) + c·ln(1 + bestText) + d·bestScore)
 * where total is the run's ranking total, bestText the best candidate's BM25 (task + work + change)
 * and bestScore the learned model's best score for the query (0 under the fixed formula). Within
 * one query only ln(total) varies and a >= 0, so the order by total is the order by strength (a
 * strong run is never below a weak one); the two per-query terms carry what the relative total
 * cannot: whether anything in the history matches the query at all ("nothing similar" against
 * "the same bug"). Why not isotonic regression on the total: the total is relative to the best
 * candidate, so the top hit's total is about the same for every query.
 */

export interface StrengthInputs {
  /** The run's ranking total (score.total). */
  total: number;
  /** The best candidate's BM25 of the query (task + work + change), before any relative scaling. */
  bestText: number;
  /** The learned model's best score among the query's candidates; 0 under the fixed formula. */
  bestScore: number;
}

/** [b, a, c, d] of the model above, on the raw inputs. */
export type StrengthCalibration = readonly [bias: number, logTotal: number, logBestText: number, bestScore: number];

/**
 * The fixed formula's calibration, for a tenant without a fit: fitted once on the development set's
 * pool (its own training queries, never the held-out tasks; docs/LEARNING.md), rounded.
 */
export const DEFAULT_CALIBRATION: StrengthCalibration = [-4, 0.77, 0.51, 0];

/** Smallest total the logarithm sees (a total of 0 is no evidence; its strength is the floor of the model). */
const MIN_TOTAL = 1e-3;

function inputVector(i: StrengthInputs): [number, number, number] {
  return [Math.log(Math.max(MIN_TOTAL, i.total)), Math.log1p(Math.max(0, i.bestText)), Number.isFinite(i.bestScore) ? i.bestScore : 0];
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

export function calibratedStrength(calibration: StrengthCalibration, inputs: StrengthInputs): number {
  const x = inputVector(inputs);
  return sigmoid(calibration[0] + calibration[1] * x[0] + calibration[2] * x[1] + calibration[3] * x[2]);
}

/** A served run as calibration learns from it: its inputs, and whether it shared a file with the query's run. */
export interface CalibrationSample extends StrengthInputs {
  useful: boolean;
}

const CALIBRATION_FIT = {
  iterations: 400,
  learningRate: 0.5,
  /** Weak L2 on the standardised weights: keeps a history that separates perfectly from infinite weights. */
  l2: 0.001,
  /** Below this many samples with both outcomes present a tenant keeps DEFAULT_CALIBRATION. */
  minSamples: 50,
} as const;

/**
 * Logistic regression of useful on the inputs (full-batch gradient descent on standardised inputs,
 * deterministic), with the ln(total) weight kept >= 0 so the order follows the strength. Null when
 * the samples are too few or all of one outcome.
 */
export function fitCalibration(samples: readonly CalibrationSample[]): StrengthCalibration | null {
  const positives = samples.filter((s) => s.useful).length;
  if (samples.length < CALIBRATION_FIT.minSamples || positives === 0 || positives === samples.length) return null;
  const rows = samples.map(inputVector);
  const { means, scales } = columnStats(rows);
  const z = rows.map((r) => r.map((v, i) => (v - (means[i] ?? 0)) / (scales[i] ?? 1)));
  const w = descend(
    z,
    samples.map((s) => (s.useful ? 1 : 0)),
  );
  // Back to the raw inputs: w_i·(x_i − m_i)/s_i = (w_i/s_i)·x_i − w_i·m_i/s_i.
  const raw = [0, 1, 2].map((i) => (w[i + 1] ?? 0) / (scales[i] ?? 1));
  const bias = (w[0] ?? 0) - raw.reduce((sum, r, i) => sum + r * (means[i] ?? 0), 0);
  // Rounded: the same history imported in another order fits weights equal to 1e-9, and must serve the same strengths.
  const round = (v: number) => Math.round(v * 1e6) / 1e6;
  return [round(bias), round(raw[0] ?? 0), round(raw[1] ?? 0), round(raw[2] ?? 0)];
}

function columnStats(rows: readonly number[][]): { means: number[]; scales: number[] } {
  const n = Math.max(1, rows.length);
  const means = [0, 1, 2].map((i) => rows.reduce((s, r) => s + (r[i] ?? 0), 0) / n);
  const scales = [0, 1, 2].map((i) => {
    const variance = rows.reduce((s, r) => s + ((r[i] ?? 0) - (means[i] ?? 0)) ** 2, 0) / n;
    return variance > 1e-12 ? Math.sqrt(variance) : 1;
  });
  return { means, scales };
}

/** [bias, w1, w2, w3] minimising the mean log loss, w1 (ln total) projected to >= 0. */
function descend(z: readonly number[][], y: readonly number[]): number[] {
  const n = z.length;
  const w = [0, 0, 0, 0];
  for (let step = 0; step < CALIBRATION_FIT.iterations; step++) {
    const gradient = [0, ...[1, 2, 3].map((i) => CALIBRATION_FIT.l2 * (w[i] ?? 0))];
    for (let k = 0; k < n; k++) {
      const x = z[k] ?? [];
      const error = sigmoid((w[0] ?? 0) + (w[1] ?? 0) * (x[0] ?? 0) + (w[2] ?? 0) * (x[1] ?? 0) + (w[3] ?? 0) * (x[2] ?? 0)) - (y[k] ?? 0);
      gradient[0] = (gradient[0] ?? 0) + error / n;
      for (let i = 0; i < 3; i++) gradient[i + 1] = (gradient[i + 1] ?? 0) + (error * (x[i] ?? 0)) / n;
    }
    for (let i = 0; i < 4; i++) w[i] = (w[i] ?? 0) - CALIBRATION_FIT.learningRate * (gradient[i] ?? 0);
    w[1] = Math.max(0, w[1] ?? 0);
  }
  return w;
}

export type StrengthWord = 'strong' | 'moderate' | 'weak' | 'none';

/**
 * Lower bounds of each word on the probability, strongest first: strong when the run is at least
 * as likely useful as not, moderate from one in four, weak from one in ten.
 */
const STRENGTH_WORDS: ReadonlyArray<[StrengthWord, number]> = [
  ['strong', 0.5],
  ['moderate', 0.25],
  ['weak', 0.1],
];

export function strengthWord(value: number): StrengthWord {
  return STRENGTH_WORDS.find(([, bound]) => value >= bound)?.[0] ?? 'none';
}
