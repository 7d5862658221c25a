// Spans whose trace has no episode yet, per tenant, until the trace's root span arrives. An OTLP
// exporter sends a span when it ends, so a run's children usually come before its root: they wait
// here. The key is the span's identity, so a retried export keeps nothing twice.
import type pg from 'pg';
import type { OtlpSpan } from './spans.ts';

/** Spans one tenant may keep waiting for their root; more are refused (reported), not queued. */
export const MAX_PENDING_SPANS_PER_TENANT = 100_000;

export async function pendingCount(pool: pg.Pool, tenantId: string): Promise<number> {
  const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM otlp_pending_spans WHERE tenant_id = $1', [tenantId]);
  return Number(rows[0]?.n ?? 0);
}

/** Keeps the spans (a span already kept is left as it was). */
export async function keepPending(pool: pg.Pool, tenantId: string, spans: readonly OtlpSpan[]): Promise<void> {
  if (!spans.length) return;
  await pool.query(
    `INSERT INTO otlp_pending_spans (tenant_id, trace_id, span_id, span)
     SELECT $1, t, s, j FROM unnest($2::text[], $3::text[], $4::jsonb[]) AS u(t, s, j)
     ON CONFLICT DO NOTHING`,
    [tenantId, spans.map((s) => s.traceId), spans.map((s) => s.spanId), spans.map((s) => JSON.stringify(s))],
  );
}

/** The spans kept for these traces. */
export async function pendingOf(pool: pg.Pool, tenantId: string, traceIds: readonly string[]): Promise<OtlpSpan[]> {
  if (!traceIds.length) return [];
  const { rows } = await pool.query<{ span: OtlpSpan }>('SELECT span FROM otlp_pending_spans WHERE tenant_id = $1 AND trace_id = ANY($2::text[])', [
    tenantId,
    traceIds,
  ]);
  return rows.map((r) => r.span);
}

/** Forgets kept spans once their trace's episode holds them (or has refused them, in an answer). */
export async function forgetPending(pool: pg.Pool, tenantId: string, traceId: string, spanIds: readonly string[]): Promise<void> {
  if (!spanIds.length) return;
  await pool.query('DELETE FROM otlp_pending_spans WHERE tenant_id = $1 AND trace_id = $2 AND span_id = ANY($3::text[])', [tenantId, traceId, spanIds]);
}
