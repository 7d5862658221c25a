// bench:impact: does memoryImpact find a planted effect, and how many runs does each method need?
// A simulated population (test/support/impact-simulation.ts: agents fake, server real) succeeds
// with probability 0.6 when it was served a past run of its task family, else 0.3. Plain
// Bernoulli outcomes throughout. Each method runs EXPERIMENTS times on other seeds (one seed is one
// sample: a 95 % interval misses one time in twenty), four experiments at a time:
//   1. Holdouts (half the runs served nothing): the runs until memoryImpact first said RAISED
//      (read every 10 runs), and whether at the end it said RAISED with its 95 % interval covering
//      the truth (the memory arm's helped share × 0.3) as often as 95 % coverage allows.
//   2. Interleaving of the memory's ranking with BM25 alone, on the same kind of traffic: the
//      runs until it first called memory better (read every 5 runs).
//   3. Null holdouts (0.4 either way), NULLS of them, read once at 60 runs: the share that claimed an effect.
// Ends with: impact effect_found=yes|no null_fp_rate=R holdout_runs=N interleave_runs=M
// (N and M: the median over the experiments of the runs each needed to call the effect).
//   npm run bench:impact [-- --experiments 10 --nulls 100 --runs 200]
import { parseArgs } from 'node:util';
import { type Call, type ExperimentResult, type Population, runExperiment, seedHistory } from '../test/support/impact-simulation.ts';
import type { Json } from '../test/support/json.ts';
import { type BenchServer, openBenchDatabase, startBenchServer } from './support.ts';

const { values } = parseArgs({
  options: { nulls: { type: 'string', default: '100' }, experiments: { type: 'string', default: '10' }, runs: { type: 'string', default: '200' } },
});
const NULLS = Number(values.nulls);
const RUNS = Number(values.runs);
const EXPERIMENTS = Number(values.experiments);
const HELPED = 0.6;
const UNHELPED = 0.3;
const AT_ONCE = 4;

const callOf =
  (server: BenchServer): Call =>
  async (query, variables) => {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as Json;
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };

const population = (agent: string, seed: number, helped: number, unhelped: number): Population => ({ agent, seed, helped, unhelped, draws: 'bernoulli' });

/** Experiments are independent (each its own agent scope): AT_ONCE of them run side by side. */
async function inBatches(count: number, run: (k: number) => Promise<ExperimentResult>): Promise<ExperimentResult[]> {
  const results: ExperimentResult[] = [];
  for (let first = 0; first < count; first += AT_ONCE) {
    const batch = Array.from({ length: Math.min(AT_ONCE, count - first) }, (_, i) => first + i);
    results.push(...(await Promise.all(batch.map(run))));
  }
  return results;
}

/** The most covering intervals k of n such that fewer than k cover the truth with probability 1 % or less under 95 % coverage. */
function leastCoverage(n: number): number {
  let below = 0;
  for (let k = 0; k <= n; k += 1) {
    below += binomial(n, k) * 0.95 ** k * 0.05 ** (n - k);
    if (below > 0.01) return k;
  }
  return n;
}

function binomial(n: number, k: number): number {
  let c = 1;
  for (let i = 1; i <= k; i += 1) c = (c * (n - k + i)) / i;
  return c;
}

/** The median of the runs each experiment needed to call the effect; null when half or more never did. */
function medianCall(results: ExperimentResult[]): number | null {
  const calls = results.map((r) => r.calledAfter ?? Number.POSITIVE_INFINITY).sort((a, b) => a - b);
  const median = calls[Math.floor((calls.length - 1) / 2)] as number;
  return Number.isFinite(median) ? median : null;
}

async function main() {
  const bench = await openBenchDatabase();
  const server = await startBenchServer(bench.url);
  const call = callOf(server);
  const started = Date.now();
  try {
    await seedHistory(call, 3);
    const holdouts = await inBatches(EXPERIMENTS, (k) =>
      runExperiment(call, population(`holdout-${k}`, 1 + k, HELPED, UNHELPED), {
        kind: 'HOLDOUT',
        control: 'NOTHING',
        controlShare: 0.5,
        minSample: 20,
        runs: RUNS,
        checkEvery: 10,
        parallel: 4,
      }),
    );
    const covered = holdouts.filter((holdout, k) => {
      const memory = (holdout.impact.arms as Json[]).find((a) => a.arm === 'memory');
      const truth = (holdout.runs.filter((r) => r.helped).length / memory.ended) * (HELPED - UNHELPED);
      const i = holdout.impact;
      console.log(`holdout ${k}: ${i.sentence}; truth +${Math.round(truth * 100)} points; first called after ${holdout.calledAfter ?? 'never'} runs`);
      return i.verdict === 'RAISED' && i.differenceLow <= truth && truth <= i.differenceHigh;
    }).length;
    // A 95 % interval misses the truth one time in twenty: the effect counts as found when every
    // holdout said RAISED and the intervals covered the truth as often as 95 % coverage allows.
    const raised = holdouts.every((h) => h.impact.verdict === 'RAISED');
    const needed = leastCoverage(EXPERIMENTS);
    const found = raised && covered >= needed;
    console.log(`holdouts: ${covered} of ${EXPERIMENTS} intervals covered the truth (at least ${needed} expected of a 95 % interval)`);

    const interleaves = await inBatches(EXPERIMENTS, (k) =>
      runExperiment(call, population(`interleave-${k}`, 101 + k, HELPED, UNHELPED), {
        kind: 'INTERLEAVE',
        control: 'BM25',
        minSample: 10,
        runs: RUNS,
        checkEvery: 5,
        parallel: 4,
        stopWhenCalled: true,
      }),
    );
    interleaves.forEach((r, k) => console.log(`interleave ${k}: ${r.impact.sentence}; called after ${r.calledAfter ?? 'never'} runs`));

    const nulls = await inBatches(NULLS, (k) =>
      runExperiment(call, population(`null-${k}`, 1001 + k, 0.4, 0.4), {
        kind: 'HOLDOUT',
        control: 'NOTHING',
        controlShare: 0.5,
        minSample: 20,
        runs: 60,
        checkEvery: 60,
        parallel: 4,
      }),
    );
    const claims = nulls.filter((r) => r.impact.verdict === 'RAISED' || r.impact.verdict === 'LOWERED').length;
    console.log(`nulls: ${claims} of ${NULLS} claimed an effect (stated level 5 %); ${((Date.now() - started) / 1000).toFixed(0)} s in all`);
    const runsOf = (n: number | null) => (n === null ? 'none' : String(n));
    console.log(
      `impact effect_found=${found ? 'yes' : 'no'} null_fp_rate=${(claims / NULLS).toFixed(2)} holdout_runs=${runsOf(medianCall(holdouts))} interleave_runs=${runsOf(medianCall(interleaves))}`,
    );
  } finally {
    await server.stop();
    await bench.close();
  }
}

await main();
