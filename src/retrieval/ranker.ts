/**
 * The learned ranker: a linear model over explainable evidence features, fitted per tenant on its
 * own history with no hand labels (a past run's relevant runs are the other runs that changed one
 * of its files). Pure: features, standardisation, the pairwise fit, scoring and contributions.
 *
 * Model: score(x) = Σ_i w_i · (x_i − mean_i) / scale_i, fitted as a linear RankNet (pairwise
 * logistic regression): minimise Σ_(pos, neg) log(1 + exp(−(score(pos) − score(neg)))) + L2/2 · |w|²
 * over pairs of one query's candidates, by full-batch gradient descent. Weights are kept
 * non-negative (projected descent): every feature is a measure of overlap with the task, so more
 * overlap never lowers the score, and a run with no overlap can never beat one with some on every
 * feature; the model only learns how much each kind of overlap counts.
 *
 * Why no library: a linear pairwise model over thirteen features is a few dozen lines; the JavaScript
 * learning-to-rank packages are unmaintained or bring a runtime (TensorFlow.js) far heavier than
 * the model, and this code must run inside a retrieval's 50 ms budget and a learning job.
 */

/** The evidence features, in model order. docs/LEARNING.md describes each. */
export const RANKER_FEATURES = [
  'taskText',
  'work',
  'change',
  'taskTextRelative',
  'workRelative',
  'changeRelative',
  'sameRepository',
  'contextMatch',
  'trigram',
  'traceRelative',
  'namesChangedModule',
  'namesChangedFile',
  'fileVote',
] as const;
export type RankerFeature = (typeof RANKER_FEATURES)[number];
export type FeatureVector = Record<RankerFeature, number>;

/** What a candidate's features are computed from. */
export interface CandidateEvidence {
  /** BM25 of the task description field, and of the work and change fields with their weights. */
  task: number;
  work: number;
  change: number;
  /** 1 when the query names a domain (repository) and the candidate has it. */
  sameDomain: number;
  contextMatch: number;
  trigram: number;
  /** BM25 of the trace field (everything the run left; bm25.ts). */
  trace: number;
  /** What the candidate's changed files say about the query (changed-files.ts). */
  namesChangedModule: number;
  namesChangedFile: number;
  fileVote: number;
}

/** The best value of each BM25 field among one query's candidates (for the relative features). */
export interface FieldMaxima {
  task: number;
  work: number;
  change: number;
  trace: number;
}

export function fieldMaxima(candidates: readonly CandidateEvidence[]): FieldMaxima {
  const max = (pick: (c: CandidateEvidence) => number) => candidates.reduce((m, c) => Math.max(m, pick(c)), 0);
  return { task: max((c) => c.task), work: max((c) => c.work), change: max((c) => c.change), trace: max((c) => c.trace) };
}

const relative = (value: number, best: number) => (best > 0 ? value / best : 0);

/** The feature vector of one candidate among its query's candidates. */
export function features(c: CandidateEvidence, best: FieldMaxima): FeatureVector {
  return {
    taskText: Math.log1p(Math.max(0, c.task)),
    work: Math.log1p(Math.max(0, c.work)),
    change: Math.log1p(Math.max(0, c.change)),
    taskTextRelative: relative(c.task, best.task),
    workRelative: relative(c.work, best.work),
    changeRelative: relative(c.change, best.change),
    sameRepository: c.sameDomain,
    contextMatch: c.contextMatch,
    trigram: c.trigram,
    traceRelative: relative(c.trace, best.trace),
    namesChangedModule: c.namesChangedModule,
    namesChangedFile: c.namesChangedFile,
    fileVote: c.fileVote,
  };
}

export interface RankingModel {
  features: readonly string[];
  weights: readonly number[];
  means: readonly number[];
  scales: readonly number[];
}

/** Each feature's contribution w_i · z_i; their sum is the model's score. */
export function contributions(model: RankingModel, x: FeatureVector): FeatureVector {
  const c = coefficients(model);
  // A literal in RANKER_FEATURES' order (contributionSum adds in this order): one shape, no keyed stores per candidate.
  return {
    taskText: part(c, 0, x.taskText),
    work: part(c, 1, x.work),
    change: part(c, 2, x.change),
    taskTextRelative: part(c, 3, x.taskTextRelative),
    workRelative: part(c, 4, x.workRelative),
    changeRelative: part(c, 5, x.changeRelative),
    sameRepository: part(c, 6, x.sameRepository),
    contextMatch: part(c, 7, x.contextMatch),
    trigram: part(c, 8, x.trigram),
    traceRelative: part(c, 9, x.traceRelative),
    namesChangedModule: part(c, 10, x.namesChangedModule),
    namesChangedFile: part(c, 11, x.namesChangedFile),
    fileVote: part(c, 12, x.fileVote),
  };
}

/** w_i · z_i of RANKER_FEATURES[i] (0 when the model has no such feature), as (w · (x − mean)) / scale. */
function part(c: Float64Array, i: number, value: number): number {
  const at = i * 4;
  return c[at] === 0 ? 0 : ((c[at + 1] as number) * (value - (c[at + 2] as number))) / (c[at + 3] as number);
}

/**
 * Per feature of RANKER_FEATURES, found once per model rather than per candidate: whether the model
 * has it, its weight, mean and scale (missing entries as contributions always read them: 0, 0, 1).
 */
const modelCoefficients = new WeakMap<RankingModel, Float64Array>();

function coefficients(model: RankingModel): Float64Array {
  let c = modelCoefficients.get(model);
  if (!c) {
    c = new Float64Array(RANKER_FEATURES.length * 4);
    RANKER_FEATURES.forEach((name, i) => {
      const at = model.features.indexOf(name);
      if (at < 0) return;
      (c as Float64Array).set([1, model.weights[at] ?? 0, model.means[at] ?? 0, model.scales[at] || 1], i * 4);
    });
    modelCoefficients.set(model, c);
  }
  return c;
}

/** The model's score: the sum of the contributions. */
export function contributionSum(parts: FeatureVector): number {
  return Object.values(parts).reduce((sum, v) => sum + v, 0);
}

export function modelScore(model: RankingModel, x: FeatureVector): number {
  return contributionSum(contributions(model, x));
}

/** A query of the training history: its candidates' features, and which of them are relevant. */
export interface TrainingQuery {
  candidates: ReadonlyArray<{ x: FeatureVector; relevant: boolean }>;
}

export const FIT = {
  iterations: 300,
  learningRate: 0.5,
  l2: 0.01,
  /** Pairs drawn per query at most: each relevant candidate against irrelevant ones spread evenly over the ranking. */
  pairsPerQuery: 200,
} as const;

const vector = (x: FeatureVector) => RANKER_FEATURES.map((name) => x[name]);

/** Mean and standard deviation of each feature over the rows (scale 1 for a constant feature). */
export function standardisation(rows: readonly number[][]): { means: number[]; scales: number[] } {
  const n = Math.max(1, rows.length);
  const means = RANKER_FEATURES.map((_, i) => rows.reduce((s, r) => s + (r[i] ?? 0), 0) / n);
  const scales = RANKER_FEATURES.map((_, i) => {
    const variance = rows.reduce((s, r) => s + ((r[i] ?? 0) - (means[i] ?? 0)) ** 2, 0) / n;
    return variance > 1e-12 ? Math.sqrt(variance) : 1;
  });
  return { means, scales };
}

/** Training pairs (relevant, irrelevant) of each query, as differences of standardised vectors, flat: pair k is [k·F, (k+1)·F). */
function pairDifferences(queries: readonly TrainingQuery[], means: number[], scales: number[]): Float64Array {
  const z = (x: FeatureVector) => vector(x).map((v, i) => (v - (means[i] ?? 0)) / (scales[i] ?? 1));
  const differences: number[] = [];
  for (const q of queries) {
    const positives = q.candidates.filter((c) => c.relevant).map((c) => z(c.x));
    const negatives = q.candidates.filter((c) => !c.relevant).map((c) => z(c.x));
    const perPositive = Math.max(1, Math.floor(FIT.pairsPerQuery / Math.max(1, positives.length)));
    const stride = Math.max(1, negatives.length / perPositive);
    const drawn: number[][] = [];
    for (let at = 0; at < negatives.length && drawn.length < perPositive; at += stride) drawn.push(negatives[Math.floor(at)] ?? []);
    for (const p of positives) for (const n of drawn) for (const [i, v] of p.entries()) differences.push(v - (n[i] ?? 0));
  }
  return Float64Array.from(differences);
}

/**
 * Projected full-batch gradient descent of the pairwise logistic loss over flat pair differences,
 * one iteration per yield. Typed arrays and plain loops: a refit runs this six times (five folds and
 * the final fit) over ~30,000 pairs on the server's event loop, which the caller hands back to other
 * work between iterations.
 */
function* descend(differences: Float64Array, features: number): Generator<void, number[], void> {
  const pairs = differences.length / features;
  const weights = new Float64Array(features).fill(0.1);
  const gradient = new Float64Array(features);
  for (let step = 0; step < FIT.iterations; step++) {
    for (let i = 0; i < features; i++) gradient[i] = FIT.l2 * (weights[i] as number);
    for (let k = 0; k < differences.length; k += features) {
      let margin = 0;
      for (let i = 0; i < features; i++) margin += (differences[k + i] as number) * (weights[i] as number);
      const pull = -1 / (1 + Math.exp(margin));
      for (let i = 0; i < features; i++) gradient[i] = (gradient[i] as number) + (pull * (differences[k + i] as number)) / pairs;
    }
    for (let i = 0; i < features; i++) weights[i] = Math.max(0, (weights[i] as number) - FIT.learningRate * (gradient[i] as number));
    yield;
  }
  return [...weights];
}

/**
 * Fits the model on the queries (each relevant candidate against irrelevant ones from the whole
 * ranking: the best-ranked alone would teach that text does not matter, since they all match the
 * text). Deterministic. Null when no query has
 * both a relevant and an irrelevant candidate.
 */
export function fitRankingModel(queries: readonly TrainingQuery[]): FittedModel | null {
  const steps = fittingSteps(queries);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

export type FittedModel = RankingModel & { pairs: number };

/** fitRankingModel one descent iteration at a time (ranker-training.ts yields to the event loop between them). */
export function* fittingSteps(queries: readonly TrainingQuery[]): Generator<void, FittedModel | null, void> {
  const rows = queries.flatMap((q) => q.candidates.map((c) => vector(c.x)));
  const { means, scales } = standardisation(rows);
  const differences = pairDifferences(queries, means, scales);
  if (differences.length === 0) return null;
  const weights = yield* descend(differences, RANKER_FEATURES.length);
  return { features: [...RANKER_FEATURES], weights, means, scales, pairs: differences.length / RANKER_FEATURES.length };
}

/** MRR@k of a ranking of one query's candidates (indices into them): 1 / rank of the first relevant one. */
function reciprocalRank(q: TrainingQuery, order: readonly number[], k: number): number {
  const first = order.slice(0, k).findIndex((i) => q.candidates[i]?.relevant);
  return first < 0 ? 0 : 1 / (first + 1);
}

/**
 * MRR@5 over the queries of the given order (the fixed formula's: candidates as listed) and of the
 * model's. The training job keeps a model only when it beats the fixed formula on queries it was
 * not fitted on (docs/LEARNING.md).
 */
export function validate(queries: readonly TrainingQuery[], model: RankingModel, k = 5): { fixed: number; model: number } {
  let fixed = 0;
  let learned = 0;
  for (const q of queries) {
    const listed = q.candidates.map((_, i) => i);
    const scores = q.candidates.map((c) => modelScore(model, c.x));
    fixed += reciprocalRank(q, listed, k);
    learned += reciprocalRank(
      q,
      [...listed].sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || a - b),
      k,
    );
  }
  const n = Math.max(1, queries.length);
  return { fixed: fixed / n, model: learned / n };
}
