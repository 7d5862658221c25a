// The outcome of a run without an agent root span (model calls only, grouped by episodic.run.id),
// with the real OpenTelemetry SDK and its protobuf exporter: ended after the idle gap, it takes the
// episodic.outcome (and episodic.verdict) one of its calls stated; without one it is unknown.
import { SpanStatusCode } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { describe, expect, it } from 'vitest';
import { delay } from '../../src/core/delay.ts';
import { type TestApp, useApp } from '../support/app.ts';
import { exporterFor, exportSpans } from './support.ts';

let t: TestApp;
useApp(
  (app) => {
    t = app;
  },
  { OTLP_RUN_IDLE_MS: '1500' },
);

/** Model calls of one run, each a trace of its own (no span around them), the last with `last` attributes. */
function calls(runId: string, task: string, last: Record<string, string>) {
  const memory = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'bare-agent' }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer = provider.getTracer('bare-calls');
  const start = Date.now() - 10_000;
  for (let i = 0; i < 2; i += 1) {
    const span = tracer.startSpan('chat gpt-4o-mini', {
      startTime: start + i * 1000,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.usage.input_tokens': 100,
        'gen_ai.usage.output_tokens': 10,
        'episodic.run.id': runId,
        'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: task }] }]),
        ...(i === 1 ? last : {}),
      },
    });
    span.setStatus({ code: SpanStatusCode.OK });
    span.end(start + i * 1000 + 500);
  }
  return memory.getFinishedSpans();
}

async function endedRun(task: string): Promise<{ outcome_kind: string; outcome: { verdict?: string } }> {
  for (let i = 0; i < 100; i += 1) {
    const { rows } = await t.services.db.pool.query('SELECT status, outcome_kind, outcome FROM episodes WHERE tenant_id = $1 AND task_description = $2', [
      t.keys.tenantId,
      task,
    ]);
    if (rows.length === 1 && rows[0].status === 'completed') return rows[0];
    await delay(200);
  }
  throw new Error(`the run "${task}" did not end`);
}

describe('the outcome of a run without an agent root', () => {
  it('is what a call stated with episodic.outcome, else unknown', async () => {
    const base = t.url.replace(/\/graphql$/, '');
    const stated = 'Fix the flaky login test (stated success)';
    const silent = 'Fix the flaky login test (nothing stated)';
    const spans = [
      ...calls('run-stated', stated, { 'episodic.outcome': 'success', 'episodic.verdict': 'the login test passes 50 times in a row' }),
      ...calls('run-silent', silent, {}),
    ];
    expect((await exportSpans(exporterFor(base, t.keys.write), spans)).code).toBe(0);
    const success = await endedRun(stated);
    expect(success).toMatchObject({ outcome_kind: 'success', outcome: { verdict: 'the login test passes 50 times in a row' } });
    expect((await endedRun(silent)).outcome_kind).toBe('unknown');
  });
});
