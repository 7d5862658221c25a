// Spans whose trace has no episode yet, per tenant, until the trace's root span arrives. An OTLP
// exporter sends a span when it ends, so a run's children usually come before its root: they wait
// here, within the limits of pending-limits.ts. The key is the span's identity, so a retried
// export keeps nothing twice.
import type pg from 'pg';
import { Params, queryRows, unnestAs } from '../db/sql.ts';
import type { PendingCandidate, PendingHeld } from './pending-limits.ts';
import type { OtlpSpan } from './spans.ts';

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const storable = (text: string): string => text.replace(UNSTORABLE, '\ufffd');

/**
 * The span as jsonb takes it. Its mapped fields passed the step limits (no NUL, valid Unicode); an
 * attribute the mapping never reads may still hold NUL or a lone surrogate, which would fail the
 * insert: it is kept with U+FFFD in their place.
 */
export function pendingJson(span: OtlpSpan): string {
  return JSON.stringify(span, (_key, value: unknown) => {
    if (typeof value === 'string') return storable(value);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const entries = Object.entries(value);
    return entries.some(([k]) => storable(k) !== k) ? Object.fromEntries(entries.map(([k, v]) => [storable(k), v])) : value;
  });
}

/** The spans and bytes the tenant keeps waiting. */
export async function pendingHeld(pool: pg.Pool, tenantId: string): Promise<PendingHeld> {
  const p = new Params();
  const [row] = await queryRows<{ n: string; bytes: string }>(
    pool,
    `SELECT count(*) AS n, coalesce(sum(bytes), 0) AS bytes FROM otlp_pending_spans WHERE tenant_id = ${p.add(tenantId)}`,
    p,
  );
  return { spans: Number(row?.n ?? 0), bytes: Number(row?.bytes ?? 0) };
}

/** Drops every span that came before `before` (its root never came within the expiry). */
export async function expirePending(pool: pg.Pool, before: Date): Promise<void> {
  const p = new Params();
  await pool.query(`DELETE FROM otlp_pending_spans WHERE received_at < ${p.add(before)}`, p.values);
}

/** Keeps the spans (a span already kept is left as it was). */
export async function keepPending(pool: pg.Pool, tenantId: string, spans: readonly PendingCandidate[]): Promise<void> {
  if (!spans.length) return;
  const p = new Params();
  await pool.query(
    `INSERT INTO otlp_pending_spans (tenant_id, trace_id, span_id, span, bytes)
     SELECT ${p.add(tenantId)}, u.trace_id, u.span_id, u.span, u.bytes
       FROM ${unnestAs(p, 'u', {
         trace_id: [spans.map((s) => s.span.traceId), 'text'],
         span_id: [spans.map((s) => s.span.spanId), 'text'],
         span: [spans.map((s) => s.json), 'jsonb'],
         bytes: [spans.map((s) => s.bytes), 'int4'],
       })}
     ON CONFLICT DO NOTHING`,
    p.values,
  );
}

/** The spans kept for these traces. */
export async function pendingOf(pool: pg.Pool, tenantId: string, traceIds: readonly string[]): Promise<OtlpSpan[]> {
  if (!traceIds.length) return [];
  const p = new Params();
  // span is jsonb (unknown in the row type): these are the spans keepPending stored.
  const rows = await queryRows<{ span: OtlpSpan }>(
    pool,
    `SELECT span FROM otlp_pending_spans WHERE tenant_id = ${p.add(tenantId)} AND trace_id = ANY(${p.add(traceIds)}::text[])`,
    p,
  );
  return rows.map((r) => r.span);
}

/**
 * Of these traces, those whose root span is kept (held for its model calls' log events: a root
 * waits nowhere else), in the order their roots started.
 */
export async function heldTracesOf(pool: pg.Pool, tenantId: string, traceIds: readonly string[]): Promise<string[]> {
  if (!traceIds.length) return [];
  const p = new Params();
  const rows = await queryRows<{ trace_id: string }>(
    pool,
    `SELECT trace_id FROM otlp_pending_spans
      WHERE tenant_id = ${p.add(tenantId)} AND trace_id = ANY(${p.add(traceIds)}::text[]) AND span->>'parentSpanId' IS NULL
      GROUP BY trace_id ORDER BY min((span->>'startMs')::float8), trace_id`,
    p,
  );
  return rows.map((r) => r.trace_id);
}

/** Forgets kept spans once their trace's episode holds them (or has refused them, in an answer). */
export async function forgetPending(pool: pg.Pool, tenantId: string, traceId: string, spanIds: readonly string[]): Promise<void> {
  if (!spanIds.length) return;
  const p = new Params();
  await pool.query(
    `DELETE FROM otlp_pending_spans WHERE tenant_id = ${p.add(tenantId)} AND trace_id = ${p.add(traceId)} AND span_id = ANY(${p.add(spanIds)}::text[])`,
    p.values,
  );
}
