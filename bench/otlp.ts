// OTLP trace ingest against logSteps (issues 28, 49). One server, one database, one run:
//   logsteps: every run as an agent on our GraphQL API would journal it: startEpisode (historical),
//             logSteps with its 99 steps, completeEpisode; 4 clients, each its own runs in turn.
//   otlp:     the same runs as spans recorded by the OpenTelemetry SDK, sent by the OTLP protobuf
//             exporter in requests of 10 runs (1,000 spans) from 4 exporters at once. The spans are
//             shaped as the OpenInference instrumentation writes them (1 AGENT root, 49 LLM spans with
//             their messages, tool calls and tokens, 50 TOOL spans: bench/openinference-runs.ts), or,
//             with `genai` as the second argument, hand-written GenAI spans (invoke_agent, chat, execute_tool).
// The steps are the same: the logsteps side sends what the server's own mapping makes of each span.
// spans/s counts every span (root included: a run of 100 spans is 1 episode and 99 steps) per second.
// After a warm-up of each, two rounds each, alternating, best of each. Prints `otlp spans_per_s=N ratio_vs_logsteps=R`.
// Run: npm run bench:otlp -- 80 [openinference|genai]   (runs per round and side, a multiple of 40, default 80; BENCH_DATABASE_URL to use a server).
import { performance } from 'node:perf_hooks';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { must } from '../src/core/must.ts';
import { priceTable } from '../src/costs/prices.ts';
import { decodeRequest } from '../src/otlp/codec.ts';
import { episodeOfRoot, outcomeOfRoot, stepOfSpan } from '../src/otlp/mapping.ts';
import { type OtlpSpan, spansOf } from '../src/otlp/spans.ts';
import { type AgentRun, exporterFor, exportSpans, recordRuns } from '../test/otlp/support.ts';
import { recordOpenInferenceRuns } from './openinference-runs.ts';
import { type BenchServer, fmt, gql, openBenchDatabase, startBenchServer } from './support.ts';

const RUNS = Number(process.argv[2] ?? 80);
const CLIENTS = 4;
const RUNS_PER_REQUEST = 10;
const SHAPE = process.argv[3] ?? 'openinference';
if (SHAPE !== 'openinference' && SHAPE !== 'genai') throw new Error(`the span shape is openinference or genai, got ${SHAPE}`);
/** The server's own price table: the logsteps side sends the cost the mapping gives each model call. */
const PRICES = priceTable();

function agentRun(round: string, i: number): AgentRun {
  return {
    task: `${round} run ${i}: tune the cache eviction policy of service ${i % 7}`,
    agent: 'bench-agent',
    chats: 49,
    tools: Array.from({ length: 50 }, (_, k) => ({ name: ['bash', 'editor', 'search'][k % 3] ?? 'bash', args: { cmd: `step ${k}` }, result: `ok ${k}` })),
    outcome: 'success',
  };
}

const runsOf = (round: string, n = RUNS) =>
  (SHAPE === 'genai' ? recordRuns : recordOpenInferenceRuns)(
    'bench-service',
    Array.from({ length: n }, (_, i) => agentRun(round, i)),
  );

function byTrace(spans: ReadableSpan[]): ReadableSpan[][] {
  const traces = new Map<string, ReadableSpan[]>();
  for (const s of spans) traces.set(s.spanContext().traceId, [...(traces.get(s.spanContext().traceId) ?? []), s]);
  return [...traces.values()];
}

/** The runs as the server reads them (the SDK's own protobuf serialisation, decoded by our reader). */
const asOtlp = (spans: ReadableSpan[]): OtlpSpan[] =>
  spansOf(decodeRequest(Buffer.from(must(ProtobufTraceSerializer.serializeRequest(spans))), 'protobuf')).spans;

const upper = (kind: string) => kind.toUpperCase();

/** One run through GraphQL: start, one logSteps with every step, complete; the same content the mapping stores. */
async function logStepsRun(server: BenchServer, spans: OtlpSpan[]) {
  const root = must(spans.find((s) => s.parentSpanId === null));
  const children = spans.filter((s) => s !== root).sort((a, b) => a.startMs - b.startMs);
  const start = episodeOfRoot(root, children);
  const started = await gql(server, 'mutation($i: StartEpisodeInput!) { startEpisode(input: $i) { ... on StartEpisodePayload { episode { id } } } }', {
    i: {
      taskDescription: start.taskDescription,
      taskType: start.taskType,
      agent: start.agent,
      context: { ...start.context, complexity: 'MODERATE' },
      dedupeKey: `bench:${root.traceId}`,
      metadata: start.metadata,
      startedAt: start.startedAt?.toISOString(),
    },
  });
  const episodeId = started.startEpisode.episode.id;
  const steps = children.map((span) => {
    const { result, startedAt, endedAt, ...step } = stepOfSpan(span, PRICES);
    return { ...step, result: result && { ...result, kind: upper(result.kind) }, startedAt: startedAt?.toISOString(), endedAt: endedAt?.toISOString() };
  });
  const logged = await gql(server, 'mutation($e: ID!, $s: [StepInput!]!) { logSteps(episodeId: $e, steps: $s) { ... on LogStepsPayload { accepted } } }', {
    e: episodeId,
    s: steps,
  });
  if (logged.logSteps.accepted !== steps.length) throw new Error(`logSteps accepted ${logged.logSteps.accepted} of ${steps.length}`);
  const outcome = outcomeOfRoot(root);
  await gql(server, 'mutation($e: ID!, $o: OutcomeInput!, $t: DateTime) { completeEpisode(episodeId: $e, outcome: $o, endedAt: $t) { __typename } }', {
    e: episodeId,
    o: { ...outcome, kind: upper(outcome.kind) },
    t: new Date(root.endMs).toISOString(),
  });
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

async function logStepsRound(server: BenchServer, round: string, n = RUNS): Promise<number> {
  const runs = byTrace(runsOf(round, n)).map(asOtlp);
  const seconds = await timed(() =>
    Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let i = c; i < runs.length; i += CLIENTS) await logStepsRun(server, must(runs[i]));
      }),
    ),
  );
  return runs.flat().length / seconds;
}

async function otlpRound(server: BenchServer, round: string, n = RUNS): Promise<number> {
  const traces = byTrace(runsOf(round, n));
  const base = server.url.replace(/\/graphql$/, '');
  const requests = Array.from({ length: Math.ceil(traces.length / RUNS_PER_REQUEST) }, (_, r) =>
    traces.slice(r * RUNS_PER_REQUEST, (r + 1) * RUNS_PER_REQUEST).flat(),
  );
  const seconds = await timed(() =>
    Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        const exporter = exporterFor(base, server.token);
        for (let i = c; i < requests.length; i += CLIENTS) {
          const result = await exportSpans(exporter, must(requests[i]));
          if (result.code !== 0) throw result.error ?? new Error('export failed');
        }
      }),
    ),
  );
  return requests.flat().length / seconds;
}

async function main() {
  if (RUNS % (CLIENTS * RUNS_PER_REQUEST) !== 0) throw new Error(`runs must be a multiple of ${CLIENTS * RUNS_PER_REQUEST}`);
  const database = await openBenchDatabase();
  const server = await startBenchServer(database.url);
  try {
    // Warm-up, not counted: the first calls of each path compile and fill caches.
    await logStepsRound(server, 'warm-logsteps', CLIENTS * RUNS_PER_REQUEST);
    await otlpRound(server, 'warm-otlp', CLIENTS * RUNS_PER_REQUEST);
    const logsteps: number[] = [];
    const otlp: number[] = [];
    for (const round of ['a', 'b']) {
      logsteps.push(await logStepsRound(server, `logsteps-${round}`));
      otlp.push(await otlpRound(server, `otlp-${round}`));
    }
    // Every span of the OTLP rounds stored: an export answers 200 even for spans it refuses (partialSuccess).
    const { rows } = await database.db.pool.query(
      `SELECT count(*)::int AS steps, count(*) FILTER (WHERE s.kind = 'llm_call' AND s.result->>'output' LIKE '{"input":%')::int AS transcripts
         FROM steps s JOIN episodes e ON e.id = s.episode_id WHERE e.task_description LIKE 'otlp-_ run %'`,
    );
    const expected = 2 * RUNS * 99;
    if (rows[0].steps !== expected) throw new Error(`the OTLP rounds stored ${rows[0].steps} steps of ${expected}`);
    if (SHAPE === 'openinference' && rows[0].transcripts !== 2 * RUNS * 49) throw new Error(`${rows[0].transcripts} model calls kept their transcript`);
    const best = (xs: number[]) => Math.max(...xs);
    console.error(`logsteps spans/s per round: ${logsteps.map((x) => fmt(x)).join(', ')}; otlp: ${otlp.map((x) => fmt(x)).join(', ')}`);
    const bytes = asOtlp(byTrace(runsOf('size', 1))[0] ?? []).length;
    console.error(
      `span shape: ${SHAPE} (${bytes} spans a run, ${fmt(Buffer.byteLength(JSON.stringify(byTrace(runsOf('size', 1))[0]?.map((s) => s.attributes))) / 1024)} KiB of attributes)`,
    );
    console.log(`otlp spans_per_s=${Math.round(best(otlp))} ratio_vs_logsteps=${(best(otlp) / best(logsteps)).toFixed(2)}`);
  } finally {
    await server.stop();
    await database.close();
  }
}

await main();
