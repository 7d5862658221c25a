// The OpenTelemetry SDK as a user sets it up for an instrumentation library: a global tracer
// provider (and logger provider, for instrumentations that send messages as log events). Spans and
// log records are held in memory per run and then sent with the real OTLP/HTTP exporters
// (protobuf or JSON) to the server under test, so a test decides when a run's telemetry arrives.
import { context, propagation, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { logs } from '@opentelemetry/api-logs';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemoryLogRecordExporter, LoggerProvider, type ReadableLogRecord, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { type Encoding, type ExportResult, exporterFor, exportSpans } from '../support.ts';

/** The spans and log records of runs, not sent yet. */
export interface Recorded {
  spans: ReadableSpan[];
  records: ReadableLogRecord[];
}

export interface Sent {
  spans: ExportResult;
  logs: ExportResult | null;
  traceIds: string[];
}

/** Log records before spans (a logger provider flushed first), or after them (the tracer provider flushed first). */
export type SendOrder = 'logs_first' | 'spans_first';

export interface Telemetry {
  tracerProvider: NodeTracerProvider;
  loggerProvider: LoggerProvider;
  /** Sends what was recorded since the last call: log records first, then spans. */
  flush(base: string, token: string, encoding: Encoding): Promise<Sent>;
  /** What was recorded since the last call (of this or flush). */
  take(): Recorded;
}

/** Sends recorded runs with the real OTLP/HTTP exporters, in `order` (again for a retry). */
export async function send(base: string, token: string, encoding: Encoding, recorded: Recorded, order: SendOrder = 'logs_first'): Promise<Sent> {
  const logOptions = { url: `${base}/v1/logs`, headers: { Authorization: `Bearer ${token}` } };
  const logExporter = encoding === 'json' ? new JsonLogExporter(logOptions) : new ProtoLogExporter(logOptions);
  const sendLogs = async () => (recorded.records.length ? await new Promise<ExportResult>((resolve) => logExporter.export(recorded.records, resolve)) : null);
  const sendSpans = () => exportSpans(exporterFor(base, token, encoding), recorded.spans);
  const traceIds = [...new Set(recorded.spans.map((s) => s.spanContext().traceId))];
  if (order === 'logs_first') {
    const logs = await sendLogs();
    return { logs, spans: await sendSpans(), traceIds };
  }
  const spans = await sendSpans();
  return { spans, logs: await sendLogs(), traceIds };
}

export function setUpTelemetry(service: string): Telemetry {
  const resource = resourceFromAttributes({ 'service.name': service });
  const spans = new InMemorySpanExporter();
  const records = new InMemoryLogRecordExporter();
  const tracerProvider = new NodeTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(spans)] });
  // Test files share a worker process, and the API keeps the first provider registered: drop the
  // previous file's globals, or this file's root spans would go to that file's exporter.
  trace.disable();
  context.disable();
  propagation.disable();
  tracerProvider.register();
  const loggerProvider = new LoggerProvider({ resource, processors: [new SimpleLogRecordProcessor({ exporter: records })] });
  logs.disable();
  logs.setGlobalLoggerProvider(loggerProvider);
  const take = (): Recorded => {
    const taken = { spans: spans.getFinishedSpans(), records: records.getFinishedLogRecords() };
    spans.reset();
    records.reset();
    return taken;
  };
  return { tracerProvider, loggerProvider, take, flush: (base, token, encoding) => send(base, token, encoding, take()) };
}

const tracer = () => trace.getTracer('agent-of-the-user');

/** The user's own agent span around a run (what "with a user root span" means in the fixtures), with any attributes of the user's (a session.id). */
export async function inAgentSpan<T>(withRoot: boolean, work: () => Promise<T>, attributes: Record<string, string> = {}): Promise<T> {
  if (!withRoot) return work();
  return tracer().startActiveSpan(
    'invoke_agent coder',
    { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'coder', ...attributes } },
    async (span) => {
      try {
        return await work();
      } finally {
        span.end();
      }
    },
  );
}

/** A tool the user's agent runs, in an execute_tool span of its own when the user writes spans. A tool takes time (a few ms here), so its span and the next call's do not start in the same millisecond. */
export async function inToolSpan(withRoot: boolean, name: string, args: object, work: () => string): Promise<string> {
  const span: Span | null = withRoot
    ? tracer().startSpan(
        `execute_tool ${name}`,
        { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.call.arguments': JSON.stringify(args) } },
        context.active(),
      )
    : null;
  await new Promise((resolve) => setTimeout(resolve, 3));
  const result = work();
  span?.setAttribute('gen_ai.tool.call.result', result).setStatus({ code: SpanStatusCode.OK });
  span?.end();
  await new Promise((resolve) => setTimeout(resolve, 3));
  return result;
}
