// Memory benchmark on real agent runs (issue 15). One run, one database, the same pool and queries:
//   - the development set (bench/memory-data.ts) split per repository (bench/memory-split.ts);
//   - the pool imported through the public API; each held-out task asked of relevantEpisodes,
//     text only and text + context {domain, language}, failures included (they are evidence);
//   - FileHit@5, same-repository P@5, MRR@5 and the hub share for Episodic, an in-benchmark BM25
//     over task descriptions (restricted to the repository in context mode) and a random pick of
//     the same repository; paired hit counts; latency; a leave-one-repository-out run; ranking
//     after usedRetrievals feedback from successful held-out runs against before it;
//   - then the pattern report (bench/memory-patterns.ts, when present) and the two summary lines.
// Run: npm run bench:memory   (MEMORY_DATASET=<archive> for another set; BENCH_DATABASE_URL to use a
//      server instead of an embedded one; --no-loro skips the leave-one-repository-out run)
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createApiKey, createTenant } from '../src/auth/store.ts';
import { createEpisodicClient, type EpisodicClient, unwrap } from '../src/client/index.ts';
import { must } from '../src/core/must.ts';
import { type ImportedRun, importRuns, parseMiniSweAgent } from '../src/import/index.ts';
import { calibratedStrength, type StrengthInputs, type StrengthWord, strengthWord } from '../src/retrieval/calibration.ts';
import { loadTenantRanking } from '../src/retrieval/ranker-store.ts';
import { calibrationSamples, trainingHistory, trainRankingModel } from '../src/retrieval/ranker-training.ts';
import { rankEpisodesWithTerms } from '../src/retrieval/store.ts';
import { type DevRun, loadDevRuns } from './memory-data.ts';
import { reportFiles } from './memory-files.ts';
import { Bm25Baseline, ceiling, evaluate, everythingTerms, type Metrics, paired, randomSameRepository } from './memory-metrics.ts';
import { leaveRepositoryOut, splitByRepository } from './memory-split.ts';
import { rng } from './retrieval-data.ts';
import { type BenchDatabase, fmt, openBenchDatabase, percentile, startBenchServer } from './support.ts';

const args = process.argv.slice(2);
/** --quick: the two held-out tables only (for iterating); the recorded figures come from a full run. */
const QUICK = args.includes('--quick');
/** --ranker-only: the main tenant's tables and the ranker report (learned against fixed, calibration); no determinism or files run. */
const RANKER_ONLY = args.includes('--ranker-only');
const LORO = !args.includes('--no-loro') && !QUICK && !RANKER_ONLY;
const DESCRIPTION_BYTES = 10 * 1024;

type Mode = 'text' | 'context';
type Rankings = Map<string, string[]>;

const RELEVANT = `query($task: RetrievalTaskInput!, $filter: RelevantEpisodeFilter) {
  result: relevantEpisodes(task: $task, limit: 5, includeFailures: true, filter: $filter) {
    __typename ... on RelevantEpisodes { retrievalId episodes { episode { id } failed score { feedbackUses } } }
  }
}`;

interface Tenant {
  id: string;
  url: string;
  token: string;
  /** The imported episodes' agent: queries filter on it, so the feedback runs never answer them. */
  agent: string;
  /** run id → episode id, and back. */
  episodes: Map<string, string>;
  runs: Map<string, string>;
}

const cut = (text: string) =>
  Buffer.from(text)
    .subarray(0, DESCRIPTION_BYTES)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
const task = (run: DevRun, mode: Mode) => ({
  description: cut(run.description),
  ...(mode === 'context' ? { context: { domain: run.repository, language: run.language } } : {}),
});

/** How a pool is imported: the order of its files and how many runs at once (importRuns' concurrency). */
interface ImportPlan {
  reversed?: boolean;
  concurrency?: number;
}

async function newTenant(database: BenchDatabase, url: string, name: string, pool: readonly DevRun[], plan: ImportPlan = {}): Promise<Tenant> {
  const tenant = await createTenant(database.db.prisma, name);
  const { token } = await createApiKey(database.db.prisma, { tenantId: tenant.id, name: 'bench', scopes: ['admin', 'write', 'read'] });
  const client = createEpisodicClient({ url, apiKey: token, timeoutMs: 120_000 });
  const verdictFiles = [...new Set(pool.map((r) => join(dirname(r.path), '..', '..', 'results.csv')))].filter(existsSync);
  const paths = pool.map((r) => r.path);
  const report = await importRuns(client, plan.reversed ? paths.reverse() : paths, { verdictFiles, concurrency: plan.concurrency });
  const episodes = new Map<string, string>();
  for (const run of report.runs) if (run.instanceId && run.episodeId) episodes.set(run.instanceId, run.episodeId);
  // A failed run changes the pool (and so every figure): say which and why.
  for (const run of report.runs) if (run.status === 'failed') console.error(`${name}: failed to import ${run.error?.message ?? run.file}`);
  console.error(
    `${name}: imported ${report.imported} of ${pool.length} runs (${report.acceptedSteps} steps, ${report.rejectedSteps} refused, ${report.failed} failed) in ${fmt(report.seconds, 1)} s`,
  );
  // What autovacuum does after a bulk import (this benchmark's server may run without it): the
  // planner's statistics and the visibility map that keeps the postings scan index-only.
  for (const table of ['episode_terms', 'episode_term_df', 'episode_term_totals', 'episodes']) await database.db.pool.query(`VACUUM ANALYZE ${table}`);
  // The learned ranker, fitted on this pool only (what the learning queue does as history grows);
  // the held-out queries are never in it.
  const t0 = performance.now();
  const fitted = await trainRankingModel(database.db.pool, tenant.id);
  console.error(
    fitted
      ? `${name}: ranker fitted on ${fitted.queries} pool queries (${fitted.pairs} pairs) in ${fmt((performance.now() - t0) / 1000, 1)} s; weights ${fitted.model.features.map((f, i) => `${f}=${fmt(fitted.model.weights[i] ?? 0, 2)}`).join(' ')}`
      : `${name}: no learned ranker kept (too little history, or no better than the fixed formula in cross-validation); fixed formula`,
  );
  console.error(
    `${name}: strength calibration ${JSON.stringify((await loadTenantRanking(database.db.pool, tenant.id)).calibration)}, the fixed formula's on the same history ${JSON.stringify(fitted?.fixedCalibration ?? null)}`,
  );
  const first = [...episodes.values()][0];
  const episode = first ? await client.episode(first) : null;
  const agent = episode?.__typename === 'Episode' ? (episode.agent ?? '') : '';
  return { id: tenant.id, url, token, agent, episodes, runs: new Map([...episodes].map(([run, episodeId]) => [episodeId, run])) };
}

/** Asks relevantEpisodes for each query; rankings by run id, latencies in ms, and the retrieval ids. */
async function askEpisodic(t: Tenant, queries: readonly DevRun[], mode: Mode) {
  const client = createEpisodicClient({ url: t.url, apiKey: t.token, timeoutMs: 60_000 });
  const rankings: Rankings = new Map();
  const retrievals = new Map<string, string>();
  const latencies: number[] = [];
  /** Queries whose top 5 holds an episode credited by a use of a resembling query. */
  let withFeedback = 0;
  for (const q of queries) {
    const t0 = performance.now();
    const ask = () =>
      client.request<{
        __typename: string;
        retrievalId: string;
        episodes: Array<{ episode: { id: string }; score: { feedbackUses: number } }>;
      }>(RELEVANT, { task: task(q, mode), filter: { agent: t.agent } });
    // Once more on a transport error: a keep-alive connection the server closed while this process
    // was busy (fitting a ranker in-process) fails the first request sent on it.
    const result = await ask().catch((error: unknown) => {
      if ((error as { kind?: string }).kind === 'transport') return ask();
      throw error;
    });
    latencies.push(performance.now() - t0);
    if (result.__typename !== 'RelevantEpisodes') throw new Error(`relevantEpisodes: ${JSON.stringify(result)}`);
    if (result.episodes.some((e) => e.score.feedbackUses > 0)) withFeedback += 1;
    rankings.set(
      q.id,
      result.episodes.map((e) => t.runs.get(e.episode.id) ?? e.episode.id),
    );
    retrievals.set(q.id, result.retrievalId);
  }
  return { rankings, latencies, retrievals, withFeedback };
}

const TOP10 = `query($task: RetrievalTaskInput!, $filter: RelevantEpisodeFilter) {
  result: relevantEpisodes(task: $task, limit: 10, includeFailures: true, filter: $filter) {
    __typename ... on RelevantEpisodes { episodes { episode { id } failed score { total } } }
  }
}`;

/** Each held-out task's top 10 in both modes, as run ids with their scores: the text two tenants are compared by. */
async function topTens(t: Tenant, queries: readonly DevRun[]): Promise<string[]> {
  const client = createEpisodicClient({ url: t.url, apiKey: t.token, timeoutMs: 60_000 });
  const answers: string[] = [];
  for (const mode of ['text', 'context'] as const)
    for (const q of queries) {
      const result = await client.request<{ episodes?: Array<{ episode: { id: string }; failed: boolean; score: { total: number } }> }>(TOP10, {
        task: task(q, mode),
        filter: { agent: t.agent },
      });
      // Scores to 6 decimals: recency moves with the clock between the two tenants' answers (by less than 1e-9 here).
      const top = (result.episodes ?? []).map((e) => [t.runs.get(e.episode.id) ?? e.episode.id, e.failed, e.score.total.toFixed(6)]);
      answers.push(`${mode} ${q.id} ${JSON.stringify(top)}`);
    }
  return answers;
}

/**
 * Determinism: the pool imported again into a fresh tenant in reverse order, two runs at a time
 * (the main tenant took it in order, 32 at a time), its own ranker fitted; every held-out task's
 * top 10 in both modes must be the same text.
 */
async function determinism(database: BenchDatabase, url: string, main: Tenant, pool: readonly DevRun[], heldOut: readonly DevRun[]): Promise<string> {
  const reversed = await newTenant(database, url, 'memory-reversed', pool, { reversed: true, concurrency: 2 });
  const [a, b] = [await topTens(main, heldOut), await topTens(reversed, heldOut)];
  const differing = a.filter((answer, i) => answer !== b[i]);
  for (const answer of differing.slice(0, 3)) console.error(`determinism: differs: ${answer.slice(0, 300)}`);
  console.log(`Determinism: ${a.length - differing.length} of ${a.length} top-10 answers identical after a reversed import two at a time.\n`);
  return `memory determinism identical=${differing.length === 0 ? 'yes' : 'no'}`;
}

/** The run in most top-5 lists, and in how many. */
function hubRun(rankings: Rankings): { run: string; lists: number } {
  const counts = new Map<string, number>();
  for (const ranking of rankings.values()) for (const id of new Set(ranking.slice(0, 5))) counts.set(id, (counts.get(id) ?? 0) + 1);
  const [run, lists] = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0] ?? ['none', 0];
  return { run, lists };
}

const line = (name: string, m: Metrics) => `| ${name} | ${m.fileHit.toFixed(3)} | ${m.sameRepoP5.toFixed(3)} | ${m.mrr.toFixed(3)} | ${m.hub.toFixed(3)} |`;
const HEADER = ['| ranking | FileHit@5 | same-repo P@5 | MRR@5 | max top-5 share |', '|---|---|---|---|---|'];

/** BM25 over task descriptions, BM25 over everything a run left, and a random pick: same pool, same queries. */
function baselines(pool: readonly DevRun[], queries: readonly DevRun[], mode: Mode) {
  const bm25 = new Bm25Baseline(pool);
  const bm25all = new Bm25Baseline(pool, everythingTerms);
  const restrict = (q: DevRun) => (mode === 'context' ? q.repository : null);
  const bm25Rankings: Rankings = new Map(queries.map((q) => [q.id, bm25.rank(q.description, restrict(q))]));
  const bm25allRankings: Rankings = new Map(queries.map((q) => [q.id, bm25all.rank(q.description, restrict(q))]));
  const random: Rankings = new Map(queries.map((q, i) => [q.id, randomSameRepository(q, pool, 1000 + i)]));
  return { bm25Rankings, bm25allRankings, random };
}

/** Successful held-out runs of `givers` complete with usedRetrievals of their own query. */
async function giveFeedback(t: Tenant, givers: readonly DevRun[], mode: Mode): Promise<number> {
  const client = createEpisodicClient({ url: t.url, apiKey: t.token, timeoutMs: 60_000 });
  const { retrievals } = await askEpisodic(t, givers, mode);
  let given = 0;
  for (const run of givers) {
    const retrievalId = retrievals.get(run.id);
    if (!retrievalId || !run.resolved) continue;
    const { episode } = unwrap(
      await client.startEpisode({
        taskDescription: cut(run.description),
        taskType: 'bugfix',
        agent: 'bench-feedback',
        context: { domain: run.repository, language: run.language },
      }),
    );
    unwrap(await client.completeEpisode(episode.id, { kind: 'SUCCESS', verdict: 'resolved', artifacts: run.files }, [retrievalId]));
    given += 1;
  }
  return given;
}

/**
 * The pattern benchmark's report (bench/memory-patterns.ts, issue 15p), printed before the summary
 * lines when that file is present: its reportPatterns({ client, pool, heldOut }) over the runs as
 * its patternBenchRun(importedRun, resolved, episodeId) describes them, on this benchmark's tenant.
 */
interface PatternModule {
  patternBenchRun?: (run: ImportedRun, resolved: boolean, episodeId: string | null) => unknown;
  reportPatterns?: (input: { client: EpisodicClient; pool: unknown[]; heldOut: unknown[] }) => Promise<string[]>;
}

async function patternReport(t: Tenant, pool: readonly DevRun[], heldOut: readonly DevRun[]): Promise<string[]> {
  const file = new URL('./memory-patterns.ts', import.meta.url);
  if (!existsSync(file)) return [];
  const module = (await import(file.href)) as PatternModule;
  const { patternBenchRun, reportPatterns } = module;
  if (!patternBenchRun || !reportPatterns) return [];
  const describe = (run: DevRun) => patternBenchRun(parseMiniSweAgent(run.path, readFileSync(run.path, 'utf8')), run.resolved, t.episodes.get(run.id) ?? null);
  const client = createEpisodicClient({ url: t.url, apiKey: t.token, timeoutMs: 120_000 });
  return reportPatterns({ client, pool: pool.map(describe), heldOut: heldOut.map(describe) });
}

/**
 * The ranking's own time, apart from HTTP and the receipt write: the same queries ranked in this
 * process on the server's database (what relevantEpisodes runs before it records the receipt).
 */
async function serverRankingTimes(database: BenchDatabase, t: Tenant, queries: readonly DevRun[], mode: Mode): Promise<number[]> {
  const times: number[] = [];
  for (const q of queries) {
    const { description, context } = task(q, mode);
    const query = { description, taskType: null, context: { domain: context?.domain ?? null, language: context?.language ?? null, framework: null, tags: [] } };
    const t0 = performance.now();
    await rankEpisodesWithTerms(database.db.pool, {
      tenantId: t.id,
      query,
      statuses: ['completed', 'failed'],
      limit: 5,
      filter: { agent: t.agent },
      now: new Date(),
    });
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b);
}

/** Each held-out task's top 5 ranked in this process by the tenant's learned ranker and by the fixed formula (model null). */
async function rankerRankings(database: BenchDatabase, t: Tenant, queries: readonly DevRun[], mode: Mode, pool: ReadonlyMap<string, DevRun>) {
  const learned: Rankings = new Map();
  const fixed: Rankings = new Map();
  /** Each run served by the tenant's ranking: its strength (src/retrieval/calibration.ts) and whether it shares a file with the task. */
  const served: Array<{ value: number; word: StrengthWord; hit: boolean; inputs?: StrengthInputs }> = [];
  for (const q of queries) {
    const { description, context } = task(q, mode);
    const query = { description, taskType: null, context: { domain: context?.domain ?? null, language: context?.language ?? null, framework: null, tags: [] } };
    const base = { tenantId: t.id, query, statuses: ['completed', 'failed'] as const, limit: 5, filter: { agent: t.agent }, now: new Date() };
    for (const [rankings, model] of [
      [learned, undefined],
      [fixed, null],
    ] as const) {
      const { episodes } = await rankEpisodesWithTerms(database.db.pool, { ...base, statuses: [...base.statuses], model });
      if (model === undefined)
        for (const e of episodes) {
          const run = t.runs.get(e.id);
          served.push({
            value: e.strength,
            word: strengthWord(e.strength),
            hit: Boolean(run && pool.get(run)?.files.some((f) => q.files.includes(f))),
            inputs: e.strengthInputs,
          });
        }
      rankings.set(
        q.id,
        episodes.map((e) => t.runs.get(e.id) ?? e.id),
      );
    }
  }
  return { learned, fixed, served };
}

/**
 * Calibration of the strength shown beside each served run: the expected calibration error over ten
 * equal bins of its value against the share of those runs that changed one of the task's files,
 * and whether the words order the hit rates (strong > moderate > weak > none, over the words served).
 */
function calibration(served: ReadonlyArray<{ value: number; word: StrengthWord; hit: boolean }>): { ece: number; monotone: boolean; words: string } {
  const bins = Array.from({ length: 10 }, () => ({ n: 0, value: 0, hits: 0 }));
  for (const s of served) {
    const bin = bins[Math.min(9, Math.floor(s.value * 10))];
    if (!bin) continue;
    bin.n += 1;
    bin.value += s.value;
    bin.hits += s.hit ? 1 : 0;
  }
  const n = Math.max(1, served.length);
  const ece = bins.reduce((sum, b) => sum + (b.n === 0 ? 0 : (b.n / n) * Math.abs(b.value / b.n - b.hits / b.n)), 0);
  const rates = (['strong', 'moderate', 'weak', 'none'] as const).map((word) => {
    const of = served.filter((s) => s.word === word);
    return { word, n: of.length, rate: of.filter((s) => s.hit).length / Math.max(1, of.length) };
  });
  const present = rates.filter((r) => r.n > 0);
  const monotone = present.length === 4 && present.every((r, i) => i === 0 || (present[i - 1]?.rate ?? 0) > r.rate);
  return { ece, monotone, words: rates.map((r) => `${r.word} ${r.n} served, hit ${r.rate.toFixed(3)}`).join('; ') };
}

/** Per-query reciprocal rank @5 (0 without a hit). */
function reciprocalRanks(queries: readonly DevRun[], rankings: Rankings, pool: ReadonlyMap<string, DevRun>): number[] {
  return queries.map((q) => {
    const at = (rankings.get(q.id) ?? []).slice(0, 5).findIndex((id) => pool.get(id)?.files.some((f) => q.files.includes(f)));
    return at < 0 ? 0 : 1 / (at + 1);
  });
}

/** A paired bootstrap 95 % interval of the mean difference a − b (2,000 resamples, fixed seed). */
function pairedInterval(a: readonly number[], b: readonly number[]): { mean: number; low: number; high: number } {
  const d = a.map((v, i) => v - (b[i] ?? 0));
  const mean = d.reduce((s, v) => s + v, 0) / Math.max(1, d.length);
  const random = rng(51);
  const means: number[] = [];
  for (let k = 0; k < 2000; k++) {
    let sum = 0;
    for (let i = 0; i < d.length; i++) sum += d[Math.floor(random() * d.length)] ?? 0;
    means.push(sum / Math.max(1, d.length));
  }
  means.sort((x, y) => x - y);
  return { mean, low: means[49] ?? 0, high: means[1949] ?? 0 };
}

/** The learned ranker against the fixed formula on the same held-out tasks, both modes: MRR@5, FileHit@5 and the paired interval of the MRR gain. */
async function rankerReport(database: BenchDatabase, t: Tenant, heldOut: readonly DevRun[], pool: ReadonlyMap<string, DevRun>): Promise<string[]> {
  const parts: string[] = [];
  const allServed: Array<{ value: number; word: StrengthWord; hit: boolean; inputs?: StrengthInputs }> = [];
  console.log('## Learned ranker against the fixed formula (same tenant, same held-out tasks, ranked in process)\n');
  console.log('| mode | learned MRR@5 | fixed MRR@5 | MRR gain (95 % paired bootstrap) | learned FileHit@5 | fixed FileHit@5 |\n|---|---|---|---|---|---|');
  for (const mode of ['text', 'context'] as const) {
    const { learned, fixed, served } = await rankerRankings(database, t, heldOut, mode, pool);
    allServed.push(...served);
    const ofMode = calibration(served);
    console.error(`${mode}: strength ECE ${ofMode.ece.toFixed(3)}; ${ofMode.words}`);
    const [a, b] = [reciprocalRanks(heldOut, learned, pool), reciprocalRanks(heldOut, fixed, pool)];
    const gain = pairedInterval(a, b);
    const [ml, mf] = [evaluate(heldOut, learned, pool), evaluate(heldOut, fixed, pool)];
    console.log(
      `| ${mode} | ${ml.mrr.toFixed(3)} | ${mf.mrr.toFixed(3)} | ${gain.mean >= 0 ? '+' : ''}${gain.mean.toFixed(3)} [${gain.low.toFixed(3)}, ${gain.high.toFixed(3)}] | ${ml.fileHit.toFixed(3)} | ${mf.fileHit.toFixed(3)} |`,
    );
    parts.push(`${mode}_learned=${ml.mrr.toFixed(3)} ${mode}_fixed=${mf.mrr.toFixed(3)} ${mode}_gain_ci=[${gain.low.toFixed(3)},${gain.high.toFixed(3)}]`);
  }
  const calibrated = calibration(allServed);
  {
    // The same measure on the pool's own training queries (what the calibration was fitted on, top 5 by the tenant's model).
    const { model, calibration: fittedCalibration } = await loadTenantRanking(database.db.pool, t.id);
    const history = await trainingHistory(database.db.pool, t.id);
    const samples = calibrationSamples(history, () => model, 5);
    const own = calibration(
      samples.map((x) => ({ value: calibratedStrength(fittedCalibration, x), word: strengthWord(calibratedStrength(fittedCalibration, x)), hit: x.useful })),
    );
    const mean = (xs: readonly StrengthInputs[], pick: (x: StrengthInputs) => number) =>
      (xs.reduce((sum, x) => sum + pick(x), 0) / Math.max(1, xs.length)).toFixed(3);
    const describe = (xs: readonly StrengthInputs[]) =>
      `ln total ${mean(xs, (x) => Math.log(Math.max(1e-3, x.total)))}, ln(1 + bestText) ${mean(xs, (x) => Math.log1p(x.bestText))}, bestScore ${mean(xs, (x) => x.bestScore)}`;
    console.log(`Inputs, pool's own: ${describe(samples)}; held-out served: ${describe(allServed.flatMap((x) => (x.inputs ? [x.inputs] : [])))}`);
    console.log(`Pool's own training queries (${history.length}), their top 5 by the model: ECE ${own.ece.toFixed(3)}; ${own.words}.`);
  }
  console.log(`\nStrength of the ${allServed.length} runs served (top 5, both modes): ECE ${calibrated.ece.toFixed(3)}; ${calibrated.words}.\n`);
  return [`memory ranker ${parts.join(' ')}`, `memory calibration ece=${calibrated.ece.toFixed(3)} monotone=${calibrated.monotone ? 'yes' : 'no'}`];
}

async function main() {
  const runs = loadDevRuns();
  const { pool, heldOut } = splitByRepository(runs);
  const poolById = new Map(runs.map((r) => [r.id, r]));
  const repositories = [...new Set(runs.map((r) => r.repository))].sort();
  console.log(
    `# Memory benchmark: ${runs.length} runs of ${repositories.length} repositories; pool ${pool.length}, held out ${heldOut.length} (20% per repository, seed 15)\n`,
  );
  // The baselines before any request: their CPU-bound indexing would stall this process between
  // requests, and the server closes an idle keep-alive connection meanwhile.
  const baseline = new Map((['text', 'context'] as const).map((mode) => [mode, baselines(pool, heldOut, mode)]));
  const database = await openBenchDatabase();
  const server = await startBenchServer(database.url);
  const summary: string[] = [];
  try {
    const main = await newTenant(database, server.url, 'memory-main', pool);
    const final = new Map<Mode, Record<'episodic' | 'bm25' | 'bm25all', Metrics>>();
    console.log(`Ceiling (share of held-out queries for which some pool run changed one of their files): ${ceiling(heldOut, pool).toFixed(3)}\n`);
    for (const mode of ['text', 'context'] as const) {
      const asked = await askEpisodic(main, heldOut, mode);
      const { bm25Rankings, bm25allRankings, random } = must(baseline.get(mode));
      const episodic = evaluate(heldOut, asked.rankings, poolById);
      const bm25 = evaluate(heldOut, bm25Rankings, poolById);
      const bm25all = evaluate(heldOut, bm25allRankings, poolById);
      final.set(mode, { episodic, bm25, bm25all });
      const sorted = [...asked.latencies].sort((a, b) => a - b);
      const pair = paired(heldOut, asked.rankings, bm25allRankings, poolById);
      const hub = hubRun(asked.rankings);
      console.error(`${mode}: the run in most top-5 lists: ${hub.run} (${hub.lists} of ${heldOut.length}; repository ${poolById.get(hub.run)?.repository})`);
      const same = mode === 'context' ? ' (same repository)' : '';
      console.log(`## ${mode === 'text' ? 'Task text only' : 'Task text + context {domain, language}'} (${heldOut.length} queries)\n`);
      console.log(
        [
          ...HEADER,
          line('Episodic relevantEpisodes', episodic),
          line(`BM25 over descriptions${same}`, bm25),
          line(`BM25 over everything a run left (task, commands, outputs, patch)${same}`, bm25all),
          line('random, same repository', evaluate(heldOut, random, poolById)),
        ].join('\n'),
      );
      console.log(
        `\nPaired: Episodic hits where BM25-all misses ${pair.onlyA}, BM25-all where Episodic misses ${pair.onlyB}. relevantEpisodes over HTTP (ranking + receipt write): p50 ${fmt(percentile(sorted, 50), 1)} ms, p95 ${fmt(percentile(sorted, 95), 1)} ms.\n`,
      );
    }
    if (LORO) {
      console.log('## Leave one repository out (no run of the queried repository in the pool: ranking noise)\n');
      console.log('| repository | ranking | FileHit@5 | same-repo P@5 | MRR@5 | max top-5 share |\n|---|---|---|---|---|---|');
      for (const repository of repositories) {
        const split = leaveRepositoryOut(pool, repository);
        const t = await newTenant(database, server.url, `memory-loro-${repository}`, split.pool);
        const queries = heldOut.filter((r) => r.repository === repository);
        const episodic = evaluate(queries, (await askEpisodic(t, queries, 'text')).rankings, poolById);
        const { bm25Rankings, bm25allRankings } = baselines(split.pool, queries, 'text');
        const bm25 = evaluate(queries, bm25Rankings, poolById);
        const bm25all = evaluate(queries, bm25allRankings, poolById);
        console.log(`| ${repository} ${line('Episodic', episodic)}\n| ${repository} ${line('BM25', bm25)}\n| ${repository} ${line('BM25 all', bm25all)}`);
      }
      console.log('');
    }
    const ranker = await rankerReport(database, main, heldOut, poolById);
    const deterministic = RANKER_ONLY ? 'memory determinism not run (--ranker-only)' : await determinism(database, server.url, main, pool, heldOut);
    if (!QUICK && !RANKER_ONLY) await feedbackReport(main, heldOut, poolById);
    for (const report of QUICK || RANKER_ONLY ? [] : await patternReport(main, pool, heldOut)) {
      if (report.startsWith('memory ')) summary.push(report);
      else console.log(report);
    }
    // After every HTTP request: an idle keep-alive connection may be closed by the server meanwhile.
    for (const mode of ['text', 'context'] as const) {
      const ranking = await serverRankingTimes(database, main, heldOut, mode);
      console.log(
        `Server-side ranking alone (${mode}, no HTTP, no receipt write): p50 ${fmt(percentile(ranking, 50), 1)} ms, p95 ${fmt(percentile(ranking, 95), 1)} ms.`,
      );
    }
    console.log('');
    const modeLines = [...final].map(
      ([mode, m]) =>
        `memory ${mode} FileHit@5 episodic=${m.episodic.fileHit.toFixed(3)} bm25=${m.bm25.fileHit.toFixed(3)} bm25all=${m.bm25all.fileHit.toFixed(3)}`,
    );
    const text = must(final.get('text'));
    const context = must(final.get('context'));
    modeLines.push(
      `memory mrr text=${text.episodic.mrr.toFixed(3)} context=${context.episodic.mrr.toFixed(3)} bm25all_text=${text.bm25all.mrr.toFixed(3)} bm25all_context=${context.bm25all.mrr.toFixed(3)}`,
      `memory hubs max_share=${Math.max(text.episodic.hub, context.episodic.hub).toFixed(3)}`,
      ...ranker,
      deterministic,
    );
    summary.unshift(...modeLines);
    if (!RANKER_ONLY) {
      // relevantFiles, served file patterns and procedures (bench/memory-files.ts), on a tenant of its own: its `memory ...` lines close the summary.
      const files = await reportFiles({ database, url: server.url, pool, heldOut });
      console.log(files.filter((line) => !line.startsWith('memory ')).join('\n'));
      summary.push(...files.filter((line) => line.startsWith('memory ')));
    }
  } finally {
    await server.stop();
    await database.close();
  }
  console.log(summary.join('\n'));
}

/** The feedback section: before and after usedRetrievals of successful held-out runs. */
async function feedbackReport(main: Tenant, heldOut: readonly DevRun[], poolById: ReadonlyMap<string, DevRun>): Promise<void> {
  // Feedback: successful runs of the first half of the held-out tasks report the retrieval they
  // used; the second half is measured before and after (so no query is credited for itself).
  const givers = heldOut.filter((_, i) => i % 2 === 0);
  const measured = heldOut.filter((_, i) => i % 2 === 1);
  const before = evaluate(measured, (await askEpisodic(main, measured, 'context')).rankings, poolById);
  const given = await giveFeedback(main, givers, 'context');
  const asked = await askEpisodic(main, measured, 'context');
  const after = evaluate(measured, asked.rankings, poolById);
  console.log(`## Feedback (usedRetrievals of ${given} successful held-out runs; measured on the other ${measured.length} held-out tasks, text + context)\n`);
  console.log([...HEADER, line('before feedback', before), line('after feedback', after)].join('\n'));
  console.log(
    `\nQuery-relative credit: ${asked.withFeedback} of the ${measured.length} measured queries have a credited episode (a use by a resembling query) in their top 5.\n`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
