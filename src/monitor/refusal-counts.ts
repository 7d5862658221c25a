// Spans refused by the OTLP door, counted per tenant and reason with the latest one named, for the
// monitor: an exporter logs a 200 with partialSuccess only at debug level, so a user would not see
// them otherwise. One upsert per reason in a request that refused spans; nothing when none were.
import type pg from 'pg';
import { Params, queryRows } from '../db/sql.ts';

export interface RefusedSpan {
  /** A reason of src/http/span-refusals.ts (the label of /metrics' episodic_otlp_spans_refused_total). */
  kind: string;
  /** Empty when the span could not be read far enough to have one. */
  traceId: string;
  spanId: string;
  reason: string;
}

export interface RefusalCount {
  kind: string;
  count: number;
  lastAt: Date;
  lastTraceId: string;
  lastSpanId: string;
  lastReason: string;
}

/** Stored reasons are cut to this many characters (the answer's partialSuccess has them whole). */
const REASON_CHARS = 1000;

export async function countRefusals(pool: pg.Pool, tenantId: string, refused: readonly RefusedSpan[]): Promise<void> {
  if (!refused.length) return;
  const byKind = new Map<string, { count: number; last: RefusedSpan }>();
  for (const r of refused) byKind.set(r.kind, { count: (byKind.get(r.kind)?.count ?? 0) + 1, last: r });
  const p = new Params();
  const rows = [...byKind].map(
    ([kind, { count, last }]) =>
      `(${p.add(tenantId)}::uuid, ${p.add(kind)}, ${p.add(count)}::bigint, ${p.add(last.traceId)}, ${p.add(last.spanId)}, ${p.add(last.reason.slice(0, REASON_CHARS))})`,
  );
  await pool.query(
    `INSERT INTO otlp_refusal_counts (tenant_id, kind, count, last_trace_id, last_span_id, last_reason) VALUES ${rows.join(', ')}
     ON CONFLICT (tenant_id, kind) DO UPDATE SET count = otlp_refusal_counts.count + excluded.count, last_at = now(),
        last_trace_id = excluded.last_trace_id, last_span_id = excluded.last_span_id, last_reason = excluded.last_reason`,
    p.values,
  );
}

export async function refusalCountsOf(pool: pg.Pool, tenantId: string): Promise<RefusalCount[]> {
  const p = new Params();
  const rows = await queryRows<{ kind: string; count: string; last_at: Date; last_trace_id: string; last_span_id: string; last_reason: string }>(
    pool,
    `SELECT kind, count::text, last_at, last_trace_id, last_span_id, last_reason FROM otlp_refusal_counts WHERE tenant_id = ${p.add(tenantId)} ORDER BY last_at DESC`,
    p,
  );
  return rows.map((r) => ({
    kind: r.kind,
    count: Number(r.count),
    lastAt: r.last_at,
    lastTraceId: r.last_trace_id,
    lastSpanId: r.last_span_id,
    lastReason: r.last_reason,
  }));
}
