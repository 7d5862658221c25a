// Retrieval receipts as the monitor shows them: what a retrieval served, and which completions
// credited it (their retrieval.feedback ledger events), tenant-scoped. Reads only.
import type pg from 'pg';
import { Params, queryRows } from '../db/sql.ts';

export interface ReceiptRow {
  id: string;
  kind: string;
  queryHash: string;
  resultsHash: string;
  episodeIds: string[];
  warningIds: string[];
  patternIds: string[];
  /** The experiment arm that served it (src/experiments); null outside an experiment. */
  arm: string | null;
  experimentId: string | null;
  createdAt: Date;
}

/** One retrieval.feedback event: a completion that used retrievals, and the credit it moved. */
export interface RetrievalCredit {
  seq: string;
  episodeId: string | null;
  retrievalIds: string[];
  /** +1 success, -1 failure, in between for partial. */
  target: number | null;
  outcome: string | null;
  episodesCredited: number | null;
  patternsCredited: number | null;
  createdAt: Date;
}

export const MAX_RECEIPTS_PAGE = 100;

const RECEIPT_COLUMNS = `id, kind, query_hash AS "queryHash", results_hash AS "resultsHash", episode_ids AS "episodeIds",
  warning_ids AS "warningIds", pattern_ids AS "patternIds", arm, experiment_id AS "experimentId", created_at AS "createdAt"`;

/** Newest first; `before` is the createdAt of the last receipt of the previous page. */
export async function listReceipts(pool: pg.Pool, tenantId: string, first: number, before: Date | null): Promise<ReceiptRow[]> {
  const p = new Params();
  const after = p.add(before);
  const sql = `SELECT ${RECEIPT_COLUMNS} FROM retrievals WHERE tenant_id = ${p.add(tenantId)} AND (${after}::timestamptz IS NULL OR created_at < ${after})
      ORDER BY created_at DESC, id DESC LIMIT ${p.add(first)}`;
  return queryRows<ReceiptRow>(pool, sql, p);
}

export async function findReceipt(pool: pg.Pool, tenantId: string, id: string): Promise<ReceiptRow | null> {
  const p = new Params();
  const sql = `SELECT ${RECEIPT_COLUMNS} FROM retrievals WHERE tenant_id = ${p.add(tenantId)} AND id = ${p.add(id)}`;
  return (await queryRows<ReceiptRow>(pool, sql, p))[0] ?? null;
}

interface FeedbackEvent {
  seq: string;
  episode_id: string | null;
  payload: { retrievalIds?: string[]; target?: number; outcome?: string; episodes?: number; patterns?: number } | null;
  created_at: Date;
}

const toCredit = (e: FeedbackEvent): RetrievalCredit => ({
  seq: String(e.seq),
  episodeId: e.episode_id,
  retrievalIds: e.payload?.retrievalIds ?? [],
  target: e.payload?.target ?? null,
  outcome: e.payload?.outcome ?? null,
  episodesCredited: e.payload?.episodes ?? null,
  patternsCredited: e.payload?.patterns ?? null,
  createdAt: e.created_at,
});

/** The completions that credited this retrieval (GIN index on the feedback events' payload). */
export async function creditsOfRetrieval(pool: pg.Pool, tenantId: string, retrievalId: string): Promise<RetrievalCredit[]> {
  const p = new Params();
  const sql = `SELECT seq, episode_id, payload, created_at FROM ledger_events
      WHERE tenant_id = ${p.add(tenantId)} AND type = 'retrieval.feedback' AND payload @> jsonb_build_object('retrievalIds', jsonb_build_array(${p.add(retrievalId)}::text))
      ORDER BY seq`;
  return (await queryRows<FeedbackEvent>(pool, sql, p)).map(toCredit);
}

/** The retrievals an episode's completion used, with the credit it gave them. */
export async function creditsOfEpisode(pool: pg.Pool, tenantId: string, episodeId: string): Promise<RetrievalCredit[]> {
  const p = new Params();
  const sql = `SELECT seq, episode_id, payload, created_at FROM ledger_events
      WHERE tenant_id = ${p.add(tenantId)} AND episode_id = ${p.add(episodeId)} AND type = 'retrieval.feedback' ORDER BY seq`;
  return (await queryRows<FeedbackEvent>(pool, sql, p)).map(toCredit);
}

/** The rows with these ids, in the order of `ids` (a receipt lists what it served best first). */
export function inOrder<T extends { id: string }>(ids: readonly string[], rows: readonly T[]): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
