// verifyLedger's re-hash of stored blobs (docs/LEDGER.md §7.5): a blob is content-addressed (its key
// is BLAKE3 of its UTF-8 bytes) and the steps that reference it hash that key (contentRefs, §3.2),
// so a blob whose bytes no longer hash to its key is step content changed, reported at the
// steps.logged event of the first step referencing it.
import type pg from 'pg';
import { Params, queryRows } from '../../db/sql.ts';
import { hashBytes, toHex } from '../format/hash.ts';

const PAGE = 1_000;
/** Blob bytes held at once: a blob is up to 16 MB, so contents are read in batches of about this much. */
const BATCH_BYTES = 32 * 1024 * 1024;
const utf8 = new TextEncoder();

export interface BlobFailure {
  seq: number;
  reason: string;
}

/** Keys in batches whose sizes add up to about BATCH_BYTES (a larger blob alone). */
function batches(keys: Array<{ hash: string; size_bytes: number }>): string[][] {
  const out: string[][] = [[]];
  let bytes = 0;
  for (const k of keys) {
    if (bytes + k.size_bytes > BATCH_BYTES && (out.at(-1) as string[]).length) {
      out.push([]);
      bytes = 0;
    }
    (out.at(-1) as string[]).push(k.hash);
    bytes += k.size_bytes;
  }
  return out;
}

/** Hashes whose blob no longer hashes to its key, of one batch. */
async function forgedIn(pool: pg.Pool, tenantId: string, hashes: string[]): Promise<string[]> {
  const p = new Params();
  const sql = `SELECT hash, content FROM blobs WHERE tenant_id = ${p.add(tenantId)} AND hash = ANY(${p.add(hashes)}::text[])`;
  const rows = await queryRows<{ hash: string; content: string }>(pool, sql, p);
  return rows.filter((r) => toHex(hashBytes(utf8.encode(r.content))) !== r.hash).map((r) => r.hash);
}

/** Blobs whose bytes no longer hash to their key, in key order. */
async function forgedBlobs(pool: pg.Pool, tenantId: string): Promise<{ checked: number; forged: string[] }> {
  let after = '';
  let checked = 0;
  const forged: string[] = [];
  for (;;) {
    const p = new Params();
    const keys = await queryRows<{ hash: string; size_bytes: number }>(
      pool,
      `SELECT hash, size_bytes FROM blobs WHERE tenant_id = ${p.add(tenantId)} AND hash > ${p.add(after)} ORDER BY hash LIMIT ${PAGE}`,
      p,
    );
    for (const batch of batches(keys)) if (batch.length) forged.push(...(await forgedIn(pool, tenantId, batch)));
    checked += keys.length;
    after = keys.at(-1)?.hash ?? after;
    if (keys.length < PAGE) return { checked, forged: forged.sort() };
  }
}

/** The steps.logged event covering the first step that references the blob (a step row's content_refs). */
async function seqReferencing(pool: pg.Pool, tenantId: string, hash: string): Promise<number | undefined> {
  const p = new Params();
  const [row] = await queryRows<{ seq: string }>(
    pool,
    `SELECT e.seq FROM steps s
       JOIN ledger_events e ON e.tenant_id = s.tenant_id AND e.episode_id = s.episode_id AND e.type = 'steps.logged'
        AND e.payload->'steps' @> jsonb_build_array(jsonb_build_object('n', s.step_number))
      WHERE s.tenant_id = ${p.add(tenantId)} AND s.content_refs IS NOT NULL
        AND EXISTS (SELECT 1 FROM jsonb_each(s.content_refs) r WHERE r.value->>'hash' = ${p.add(hash)})
      ORDER BY e.seq LIMIT 1`,
    p,
  );
  return row ? Number(row.seq) : undefined;
}

/** Re-hashes every blob of the tenant; the earliest referencing event of a forged one. */
export async function checkBlobs(pool: pg.Pool, tenantId: string, end: number): Promise<{ checked: number; failure?: BlobFailure }> {
  const { checked, forged } = await forgedBlobs(pool, tenantId);
  const failures: BlobFailure[] = [];
  for (const hash of forged) {
    const seq = (await seqReferencing(pool, tenantId, hash)) ?? end + 1;
    failures.push({ seq, reason: `blob ${hash} no longer hashes to its key: the step content it holds was changed` });
  }
  return { checked, ...(failures.length ? { failure: failures.sort((a, b) => a.seq - b.seq)[0] } : {}) };
}
