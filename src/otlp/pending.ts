// Spans whose trace has no episode yet, per tenant, until the trace's root span arrives. An OTLP
// exporter sends a span when it ends, so a run's children usually come before its root: they wait
// here. The key is the span's identity, so a retried export keeps nothing twice.
import type pg from 'pg';
import { Params, queryRows, unnestAs } from '../db/sql.ts';
import type { OtlpSpan } from './spans.ts';

/** Spans one tenant may keep waiting for their root; more are refused (reported), not queued. */
export const MAX_PENDING_SPANS_PER_TENANT = 100_000;

export async function pendingCount(pool: pg.Pool, tenantId: string): Promise<number> {
  const p = new Params();
  const [row] = await queryRows<{ n: string }>(pool, `SELECT count(*) AS n FROM otlp_pending_spans WHERE tenant_id = ${p.add(tenantId)}`, p);
  return Number(row?.n ?? 0);
}

/** Keeps the spans (a span already kept is left as it was). */
export async function keepPending(pool: pg.Pool, tenantId: string, spans: readonly OtlpSpan[]): Promise<void> {
  if (!spans.length) return;
  const p = new Params();
  await pool.query(
    `INSERT INTO otlp_pending_spans (tenant_id, trace_id, span_id, span)
     SELECT ${p.add(tenantId)}, u.trace_id, u.span_id, u.span
       FROM ${unnestAs(p, 'u', {
         trace_id: [spans.map((s) => s.traceId), 'text'],
         span_id: [spans.map((s) => s.spanId), 'text'],
         span: [spans.map((s) => JSON.stringify(s)), 'jsonb'],
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

/** Forgets kept spans once their trace's episode holds them (or has refused them, in an answer). */
export async function forgetPending(pool: pg.Pool, tenantId: string, traceId: string, spanIds: readonly string[]): Promise<void> {
  if (!spanIds.length) return;
  const p = new Params();
  await pool.query(
    `DELETE FROM otlp_pending_spans WHERE tenant_id = ${p.add(tenantId)} AND trace_id = ${p.add(traceId)} AND span_id = ANY(${p.add(spanIds)}::text[])`,
    p.values,
  );
}
