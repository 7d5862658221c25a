// verifyLedger's re-hash of stored blobs (docs/LEDGER.md §7.5): a blob is content-addressed (its key
// is BLAKE3 of its UTF-8 bytes) and the steps that reference it hash that key (contentRefs, §3.2),
// so a blob whose bytes no longer hash to its key is step content changed, reported at the
// steps.logged event of the first step referencing it.
import type pg from 'pg';
import { Params, queryRows } from '../db/sql.ts';
import { hashBytes, toHex } from './hash.ts';

const PAGE = 200;
const utf8 = new TextEncoder();

export interface BlobFailure {
  seq: number;
  reason: string;
}

/** Blobs whose bytes no longer hash to their key, in key order. */
async function forgedBlobs(pool: pg.Pool, tenantId: string): Promise<{ checked: number; forged: string[] }> {
  let after = '';
  let checked = 0;
  const forged: string[] = [];
  for (;;) {
    const p = new Params();
    const rows = await queryRows<{ hash: string; content: string }>(
      pool,
      `SELECT hash, content FROM blobs WHERE tenant_id = ${p.add(tenantId)} AND hash > ${p.add(after)} ORDER BY hash LIMIT ${PAGE}`,
      p,
    );
    for (const r of rows) if (toHex(hashBytes(utf8.encode(r.content))) !== r.hash) forged.push(r.hash);
    checked += rows.length;
    after = rows.at(-1)?.hash ?? after;
    if (rows.length < PAGE) return { checked, forged };
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
