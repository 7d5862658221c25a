// bench:impact: does memoryImpact find a planted effect, and how many runs does each method need?
// A simulated population (test/support/impact-simulation.ts: agents fake, server real) succeeds
// with probability 0.6 when it was served a past run of its task family, else 0.3. Plain
// Bernoulli outcomes throughout.
//   1. Holdout (half the runs served nothing): the runs until memoryImpact first said RAISED
//      (read every 10 runs), and whether at the end it found the effect with its 95 % interval
//      covering the truth (the memory arm's helped share × 0.3).
//   2. Interleaving of the memory's ranking with BM25 alone, on the same kind of traffic: the
//      runs until it first called memory better (read every 5 runs).
//   3. Null holdouts (0.4 either way), NULLS of them: the share that claimed an effect.
// Ends with: impact effect_found=yes|no null_fp_rate=R holdout_runs=N interleave_runs=M
//   npm run bench:impact [-- --nulls 20 --runs 200]
import { parseArgs } from 'node:util';
import { type Call, type Population, runExperiment, seedHistory } from '../test/support/impact-simulation.ts';
import type { Json } from '../test/support/json.ts';
import { type BenchServer, openBenchDatabase, startBenchServer } from './support.ts';

const { values } = parseArgs({ options: { nulls: { type: 'string', default: '20' }, runs: { type: 'string', default: '200' } } });
const NULLS = Number(values.nulls);
const RUNS = Number(values.runs);
const HELPED = 0.6;
const UNHELPED = 0.3;

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

async function main() {
  const bench = await openBenchDatabase();
  const server = await startBenchServer(bench.url);
  const call = callOf(server);
  const started = Date.now();
  try {
    await seedHistory(call, 3);
    const holdout = await runExperiment(call, population('holdout', 1, HELPED, UNHELPED), {
      kind: 'HOLDOUT',
      control: 'NOTHING',
      controlShare: 0.5,
      minSample: 20,
      runs: RUNS,
      checkEvery: 10,
      parallel: 4,
    });
    const memory = (holdout.impact.arms as Json[]).find((a) => a.arm === 'memory');
    const truth = (holdout.runs.filter((r) => r.helped).length / memory.ended) * (HELPED - UNHELPED);
    const i = holdout.impact;
    const found = i.verdict === 'RAISED' && i.differenceLow <= truth && truth <= i.differenceHigh;
    console.log(`holdout: ${i.sentence}; truth +${Math.round(truth * 100)} points; first called after ${holdout.calledAfter ?? 'never'} runs`);

    const interleave = await runExperiment(call, population('interleave', 2, HELPED, UNHELPED), {
      kind: 'INTERLEAVE',
      control: 'BM25',
      minSample: 10,
      runs: RUNS,
      checkEvery: 5,
      parallel: 4,
      stopWhenCalled: true,
    });
    console.log(`interleave: ${interleave.impact.sentence}; called after ${interleave.calledAfter ?? 'never'} runs`);

    let claims = 0;
    for (let k = 0; k < NULLS; k += 1) {
      const result = await runExperiment(call, population(`null-${k}`, 100 + k, 0.4, 0.4), {
        kind: 'HOLDOUT',
        control: 'NOTHING',
        controlShare: 0.5,
        minSample: 20,
        runs: 60,
        checkEvery: 60,
        parallel: 4,
      });
      if (result.impact.verdict === 'RAISED' || result.impact.verdict === 'LOWERED') claims += 1;
    }
    console.log(`nulls: ${claims} of ${NULLS} claimed an effect (stated level 5 %); ${((Date.now() - started) / 1000).toFixed(0)} s in all`);
    const runsOf = (n: number | null) => (n === null ? 'none' : String(n));
    console.log(
      `impact effect_found=${found ? 'yes' : 'no'} null_fp_rate=${(claims / NULLS).toFixed(2)} holdout_runs=${runsOf(holdout.calledAfter)} interleave_runs=${runsOf(interleave.calledAfter)}`,
    );
  } finally {
    await server.stop();
    await bench.close();
  }
}

await main();
