// Fitting the tenant's learned ranker on its own history (run by the learning queue, learning/jobs.ts).
//
// Training discipline: each training query is a past episode's task, ranked by the fixed formula
// (never by a previous model) with the episode itself excluded; its relevant candidates are the
// other episodes whose outcome artifacts (the files their final change touched) share a file with
// its own. Half the queries carry the episode's context {domain, language}, half only its text, as
// callers ask both ways. Nothing a later query asks is ever in the training set: a model is fitted
// on episodes that already ended.
import type pg from 'pg';
import type { RankingModelsRow } from '../db/rows.ts';
import { insertInto, Params, queryRows } from '../db/sql.ts';
import { type CalibrationSample, fitCalibration, type StrengthCalibration } from './calibration.ts';
import { type FeatureVector, type FittedModel, fittingSteps, modelScore, type RankingModel, type TrainingQuery, validate } from './ranker.ts';
import { indexedEpisodes, RANKER_TRAINING, type StoredRankerInfo } from './ranker-store.ts';
import { LEXICAL_CANDIDATES, rankEpisodesWithTerms } from './store.ts';

interface TrainingEpisode {
  id: string;
  task_description: string;
  domain: string | null;
  language: string | null;
  artifacts: string[];
}

const ARTIFACTS = `CASE WHEN jsonb_typeof(outcome->'artifacts') = 'array' THEN ARRAY(SELECT jsonb_array_elements_text(outcome->'artifacts')) ELSE '{}' END`;

/** A training query with what calibrating the strength needs: each candidate's total and priors' factor, the query's best BM25. */
export interface HistoryQuery extends TrainingQuery {
  bestText: number;
  candidates: ReadonlyArray<{ x: FeatureVector; relevant: boolean; total: number; factor: number }>;
}

/** One training query: the episode's task ranked by the fixed formula without it, labelled by shared files. */
async function trainingQuery(
  pool: pg.Pool,
  tenantId: string,
  episode: TrainingEpisode,
  withContext: boolean,
  uninformative: ReadonlySet<string>,
): Promise<HistoryQuery> {
  const context = { domain: withContext ? episode.domain : null, language: withContext ? episode.language : null, framework: null, tags: [] };
  const { episodes } = await rankEpisodesWithTerms(pool, {
    tenantId,
    query: { description: episode.task_description, taskType: null, context },
    statuses: ['completed', 'failed'],
    limit: LEXICAL_CANDIDATES,
    now: new Date(),
    excludeId: episode.id,
    model: null,
  });
  const p = new Params();
  const rows = await queryRows<{ id: string; artifacts: string[] }>(
    pool,
    `SELECT id, ${ARTIFACTS} AS artifacts FROM episodes WHERE id = ANY(${p.add(episodes.map((e) => e.id))}::uuid[])`,
    p,
  );
  const files = new Set(episode.artifacts.filter((f) => !uninformative.has(f)));
  const relevant = new Set(rows.filter((r) => r.artifacts.some((f) => files.has(f))).map((r) => r.id));
  const candidates = episodes.map((e) => ({
    x: e.features,
    relevant: relevant.has(e.id),
    total: e.score.total,
    // What reward, recency and feedback multiply the evidence by (evidenceFirst): the same under a model.
    factor: e.score.evidence > 0 ? e.score.total / e.score.evidence : 1,
  }));
  return { bestText: episodes[0]?.strengthInputs.bestText ?? 0, candidates };
}

/**
 * The training runs' order, newest first by a key the history itself fixes: the end time when it is
 * known, then (runs without times, whose ended_at is when they were imported) a hash of the task
 * and outcome. Import order and episode ids (random) never choose the training set, its folds or
 * which half is asked with context, so the same history gives the same model.
 */
const STABLE_NEWEST = `(CASE WHEN times_known THEN ended_at END) DESC NULLS LAST, md5(task_description || coalesce(outcome::text, '')), id`;

const FOLDS = 5;
/**
 * A fit gives the event loop back at least this often: a refit is seconds of CPU on the server's
 * own thread (six fits over ~30,000 pairs), and requests must not wait for it.
 */
const YIELD_EVERY_MS = 10;

/** fitRankingModel (ranker.ts), yielding to other work every YIELD_EVERY_MS. */
async function fitYielding(queries: readonly TrainingQuery[]): Promise<FittedModel | null> {
  const steps = fittingSteps(queries);
  let since = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - since >= YIELD_EVERY_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      since = performance.now();
    }
  }
}

/**
 * MRR@5 of the fixed formula and of models fitted without the fold they rank, over all folds, and
 * those models (query i's fold is i % FOLDS: the strength is calibrated on the scores they give).
 */
export async function crossValidate(queries: readonly TrainingQuery[]): Promise<{ fixed: number; model: number; folds: RankingModel[] }> {
  let fixed = 0;
  let model = 0;
  const folds: RankingModel[] = [];
  for (let fold = 0; fold < FOLDS; fold++) {
    const held = queries.filter((_, i) => i % FOLDS === fold);
    const fitted = (await fitYielding(queries.filter((_, i) => i % FOLDS !== fold))) ?? FIXED_ONLY;
    folds.push(fitted);
    const check = validate(held, fitted);
    fixed += check.fixed * held.length;
    model += check.model * held.length;
  }
  const n = Math.max(1, queries.length);
  return { fixed: fixed / n, model: model / n, folds };
}

/** A model that cannot beat anything (no weights): what validation compares when fitting found no pairs. */
const FIXED_ONLY: RankingModel = { features: [], weights: [], means: [], scales: [] };

/** The newest RANKER_TRAINING.queries runs with changed files, each as a training query (half of them with its context). */
export async function trainingHistory(pool: pg.Pool, tenantId: string): Promise<HistoryQuery[]> {
  const p = new Params();
  const rows = await queryRows<TrainingEpisode>(
    pool,
    `SELECT id, task_description, domain, language, ${ARTIFACTS} AS artifacts FROM episodes
      WHERE tenant_id = ${p.add(tenantId)} AND status IN ('completed', 'failed') AND jsonb_typeof(outcome->'artifacts') = 'array' AND jsonb_array_length(outcome->'artifacts') > 0
      ORDER BY ${STABLE_NEWEST} LIMIT ${p.add(RANKER_TRAINING.queries)}`,
    p,
  );
  const uninformative = uninformativeFiles(rows);
  const queries: HistoryQuery[] = [];
  for (const [i, episode] of rows.entries()) queries.push(await trainingQuery(pool, tenantId, episode, i % 2 === 0, uninformative));
  return queries;
}

/** A file changed by more than this share of one domain's training runs is no label (below, at least 3 runs must share it). */
const UNINFORMATIVE_FILE_SHARE = 0.2;

/**
 * Files that say nothing about a task: changed by more than UNINFORMATIVE_FILE_SHARE of the runs
 * of a domain (and by more than 2). Shared, they made two runs "relevant" to each other whatever
 * their tasks: in one repository of the development set a packaging file is in 36 of 44 runs'
 * patches, so nearly every pair of its runs was a positive, the ranker learnt to favour that
 * repository's runs and the strength learnt to promise them too much. By share, not by name, so
 * it holds for any language's build files (package.json, pom.xml, go.mod) and for a harness that
 * leaves the same scratch file in every patch.
 */
export function uninformativeFiles(runs: ReadonlyArray<{ domain: string | null; artifacts: readonly string[] }>): Set<string> {
  const byDomain = new Map<string, { runs: number; files: Map<string, number> }>();
  for (const run of runs) {
    const group = byDomain.get(run.domain ?? '') ?? { runs: 0, files: new Map<string, number>() };
    group.runs += 1;
    for (const f of new Set(run.artifacts)) group.files.set(f, (group.files.get(f) ?? 0) + 1);
    byDomain.set(run.domain ?? '', group);
  }
  const out = new Set<string>();
  for (const group of byDomain.values()) for (const [file, n] of group.files) if (n > 2 && n > UNINFORMATIVE_FILE_SHARE * group.runs) out.add(file);
  return out;
}

/** A kept model with the calibrations fitted beside it (null: too little history, DEFAULT_CALIBRATION). */
interface FittedRanking {
  model: RankingModel;
  calibration: StrengthCalibration | null;
  fixedCalibration: StrengthCalibration | null;
}

/**
 * Fits the tenant's model on its history and stores it (replacing the previous one). Returns what
 * it stored, or null (the tenant ranks by the fixed formula, and a row without features records the
 * fit) below RANKER_TRAINING.minQueries or when models fitted on four fifths of the queries do worse
 * than the fixed formula on the fifth they were not fitted on (five-fold cross-validation).
 */
export async function trainRankingModel(pool: pg.Pool, tenantId: string): Promise<(StoredRankerInfo & FittedRanking) | null> {
  const indexed = await indexedEpisodes(pool, tenantId);
  const queries = await trainingHistory(pool, tenantId);
  const useful = queries.filter((q) => q.candidates.some((c) => c.relevant) && q.candidates.some((c) => !c.relevant));
  const folds = await foldsBeatingFixedFormula(useful);
  const fitted = folds ? await fitYielding(useful) : null;
  const stored = fitted ?? { ...FIXED_ONLY, pairs: 0 };
  // Every query, also those no run answers (a strength fitted only where something was relevant would
  // promise too much), each scored by a model not fitted on it: its fold's, or the final one for a
  // query that was in no fit (nothing relevant). In-sample scores made strong runs look surer than they are.
  const foldOf = new Map(useful.map((q, i) => [q, i % FOLDS]));
  const modelOf = (q: HistoryQuery) => (fitted && folds ? (folds[foldOf.get(q) ?? -1] ?? fitted) : null);
  const calibration = fitCalibration(calibrationSamples(queries, modelOf));
  const trainedAt = await saveFit(pool, tenantId, stored, indexed, useful.length, calibration);
  if (!fitted) return null;
  const model = { features: fitted.features, weights: fitted.weights, means: fitted.means, scales: fitted.scales };
  // The fixed formula's calibration on the same history, for the record (DEFAULT_CALIBRATION was taken from one).
  const fixedCalibration = fitCalibration(calibrationSamples(queries, () => null));
  return { model, episodes: indexed, queries: useful.length, pairs: fitted.pairs, trainedAt, calibration, fixedCalibration };
}

/** The fold models when there are enough queries and they do at least as well as the fixed formula on the fifths left out; else null. */
async function foldsBeatingFixedFormula(queries: readonly TrainingQuery[]): Promise<RankingModel[] | null> {
  if (queries.length < RANKER_TRAINING.minQueries) return null;
  const check = await crossValidate(queries);
  return check.model >= check.fixed ? check.folds : null;
}

/** Runs served per query that the strength's calibration learns from (the answers' usual depth, and some below it). */
const CALIBRATED_RANKS = 10;

/**
 * Each query's best CALIBRATED_RANKS candidates as the tenant would serve them (by the model, with
 * the fixed ranking's priors, or by the fixed formula's total), with whether each was relevant.
 */
export function calibrationSamples(
  queries: readonly HistoryQuery[],
  modelOf: (q: HistoryQuery) => RankingModel | null,
  ranks = CALIBRATED_RANKS,
): CalibrationSample[] {
  return queries.flatMap((q) => {
    const model = modelOf(q);
    if (!model) return q.candidates.slice(0, ranks).map((c) => ({ total: c.total, bestText: q.bestText, bestScore: 0, useful: c.relevant }));
    const scores = q.candidates.map((c) => modelScore(model, c.x));
    const bestScore = Math.max(...scores);
    return q.candidates
      .map((c, i) => ({ total: Math.exp((scores[i] ?? 0) - bestScore) * c.factor, bestText: q.bestText, bestScore, useful: c.relevant }))
      .sort((a, b) => b.total - a.total)
      .slice(0, ranks);
  });
}

/** Stores the fit (a model without features when the tenant keeps the fixed formula: refitDue counts from it) and its calibration (empty: the default). */
async function saveFit(
  pool: pg.Pool,
  tenantId: string,
  fit: FittedModel,
  episodes: number,
  queries: number,
  calibration: StrengthCalibration | null,
): Promise<Date> {
  const p = new Params();
  // trained_at is left to the column's default, now(), which EXCLUDED carries into the update too.
  const insert = insertInto(p, 'ranking_models', {
    tenant_id: tenantId,
    features: fit.features,
    weights: fit.weights,
    means: fit.means,
    scales: fit.scales,
    episodes,
    queries,
    pairs: fit.pairs,
    calibration: calibration ? [...calibration] : [],
  });
  const saved = await queryRows<Pick<RankingModelsRow, 'trained_at'>>(
    pool,
    `${insert}
     ON CONFLICT (tenant_id) DO UPDATE SET features = EXCLUDED.features, weights = EXCLUDED.weights, means = EXCLUDED.means, scales = EXCLUDED.scales, calibration = EXCLUDED.calibration,
       episodes = EXCLUDED.episodes, queries = EXCLUDED.queries, pairs = EXCLUDED.pairs, trained_at = EXCLUDED.trained_at
     RETURNING trained_at`,
    p,
  );
  return saved[0]?.trained_at ?? new Date();
}
