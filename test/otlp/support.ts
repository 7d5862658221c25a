// The real OpenTelemetry JS SDK as an instrumented agent would run it: spans recorded by a tracer
// provider, exported by the OTLP/HTTP exporters (protobuf and JSON) to the server under test.
import { type Context, context, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

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
      chat.setAttributes({ 'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.output_tokens': 20, 'gen_ai.response.model': 'gpt-test-1' });
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
