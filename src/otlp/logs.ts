// OTLP logs in: the GenAI log events of model calls (gen_ai.system.message, gen_ai.user.message,
// gen_ai.assistant.message, gen_ai.tool.message, gen_ai.choice), as the official OpenTelemetry
// instrumentations send a call's messages. Each is kept under its span (otlp_span_events) and read
// as one of that span's events when the span is mapped (messages.ts). Other log records are
// accepted and not kept: Episodic is not a log store.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { Params, queryRows, unnestAs } from '../db/sql.ts';
import { type Attributes, anyValue, attributesOf, idOf, isTree, listOf, MalformedRequestError, nanosToMs, type OtlpSpan } from './spans.ts';

export interface SpanLogEvent {
  traceId: string;
  spanId: string;
  key: string;
  event: { name: string; timeMs: number; seq: number; attributes: Attributes };
}

const HEX_TRACE = /^[0-9a-f]{32}$/;
const HEX_SPAN = /^[0-9a-f]{16}$/;

/** The body as attributes: a map's own keys (the GenAI events' form), else {content: body}. */
function bodyAttributes(body: unknown): Attributes {
  const value = anyValue(body);
  if (value && typeof value === 'object' && !Array.isArray(value)) return value;
  return value == null ? {} : { content: value };
}

/** `seq`: the record's place in its request, which orders events written at the same instant. */
function eventOf(raw: unknown, seq: number): SpanLogEvent | null {
  if (!isTree(raw)) return null;
  const traceId = idOf(raw.traceId);
  const spanId = idOf(raw.spanId);
  const attributes = attributesOf(raw.attributes);
  const name = (typeof raw.eventName === 'string' && raw.eventName) || (typeof attributes['event.name'] === 'string' ? attributes['event.name'] : '');
  if (!name.startsWith('gen_ai.') || !HEX_TRACE.test(traceId) || !HEX_SPAN.test(spanId)) return null;
  const event = { name, timeMs: nanosToMs(raw.timeUnixNano ?? raw.observedTimeUnixNano), seq, attributes: { ...attributes, ...bodyAttributes(raw.body) } };
  const key = createHash('sha256').update(JSON.stringify(event)).digest('hex').slice(0, 32);
  return { traceId, spanId, key, event };
}

/** The GenAI events of a logs request, and how many records it held. */
export function spanEventsOf(request: unknown): { events: SpanLogEvent[]; total: number } {
  if (!isTree(request)) throw new MalformedRequestError('the body is not an ExportLogsServiceRequest object');
  const events: SpanLogEvent[] = [];
  let total = 0;
  for (const rl of listOf(request.resourceLogs)) {
    for (const sl of listOf(isTree(rl) ? rl.scopeLogs : [])) {
      for (const record of listOf(isTree(sl) ? sl.logRecords : [])) {
        const event = eventOf(record, total);
        total += 1;
        if (event) events.push(event);
      }
    }
  }
  return { events, total };
}

/** Keeps the events (a retried export keeps nothing twice). */
export async function keepSpanEvents(pool: pg.Pool, tenantId: string, events: readonly SpanLogEvent[]): Promise<void> {
  if (!events.length) return;
  const p = new Params();
  await pool.query(
    `INSERT INTO otlp_span_events (tenant_id, trace_id, span_id, event_key, event)
     SELECT ${p.add(tenantId)}, u.trace_id, u.span_id, u.event_key, u.event
       FROM ${unnestAs(p, 'u', {
         trace_id: [events.map((e) => e.traceId), 'text'],
         span_id: [events.map((e) => e.spanId), 'text'],
         event_key: [events.map((e) => e.key), 'text'],
         event: [events.map((e) => JSON.stringify(e.event)), 'jsonb'],
       })}
     ON CONFLICT DO NOTHING`,
    p.values,
  );
}

/** The spans with their kept log events added (in time order), for mapping. */
export async function withLogEvents(pool: pg.Pool, tenantId: string, traceIds: readonly string[], spans: OtlpSpan[]): Promise<OtlpSpan[]> {
  if (!spans.length || !traceIds.length) return spans;
  const p = new Params();
  // event is jsonb (unknown in the row type): what keepSpanEvents stored.
  const rows = await queryRows<{ span_id: string; event: SpanLogEvent['event'] }>(
    pool,
    `SELECT span_id, event FROM otlp_span_events WHERE tenant_id = ${p.add(tenantId)} AND trace_id = ANY(${p.add(traceIds)}::text[])`,
    p,
  );
  if (!rows.length) return spans;
  const bySpan = new Map<string, SpanLogEvent['event'][]>();
  for (const r of rows) bySpan.set(r.span_id, [...(bySpan.get(r.span_id) ?? []), r.event]);
  return spans.map((s) => {
    const logged = bySpan.get(s.spanId);
    if (!logged) return s;
    const sorted = [...logged].sort((x, y) => x.timeMs - y.timeMs || x.seq - y.seq);
    return { ...s, events: [...s.events, ...sorted.map((e) => ({ name: e.name, attributes: e.attributes }))] };
  });
}
