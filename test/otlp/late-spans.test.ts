// Late spans with the real OpenTelemetry SDK (its tracer and its protobuf and JSON encoders): a
// child span that ends after its root (a streamed call, a fire-and-forget tool) arrives after the
// root completed the episode. Within OTLP_LATE_SPAN_GRACE_MS it is the episode's step, its ledger
// event says so and the ledger verifies, and the experience is re-scored; past the grace period
// it is refused in partialSuccess with the reason, and /metrics counts the refusal.
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { type TestApp, useApp } from '../support/app.ts';
import { type Encoding, traceOf } from './support.ts';

const GRACE_MS = 20_000;
let t: TestApp;
let base: string;
useApp(
  (app) => {
    t = app;
    base = app.url.replace(/\/graphql$/, '');
  },
  { OTLP_LATE_SPAN_GRACE_MS: String(GRACE_MS) },
);

/** A run whose root ended `rootEndedAgoMs` ago: two tool spans inside it, and a streamed model call that ended after it. */
function runWithLateChild(rootEndedAgoMs: number): { onTime: ReadableSpan[]; late: ReadableSpan } {
  const memory = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'late-agent' }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer = provider.getTracer('late-spans');
  const rootEnd = Date.now() - rootEndedAgoMs;
  const root = tracer.startSpan('invoke_agent coder', {
    startTime: rootEnd - 5000,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'fix the rounding bug' }] }]),
    },
  });
  const ctx = trace.setSpan(context.active(), root);
  for (const [i, start] of [rootEnd - 4000, rootEnd - 3000].entries()) {
    const tool = tracer.startSpan(
      'execute_tool bash',
      { startTime: start, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'bash', 'gen_ai.tool.call.result': `ok ${i}` } },
      ctx,
    );
    tool.end(start + 500);
  }
  const streamed = tracer.startSpan(
    'chat gpt-4o-mini',
    {
      startTime: rootEnd - 2000,
      attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.usage.input_tokens': 40, 'gen_ai.usage.output_tokens': 60 },
    },
    ctx,
  );
  root.setStatus({ code: SpanStatusCode.OK });
  root.end(rootEnd);
  streamed.end(rootEnd + 400);
  const spans = memory.getFinishedSpans();
  const late = must(spans.find((s) => s.name === 'chat gpt-4o-mini'));
  return { onTime: spans.filter((s) => s !== late), late };
}

/** POSTs the spans as the SDK's exporter encodes them; the status and the partialSuccess it answered. */
async function post(spans: ReadableSpan[], encoding: Encoding) {
  const serializer = encoding === 'json' ? JsonTraceSerializer : ProtobufTraceSerializer;
  const res = await fetch(`${base}/v1/traces`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.keys.write}`, 'content-type': encoding === 'json' ? 'application/json' : 'application/x-protobuf' },
    body: Buffer.from(must(serializer.serializeRequest(spans))),
  });
  const partial = serializer.deserializeResponse(new Uint8Array(await res.arrayBuffer())).partialSuccess;
  return { status: res.status, rejected: Number(String(partial?.rejectedSpans ?? 0)), message: partial?.errorMessage ?? '' };
}

async function episodeOf(traceId: string) {
  const { rows } = await t.services.db.pool.query(
    'SELECT id, status, step_count, used_tokens::int AS used_tokens, reflection FROM episodes WHERE tenant_id = $1 AND dedupe_key = $2',
    [t.keys.tenantId, `otlp:${traceId}`],
  );
  return rows[0] as { id: string; status: string; step_count: number; used_tokens: number; reflection: unknown } | undefined;
}

async function eventsOf(episodeId: string) {
  const { rows } = await t.services.db.pool.query('SELECT type, payload FROM ledger_events WHERE episode_id = $1 ORDER BY seq', [episodeId]);
  return rows as { type: string; payload: Record<string, unknown> }[];
}

/** episodic_otlp_spans_refused_total{reason} as /metrics shows it (an admin key may read it). */
async function refusedCounter(reason: string): Promise<number> {
  const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${t.keys.admin}` } });
  expect(res.status).toBe(200);
  const line = (await res.text()).split('\n').find((l) => l.startsWith(`episodic_otlp_spans_refused_total{reason="${reason}"}`));
  return Number(must(line).split(' ')[1]);
}

describe.each(['protobuf', 'json'] as const)('late spans over %s', (encoding) => {
  it('adds a child that ends after its root, within the grace period, to the completed episode, and the ledger verifies', async () => {
    const { onTime, late } = runWithLateChild(1000);
    expect(await post(onTime, encoding)).toMatchObject({ status: 200, rejected: 0 });
    const before = must(await episodeOf(traceOf(late)));
    expect(before).toMatchObject({ status: 'completed', step_count: 2, used_tokens: 0 });

    expect(await post([late], encoding)).toMatchObject({ status: 200, rejected: 0 });
    const after = must(await episodeOf(traceOf(late)));
    expect(after).toMatchObject({ status: 'completed', step_count: 3, used_tokens: 100 });
    const { rows } = await t.services.db.pool.query('SELECT kind FROM steps WHERE episode_id = $1 AND step_number = 3', [after.id]);
    expect(rows[0].kind).toBe('llm_call');

    const events = await eventsOf(after.id);
    const logged = events.filter((e) => e.type === 'steps.logged');
    expect(logged.map((e) => e.payload.lateTelemetry ?? false)).toEqual([false, true]);
    const redone = must(events.find((e) => e.type === 'episode.experience_redone'));
    expect(redone.payload).toMatchObject({ reason: 'late_telemetry', lateSteps: 1 });
    expect(events.findIndex((e) => e.type === 'episode.experience_redone')).toBeGreaterThan(events.findIndex((e) => e.type === 'episode.completed'));

    const verified = await t.gql<{ verifyLedger: { __typename: string; ok: boolean; problem: string | null; reason: string | null; stepsChecked: number } }>(
      '{ verifyLedger { __typename ... on LedgerVerification { ok problem reason stepsChecked } } }',
    );
    expect(verified.data?.verifyLedger).toMatchObject({ __typename: 'LedgerVerification', ok: true, problem: null });

    // Sent again (an exporter's retry): a duplicate, stored once.
    expect(await post([late], encoding)).toMatchObject({ status: 200, rejected: 0 });
    expect(must(await episodeOf(traceOf(late))).step_count).toBe(3);
  });

  it('refuses a child that comes after the grace period, with the reason, and counts it in /metrics', async () => {
    const { onTime, late } = runWithLateChild(GRACE_MS + 40_000);
    expect(await post(onTime, encoding)).toMatchObject({ status: 200, rejected: 0 });
    const counted = await refusedCounter('late');
    const before = await t.gql<{ otlpRefusals: Array<{ kind: string; count: number }> }>('{ otlpRefusals { kind count } }', {}, t.keys.read);
    const refusalsBefore = before.data?.otlpRefusals.find((r) => r.kind === 'late')?.count ?? 0;

    const answer = await post([late], encoding);
    expect(answer).toMatchObject({ status: 200, rejected: 1 });
    expect(answer.message).toContain(`span ${late.spanContext().spanId} of trace ${traceOf(late)}`);
    expect(answer.message).toMatch(new RegExp(`after its root span ended, past the grace period of ${GRACE_MS} ms \\(OTLP_LATE_SPAN_GRACE_MS\\)`));
    const episode = must(await episodeOf(traceOf(late)));
    expect(episode).toMatchObject({ status: 'completed', step_count: 2 });
    expect((await eventsOf(episode.id)).some((e) => e.type === 'episode.experience_redone')).toBe(false);
    expect(await refusedCounter('late')).toBe(counted + 1);
    // And the tenant's own count, which the monitor's dashboard shows, names the span and the reason.
    const refusals = await t.gql<{ otlpRefusals: Array<{ kind: string; count: number; lastTraceId: string; lastSpanId: string; lastReason: string }> }>(
      '{ otlpRefusals { kind count lastTraceId lastSpanId lastReason } }',
      {},
      t.keys.read,
    );
    const lateCount = refusals.data?.otlpRefusals.find((r) => r.kind === 'late');
    expect(lateCount).toMatchObject({ lastTraceId: traceOf(late), lastSpanId: late.spanContext().spanId });
    expect(lateCount?.count).toBe(refusalsBefore + 1);
    expect(lateCount?.lastReason).toContain('past the grace period');
  });
});
