// The official @opentelemetry/instrumentation-openai sends a model call's messages as log events
// to /v1/logs, not on its span, and an SDK flushing its tracer provider before (or beside) its
// logger provider delivers the spans first. A trace whose model calls carry no messages is held
// (OTLP_LOG_EVENTS_WAIT_MS): the logs request that brings them settles it, with the user's task and
// each call's transcript; with content capture off no logs ever come and the wait's job settles it.
// The real `openai` SDK and instrumentation, the real OTLP exporters, a fake model on 127.0.0.1.
import { OpenAIInstrumentation } from '@opentelemetry/instrumentation-openai';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delay } from '../../src/core/delay.ts';
import { must } from '../../src/core/must.ts';
import { type TestApp, useApp } from '../support/app.ts';
import { completedEpisode, type EpisodeRow, FIXTURE_ENV, stepsOf } from './agents/cases.ts';
import { type FakeModel, FINAL_ANSWER, RESPONSE_MODEL, startFakeModel, TOTAL_TOKENS } from './agents/fake-model.ts';
import { freshOpenAI, runOpenAIAgent } from './agents/openai-agent.ts';
import { type Recorded, send, setUpTelemetry, type Telemetry } from './agents/telemetry.ts';
import type { Encoding } from './support.ts';

let model: FakeModel;
let telemetry: Telemetry;
let instrumentation: OpenAIInstrumentation;
let openai: typeof import('openai');
beforeAll(async () => {
  model = await startFakeModel();
  telemetry = setUpTelemetry('date-fixer');
  instrumentation = new OpenAIInstrumentation({ captureMessageContent: true });
  instrumentation.setTracerProvider(telemetry.tracerProvider);
  instrumentation.setLoggerProvider(telemetry.loggerProvider);
  instrumentation.enable();
  openai = freshOpenAI();
});
afterAll(() => {
  instrumentation?.disable();
  return model?.close();
});

const runAgent = (task: string, withRoot: boolean) => runOpenAIAgent(openai.OpenAI as typeof OpenAI, model.baseURL, task, withRoot);

async function episodesOfTraces(t: TestApp, traceIds: string[]): Promise<EpisodeRow[]> {
  const { rows } = await t.services.db.pool.query(
    `SELECT id, status, outcome_kind, task_description, used_tokens::int AS tokens, step_count FROM episodes WHERE tenant_id = $1 AND dedupe_key = ANY($2::text[])`,
    [t.keys.tenantId, traceIds.map((id) => `otlp:${id}`)],
  );
  return rows as EpisodeRow[];
}

async function countOf(t: TestApp, sql: string): Promise<number> {
  const { rows } = await t.services.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql} WHERE tenant_id = $1`, [t.keys.tenantId]);
  return rows[0]?.n ?? 0;
}

describe('log events exported after their spans', () => {
  let t: TestApp;
  let base: string;
  // A wait longer than the tests: only the logs request can settle these traces.
  useApp(
    (app) => {
      t = app;
      base = app.url.replace(/\/graphql$/, '');
    },
    { ...FIXTURE_ENV, OTLP_LOG_EVENTS_WAIT_MS: '600000' },
  );

  const cases: Array<[Encoding, boolean]> = [
    ['protobuf', true],
    ['json', true],
    ['protobuf', false],
  ];
  it.each(cases)('over %s (user root span: %s) the episode has the user task and every model call its transcript', async (encoding, withRoot) => {
    const task = `Fix the date parsing of the report header (${encoding}, ${withRoot ? 'root' : 'no root'})`;
    await runAgent(task, withRoot);
    const recorded: Recorded = telemetry.take();
    expect(recorded.records.length).toBeGreaterThan(0);
    const spansFirst = await send(base, t.keys.write, encoding, { spans: recorded.spans, records: [] });
    expect(spansFirst.spans.code, String(spansFirst.spans.error)).toBe(0);
    // Held: no episode from the spans alone, every span kept.
    expect(await episodesOfTraces(t, spansFirst.traceIds)).toEqual([]);
    const logs = await send(base, t.keys.write, encoding, { spans: [], records: recorded.records });
    expect(logs.logs?.code, String(logs.logs?.error)).toBe(0);

    const [episode, ...others] = await completedEpisode(t, task);
    expect(others).toEqual([]);
    expect(episode).toMatchObject({ status: 'completed', outcome_kind: 'unknown', tokens: TOTAL_TOKENS });
    const steps = await stepsOf(t, must(episode).id);
    expect(steps.map((s) => s.kind)).toEqual(withRoot ? ['llm_call', 'tool_call', 'llm_call', 'tool_call', 'llm_call'] : ['llm_call', 'llm_call', 'llm_call']);
    const calls = steps.filter((s) => s.kind === 'llm_call');
    expect(calls[0]?.action).toBe(`${RESPONSE_MODEL} → bash(ls src)`);
    expect(calls[2]?.observation).toBe(FINAL_ANSWER);
    for (const call of calls) {
      const transcript = JSON.parse(String(call.result?.output)) as { input: Array<{ role: string; content: string }>; output: unknown[] };
      expect(transcript.input.find((m) => m.role === 'user')?.content).toBe(task);
      expect(transcript.output.length).toBeGreaterThan(0);
    }
    expect(await countOf(t, 'otlp_pending_spans')).toBe(0);

    // The exporters retry both requests (their answers lost): nothing is stored twice.
    const events = await countOf(t, 'otlp_span_events');
    const again = await send(base, t.keys.write, encoding, recorded, 'spans_first');
    expect([again.spans.code, again.logs?.code]).toEqual([0, 0]);
    const [same, ...more] = await completedEpisode(t, task);
    expect(more).toEqual([]);
    expect(same).toEqual(episode);
    expect((await stepsOf(t, must(episode).id)).length).toBe(steps.length);
    expect(await countOf(t, 'otlp_span_events')).toBe(events);
    expect(await countOf(t, 'otlp_pending_spans')).toBe(0);
  });
});

describe('log events that never come (content capture off, no logger provider)', () => {
  let t: TestApp;
  let base: string;
  useApp(
    (app) => {
      t = app;
      base = app.url.replace(/\/graphql$/, '');
    },
    { ...FIXTURE_ENV, OTLP_LOG_EVENTS_WAIT_MS: '1000' },
  );
  beforeAll(() => instrumentation.setConfig({ captureMessageContent: false }));
  afterAll(() => instrumentation.setConfig({ captureMessageContent: true }));

  it('the episode appears after the wait, settled by its job, with its steps', async () => {
    await runAgent('Fix the date parsing (no content captured)', true);
    // Only the spans are exported: no logs exporter, as with a tracer provider alone.
    const sent = await send(base, t.keys.write, 'protobuf', { spans: telemetry.take().spans, records: [] });
    expect(sent.spans.code, String(sent.spans.error)).toBe(0);
    let episodes: EpisodeRow[] = [];
    for (let i = 0; i < 150 && !episodes.some((e) => e.status === 'completed'); i += 1) {
      await delay(200);
      episodes = await episodesOfTraces(t, sent.traceIds);
    }
    expect(episodes).toHaveLength(1);
    const [episode] = episodes as [EpisodeRow];
    expect(episode).toMatchObject({ status: 'completed', tokens: TOTAL_TOKENS, task_description: 'invoke_agent coder' });
    const steps = await stepsOf(t, episode.id);
    expect(steps.map((s) => s.kind)).toEqual(['llm_call', 'tool_call', 'llm_call', 'tool_call', 'llm_call']);
    expect(steps.filter((s) => s.kind === 'llm_call').map((s) => s.metadata.model)).toEqual([RESPONSE_MODEL, RESPONSE_MODEL, RESPONSE_MODEL]);
    expect(await countOf(t, 'otlp_pending_spans')).toBe(0);
    // It was held, and the job queued for after the wait settled it.
    const { rows } = await t.services.db.pool.query<{ state: string }>(
      `SELECT state FROM pgboss.job WHERE name = 'otlp-held-trace' AND data->>'traceId' = ANY($1::text[])`,
      [sent.traceIds],
    );
    expect(rows.map((r) => r.state)).toEqual(['completed']);
  });
});
