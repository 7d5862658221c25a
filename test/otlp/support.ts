// The real OpenTelemetry JS SDK as an instrumented agent would run it: spans recorded by a tracer
// provider, exported by the OTLP/HTTP exporters (protobuf and JSON) to the server under test.
import { type Context, context, type Span, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { must } from '../../src/core/must.ts';

export type Encoding = 'protobuf' | 'json';

/** The exporter's answer: code 0 (SUCCESS) or 1 (FAILED, with the error). */
export interface ExportResult {
  code: number;
  error?: Error;
}

export function exporterFor(base: string, token: string, encoding: Encoding = 'protobuf') {
  const options = { url: `${base}/v1/traces`, headers: { Authorization: `Bearer ${token}` }, timeoutMillis: 170_000 };
  return encoding === 'json' ? new JsonExporter(options) : new ProtoExporter(options);
}

/** Sends the spans in one export call; the exporter's own result (it retries 429/503 itself). */
export function exportSpans(exporter: ReturnType<typeof exporterFor>, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

export interface AgentRun {
  task: string;
  agent: string;
  tools: Array<{ name: string; args: object; result: string; error?: string }>;
  /** Model calls: input and output tokens. */
  chats?: number;
  outcome?: 'success' | 'failure';
}

/** Records the spans of agent runs (nothing is exported yet); each run is one trace. */
export function recordRuns(service: string, runs: AgentRun[], baseTime = Date.now() - 60_000): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer = provider.getTracer('agent-under-test');
  runs.forEach((run, r) => {
    let t = baseTime + r * 10;
    const at = () => (t += 1);
    const root = tracer.startSpan(`invoke_agent ${run.agent}`, {
      startTime: at(),
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': run.agent,
        'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: run.task }] }]),
      },
    });
    const ctx: Context = trace.setSpan(context.active(), root);
    for (let c = 0; c < (run.chats ?? 1); c += 1) {
      const chat = tracer.startSpan(
        'chat gpt-test',
        { startTime: at(), attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-test' } },
        ctx,
      );
      // The answer on the span, as the GenAI conventions' current attributes carry it (a call without
      // any message would be held for its log events: log-events.test.ts).
      chat.setAttributes({
        'gen_ai.usage.input_tokens': 100,
        'gen_ai.usage.output_tokens': 20,
        'gen_ai.response.model': 'gpt-test-1',
        'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: `Step ${c + 1} of ${run.task}` }] }]),
      });
      chat.end(at());
    }
    for (const tool of run.tools) {
      const span: Span = tracer.startSpan(
        `execute_tool ${tool.name}`,
        {
          startTime: at(),
          attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool.name, 'gen_ai.tool.call.arguments': JSON.stringify(tool.args) },
        },
        ctx,
      );
      if (tool.error) span.setStatus({ code: SpanStatusCode.ERROR, message: tool.error }).setAttribute('error.type', 'ToolError');
      else span.setAttribute('gen_ai.tool.call.result', tool.result);
      span.end(at());
    }
    if (run.outcome === 'failure') root.setStatus({ code: SpanStatusCode.ERROR, message: 'tests still fail' });
    else if (run.outcome === 'success') root.setStatus({ code: SpanStatusCode.OK });
    root.end(at());
  });
  return memory.getFinishedSpans();
}

export const isRootSpan = (s: ReadableSpan) => !s.parentSpanContext;
export const traceOf = (s: ReadableSpan) => s.spanContext().traceId;

/** Spans recorded by the SDK's tracer; `run` gets the tracer and the time to start at. */
export function record(run: (tracer: Tracer, at: () => number) => void): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'refusal-agent' }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  let time = Date.now() - 60_000;
  run(provider.getTracer('refusals'), () => (time += 1));
  return memory.getFinishedSpans();
}

/** A run: its root and `tools` tool spans below it; `change` alters a span before it ends. */
export function agentRun(tools: number, change: (span: Span, index: number | 'root') => void = () => undefined, rootStart?: number): ReadableSpan[] {
  return record((tracer, at) => {
    const root = tracer.startSpan('invoke_agent coder', {
      startTime: rootStart ?? at(),
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'episodic.outcome': 'success' },
    });
    const ctx = trace.setSpan(context.active(), root);
    for (let i = 0; i < tools; i += 1) {
      const start = rootStart ? rootStart + 1 + i : at();
      const span = tracer.startSpan(
        'execute_tool bash',
        { startTime: start, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'bash', 'gen_ai.tool.call.result': `ok ${i}` } },
        ctx,
      );
      change(span, i);
      span.end(start + 1);
    }
    change(root, 'root');
    root.setStatus({ code: SpanStatusCode.OK });
    root.end(rootStart ? rootStart + tools + 2 : at());
  });
}

export interface Answer {
  status: number;
  retryAfter: string | null;
  rejected: number;
  message: string;
}

/** POSTs the spans to `base`/v1/traces as the SDK's exporter encodes them; the status and the partialSuccess it answered. */
export async function postSpans(base: string, spans: ReadableSpan[], encoding: Encoding, token: string): Promise<Answer> {
  const serializer = encoding === 'json' ? JsonTraceSerializer : ProtobufTraceSerializer;
  const res = await fetch(`${base}/v1/traces`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': encoding === 'json' ? 'application/json' : 'application/x-protobuf' },
    body: Buffer.from(must(serializer.serializeRequest(spans))),
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (res.status !== 200)
    return { status: res.status, retryAfter: res.headers.get('retry-after'), rejected: 0, message: Buffer.from(bytes).toString('latin1') };
  const partial = serializer.deserializeResponse(bytes).partialSuccess;
  return { status: 200, retryAfter: null, rejected: Number(String(partial?.rejectedSpans ?? 0)), message: partial?.errorMessage ?? '' };
}
