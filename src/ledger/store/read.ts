// Reads a tenant's ledger in seq order, as the exact values that were hashed.
import type pg from 'pg';
import type { LedgerHeadsRow } from '../../db/rows.ts';
import { Params, queryRows } from '../../db/sql.ts';
import { GENESIS_HASH, type StoredLedgerEvent } from '../format/hash.ts';

export interface LedgerFilter {
  episodeId?: string | null;
  workItemId?: string | null;
  types?: string[] | null;
}

/** Formats the timestamp in SQL exactly as it was hashed; parsing a Date per row cost more than the hashing. */
const ISO_CREATED_AT = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at`;

/** SELECT list of a ledger event, createdAt formatted exactly as hashed. */
export const EVENT_COLUMNS = `tenant_id, seq, type, episode_id, work_item_id, payload, prev_hash, hash, ${ISO_CREATED_AT}`;

/** A row of EVENT_COLUMNS as pg returns it (seq is a bigint, read as text). */
export interface LedgerEventSqlRow {
  tenant_id: string;
  seq: string | number;
  type: string;
  episode_id: string | null;
  work_item_id: string | null;
  payload: unknown;
  created_at: string;
  prev_hash: string;
  hash: string;
}

export function toEvent(r: LedgerEventSqlRow): StoredLedgerEvent {
  return {
    tenantId: r.tenant_id,
    seq: Number(r.seq),
    type: r.type,
    episodeId: r.episode_id,
    workItemId: r.work_item_id,
    payload: r.payload,
    createdAt: r.created_at,
    prevHash: r.prev_hash,
    hash: r.hash,
  };
}

/** Events with seq > afterSeq (and <= toSeq), oldest first, at most `limit`. */
export async function readEvents(
  db: pg.Pool | pg.PoolClient,
  tenantId: string,
  opts: { afterSeq: number; limit: number; toSeq?: number | null; filter?: LedgerFilter | null },
): Promise<StoredLedgerEvent[]> {
  const f = opts.filter ?? {};
  const p = new Params();
  const [tenant, after, to] = [p.add(tenantId), p.add(opts.afterSeq), p.add(opts.toSeq ?? null)];
  const [episode, workItem, types] = [p.add(f.episodeId ?? null), p.add(f.workItemId ?? null), p.add(f.types?.length ? f.types : null)];
  const sql = `SELECT ${EVENT_COLUMNS} FROM ledger_events
      WHERE tenant_id = ${tenant} AND seq > ${after} AND (${to}::bigint IS NULL OR seq <= ${to})
        AND (${episode}::uuid IS NULL OR episode_id = ${episode}) AND (${workItem}::uuid IS NULL OR work_item_id = ${workItem})
        AND (${types}::text[] IS NULL OR type = ANY(${types}))
      ORDER BY seq LIMIT ${p.add(opts.limit)}`;
  return (await queryRows<LedgerEventSqlRow>(db, sql, p)).map(toEvent);
}

/** The chain head; an empty ledger's is seq 0 with the genesis hash (docs/LEDGER.md §3). */
export async function readHead(db: pg.Pool | pg.PoolClient, tenantId: string): Promise<{ seq: number; hash: string }> {
  const p = new Params();
  const [head] = await queryRows<Pick<LedgerHeadsRow, 'seq' | 'hash'>>(db, `SELECT seq, hash FROM ledger_heads WHERE tenant_id = ${p.add(tenantId)}`, p);
  return head ? { seq: Number(head.seq), hash: head.hash } : { seq: 0, hash: GENESIS_HASH };
}
