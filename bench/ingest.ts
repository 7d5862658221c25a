// Step ingestion benchmark (issue 3). All figures come from one run on one database:
//   A. raw pg: INSERT ... SELECT FROM unnest(...) of the rows B stores, 100-row batches from 4 connections (baseline)
//   B. logSteps through GraphQL over HTTP, batches of 100 from 4 concurrent clients (each its own episodes)
//   C. logStep (one step per call) from 32 concurrent clients, group commit on
//   D. the same load as C with group commit off: one transaction per step (our SQL, no coalescing)
//   E. the same load as C through a naive Prisma ORM path: one transaction and one INSERT per step
//   F. B's load with the commit replaced by an immediate answer, nothing written: what HTTP, GraphQL
//      and the resolver (limits, redaction, hashes) cost before any database work. With A's insert it
//      bounds B from above on this machine (the ceiling lines).
// Run: npm run bench:ingest -- 40000   (the batched step count, a multiple of 400; BENCH_DATABASE_URL to use a server).
// The script sets NODE_ENV=production, as a deployment would: graphql-js then skips its development checks.

import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { must } from '../src/core/must.ts';
import { toStepInput } from '../src/graphql/step-inputs.ts';
import { prepareSteps } from '../src/steps/prepare.ts';
import { DEFAULT_REDACTED_KEYS } from '../src/steps/redact.ts';
import { type BenchServer, type CpuUse, fmt, gql, measureCpu, openBenchDatabase, runLoad, startBenchServer, summarize } from './support.ts';

const TOTAL = Number(process.argv[2] ?? 40_000);
const SINGLE_TOTAL = Math.round(TOTAL / 4);
const EPISODE_STEPS = 1000;

function makeStep(i: number) {
  return {
    kind: 'tool_call',
    tool: ['bash', 'editor', 'search', 'http'][i % 4],
    action: `action ${i}`,
    parameters: { path: `src/file_${i % 50}.ts`, line: i, flags: ['-n', '--color'], token: 'secret-value' },
    result: { kind: 'SUCCESS' as const, output: `ok ${i}` },
    observation: `observed output of step ${i}`,
    latencyMs: 10 + (i % 90),
    tokens: 20 + (i % 30),
  };
}

/**
 * Where batch b (of 100 steps) goes, in A and B alike: client b % 4 sends it, and each client
 * journals its own episodes of EPISODE_STEPS steps one after the other, as 4 agents would.
 */
function placeBatch(b: number): { episode: number; firstStep: number } {
  const client = b % 4;
  const ofClient = Math.floor(b / 4);
  const perEpisode = EPISODE_STEPS / 100;
  return { episode: client + 4 * Math.floor(ofClient / perEpisode), firstStep: (ofClient % perEpisode) * 100 + 1 };
}

const EPISODES = Math.max(...Array.from({ length: TOTAL / 100 }, (_, b) => placeBatch(b).episode)) + 1;

async function startEpisodes(server: BenchServer, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const data = await gql(server, 'mutation($i: StartEpisodeInput!) { startEpisode(input: $i) { ... on StartEpisodePayload { episode { id } } } }', {
      i: { taskDescription: `bench episode ${i}`, taskType: 'code' },
    });
    ids.push(data.startEpisode.episode.id);
  }
  return ids;
}

async function runClients(clients: number, work: (client: number) => Promise<number[]>) {
  const started = performance.now();
  const latencies = (await Promise.all(Array.from({ length: clients }, (_, c) => work(c)))).flat();
  return { seconds: (performance.now() - started) / 1000, ...summarize(latencies) };
}

/** B's rows as it stores them (redacted, sized, hashed), computed before any clock starts. */
function storedRows(episodeIds: string[]) {
  return Array.from({ length: TOTAL / 100 }, (_, b) => {
    const { episode, firstStep } = placeBatch(b);
    const episodeId = must(episodeIds[episode]);
    const steps = prepareSteps(
      episodeId,
      Array.from({ length: 100 }, (_, k) => toStepInput(makeStep(b * 100 + k))),
      DEFAULT_REDACTED_KEYS,
    );
    return { episodeId, rows: steps.map((step, k) => ({ n: firstStep + k, step, contentHash: step.contentHash })) };
  });
}

type StoredRow = ReturnType<typeof storedRows>[number]['rows'][number];
const json = (v: unknown) => (v === null ? null : JSON.stringify(v));

/** A: the same rows B stores (all 20 columns), 100 per INSERT ... SELECT FROM unnest, from 4 connections. */
async function rawUnnest(pool: import('pg').Pool, tenantId: string, batches: ReturnType<typeof storedRows>) {
  return runClients(4, async (client) => {
    const lat: number[] = [];
    for (let b = client; b < batches.length; b += 4) {
      const { episodeId, rows } = must(batches[b]);
      const col = <T>(f: (r: StoredRow) => T) => rows.map(f);
      const t0 = performance.now();
      await pool.query(
        `INSERT INTO steps (tenant_id, episode_id, step_number, kind, tool, action, parameters, args_hash, result_kind, result, observation,
                            latency_ms, tokens, cost, side_effect_key, world_before, world_after, metadata, content_hash, size_bytes)
         SELECT $1, $2, * FROM unnest($3::int[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::text[], $9::text[], $10::jsonb[], $11::text[],
                                      $12::int[], $13::int[], $14::float8[], $15::text[], $16::jsonb[], $17::jsonb[], $18::jsonb[], $19::text[], $20::int[])`,
        [
          tenantId,
          episodeId,
          col((r) => r.n),
          col((r) => r.step.kind),
          col((r) => r.step.tool),
          col((r) => r.step.action),
          col((r) => json(r.step.parameters)),
          col((r) => r.step.argsHash),
          col((r) => r.step.resultKind),
          col((r) => json(r.step.result)),
          col((r) => r.step.observation),
          col((r) => r.step.latencyMs),
          col((r) => r.step.tokens),
          col((r) => r.step.cost),
          col((r) => r.step.sideEffectKey),
          col((r) => json(r.step.worldBefore)),
          col((r) => json(r.step.worldAfter)),
          col((r) => json(r.step.metadata)),
          col((r) => r.contentHash),
          col((r) => r.step.sizeBytes),
        ],
      );
      lat.push(performance.now() - t0);
    }
    return lat;
  });
}

/** A0, the baseline before 2026-11-22: a 12-column subset of the rows with a dummy hash (kept for comparison). */
async function rawSubset(pool: import('pg').Pool, tenantId: string, episodeIds: string[]) {
  const batches = TOTAL / 100;
  return runClients(4, async (client) => {
    const lat: number[] = [];
    for (let b = client; b < batches; b += 4) {
      const { episode, firstStep } = placeBatch(b);
      const episodeId = must(episodeIds[episode]);
      const rows = Array.from({ length: 100 }, (_, k) => ({ n: firstStep + k, s: makeStep(b * 100 + k) }));
      const t0 = performance.now();
      await pool.query(
        `INSERT INTO steps (tenant_id, episode_id, step_number, kind, tool, action, parameters, result_kind, result, observation, latency_ms, tokens, content_hash, size_bytes)
         SELECT $1, $2, * FROM unnest($3::int[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::text[], $9::jsonb[], $10::text[], $11::int[], $12::int[], $13::text[], $14::int[])`,
        [
          tenantId,
          episodeId,
          rows.map((r) => r.n),
          rows.map((r) => r.s.kind),
          rows.map((r) => r.s.tool),
          rows.map((r) => r.s.action),
          rows.map((r) => JSON.stringify(r.s.parameters)),
          rows.map(() => 'success'),
          rows.map((r) => JSON.stringify({ output: r.s.result.output })),
          rows.map((r) => r.s.observation),
          rows.map((r) => r.s.latencyMs),
          rows.map((r) => r.s.tokens),
          rows.map(() => 'x'),
          rows.map(() => 300),
        ],
      );
      lat.push(performance.now() - t0);
    }
    return lat;
  });
}

const LOG_STEPS = 'mutation($e: ID!, $s: [StepInput!]!) { logSteps(episodeId: $e, steps: $s) { __typename ... on LogStepsPayload { accepted } } }';
const LOG_STEP = 'mutation($e: ID!, $s: StepInput!) { logStep(episodeId: $e, step: $s) { __typename ... on LogStepPayload { result { status } } } }';

async function graphqlBatches(server: BenchServer) {
  const episodes = await startEpisodes(server, EPISODES);
  const batches = TOTAL / 100;
  const clients = Array.from({ length: 4 }, (_, c) => {
    const calls = [];
    for (let b = c; b < batches; b += 4) {
      calls.push({ e: episodes[placeBatch(b).episode], s: Array.from({ length: 100 }, (_, k) => makeStep(b * 100 + k)) });
    }
    return calls;
  });
  return runLoad({ url: server.url, token: server.token, query: LOG_STEPS, clients, check: { path: ['logSteps', 'accepted'], equals: 100 } });
}

async function graphqlSingles(server: BenchServer, clientCount: number, total = SINGLE_TOTAL) {
  const perClient = Math.ceil(total / clientCount);
  const episodes = await startEpisodes(server, clientCount);
  const clients = episodes.map((e) => Array.from({ length: perClient }, (_, i) => ({ e, s: makeStep(i) })));
  return runLoad({ url: server.url, token: server.token, query: LOG_STEP, clients, check: { path: ['logStep', 'result', 'status'], equals: 'ACCEPTED' } });
}

async function main() {
  const bench = await openBenchDatabase();
  try {
    const grouped = await startBenchServer(bench.url);
    const naive = await startBenchServer(bench.url, { GROUP_COMMIT: 'false' });
    const orm = await startBenchServer(bench.url, {}, 'naive');
    const floor = await startBenchServer(bench.url, {}, 'none');
    // Warm every server (JIT, connections, prepared plans) before measuring.
    await graphqlSingles(grouped, 4, 400);
    await graphqlSingles(naive, 4, 400);
    await graphqlSingles(orm, 4, 400);
    await graphqlSingles(floor, 4, 400);

    const rawBatches = storedRows(await startEpisodes(grouped, EPISODES));
    const subsetEpisodes = await startEpisodes(grouped, EPISODES);
    const SINGLE = 32 * Math.ceil(SINGLE_TOTAL / 32);
    const measured = <T>(units: number, work: () => Promise<T>) => measureCpu(bench.url, units, work);
    const a = await measured(TOTAL, () => rawUnnest(bench.db.pool, grouped.tenantId, rawBatches));
    const a0 = await measured(TOTAL, () => rawSubset(bench.db.pool, grouped.tenantId, subsetEpisodes));
    const b = await measured(TOTAL, () => graphqlBatches(grouped));
    const f = await measured(TOTAL, () => graphqlBatches(floor));
    const c = await measured(SINGLE, () => graphqlSingles(grouped, 32));
    const d = await measured(SINGLE, () => graphqlSingles(naive, 32));
    const e = await measured(SINGLE, () => graphqlSingles(orm, 32));
    const rate = (n: number, r: { seconds: number }) => n / r.seconds;
    const rows = [
      ['A raw pg UNNEST of the rows B stores, 100/batch, 4 connections', rate(TOTAL, a), a],
      ['A0 raw pg UNNEST of a 12-column subset (earlier baseline)', rate(TOTAL, a0), a0],
      ['B logSteps via GraphQL, 100/batch, 4 clients', rate(TOTAL, b), b],
      ["F B's load with nothing written (HTTP, GraphQL, limits, redaction, hashes)", rate(TOTAL, f), f],
      ['C logStep via GraphQL, 32 clients, group commit', rate(SINGLE, c), c],
      ['D logStep via GraphQL, 32 clients, one transaction per step (our SQL)', rate(SINGLE, d), d],
      ['E logStep via GraphQL, 32 clients, naive Prisma ORM, one INSERT per step', rate(SINGLE, e), e],
    ] as const;
    const us = (v: number | null) => (v === null ? 'n/a' : fmt(v));
    const cpuPerStep = (cpu: CpuUse) => (cpu.postgresUs === null ? null : cpu.nodeUs + cpu.postgresUs);
    console.log(`\nsteps: ${TOTAL} batched, ${SINGLE_TOTAL} single; node ${process.version}\n`);
    console.log('CPU per step: this process (server and load clients) and the local PostgreSQL processes.\n');
    console.log(
      '| path | steps/s | p50 ms | p99 ms | node CPU us/step | postgres CPU us/step | cores busy |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    );
    for (const [name, r, s] of rows) {
      console.log(
        `| ${name} | ${fmt(r)} | ${fmt(s.p50, 1)} | ${fmt(s.p99, 1)} | ${us(s.cpu.nodeUs)} | ${us(s.cpu.postgresUs)} | ${s.cpu.cores === null ? 'n/a' : fmt(s.cpu.cores, 2)} |`,
      );
    }
    console.log(`\nB/A (logSteps vs raw UNNEST of the same rows): ${fmt(rate(TOTAL, b) / rate(TOTAL, a), 2)} (target >= 0.5)`);
    const [cpuA, cpuB] = [cpuPerStep(a.cpu), cpuPerStep(b.cpu)];
    // Both paths share the same cores, so with the cores as busy as in A, B's rate can be at most
    // A's rate times A's CPU per step over B's.
    if (cpuA !== null && cpuB !== null)
      console.log(`B/A bound by CPU per step (A ${fmt(cpuA)} us, B ${fmt(cpuB)} us, node + postgres): ${fmt(cpuA / cpuB, 2)}`);
    // F is B without any database work. A server doing F's work and then A's insert, and nothing
    // else (no transaction, ledger event, locks or budgets), costs at least F's CPU plus A's per step.
    const cpuF = cpuPerStep(f.cpu);
    console.log(`F/A (the same calls with nothing written, against A): ${fmt(rate(TOTAL, f) / rate(TOTAL, a), 2)}`);
    if (cpuA !== null && cpuF !== null) {
      console.log(`B/A ceiling by CPU at A's cores busy (A ${fmt(cpuA)} us over F ${fmt(cpuF)} + A ${fmt(cpuA)} us): ${fmt(cpuA / (cpuF + cpuA), 2)}`);
      // If B could keep every core busy (no path here does), while A keeps a.cpu.cores busy.
      const allCores = (availableParallelism() / must(a.cpu.cores)) * (cpuA / (cpuF + cpuA));
      console.log(`B/A ceiling by CPU with all ${availableParallelism()} cores fully busy: ${fmt(allCores, 2)}`);
    }
    console.log(`B/A0 (logSteps vs the earlier 12-column baseline): ${fmt(rate(TOTAL, b) / rate(TOTAL, a0), 2)}`);
    console.log(`C/E (group commit vs naive ORM one-INSERT-per-step): ${fmt(rate(SINGLE, c) / rate(SINGLE, e), 2)} (target >= 5)`);
    console.log(`C/D (group commit vs our SQL without coalescing): ${fmt(rate(SINGLE, c) / rate(SINGLE, d), 2)}`);
    await grouped.stop();
    await naive.stop();
    await orm.stop();
    await floor.stop();
  } finally {
    await bench.close();
  }
}

await main();
