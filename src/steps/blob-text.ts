// A blob's text for a GraphQL answer, read as slices of its UTF-8 bytes: one statement whose rows
// are 512 KiB each (the value detoasted once and sliced by bytes: PostgreSQL's substring of text
// walks the characters from the start for every slice, ~250 ms for 8 MB), each row parsed as it
// arrives and decoded with the event loop free between slices. Read whole, a 7.9 MB blob arrived
// as one 8 MB protocol message that pg buffered and decoded in one ~10 ms stretch, during which no
// other request was served (issue 50). A bytea arrives as hex, twice its size: more work in all,
// in stretches of ~1.5 ms.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type pg from 'pg';
import { Params, queryRows } from '../db/sql.ts';

/** Bytes per row of the read. */
const SLICE_BYTES = 512 * 1024;

/** The text of the tenant's blob `hash`, or null when it has none. */
export async function blobText(pool: pg.Pool, tenantId: string, hash: string): Promise<string | null> {
  const p = new Params();
  const size = `${p.add(SLICE_BYTES)}::int`;
  // OFFSET 0 keeps the subquery (one row) apart, so its bytes are converted once and each slice is cut from them.
  const sql = `SELECT g AS at, substring(b.bytes FROM g FOR ${size}) AS slice
    FROM (SELECT convert_to(content, 'UTF8') AS bytes FROM blobs WHERE tenant_id = ${p.add(tenantId)} AND hash = ${p.add(hash)} OFFSET 0) b
    CROSS JOIN generate_series(1, greatest(octet_length(b.bytes), 1), ${size}) AS g`;
  const rows = await queryRows<{ at: number; slice: Buffer }>(pool, sql, p);
  if (!rows.length) return null;
  rows.sort((a, b) => a.at - b.at);
  // A slice may end inside a character: the decoder keeps its first bytes for the next slice.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let text = '';
  for (const row of rows) {
    text += decoder.decode(row.slice, { stream: true });
    await nextTurn();
  }
  return text + decoder.decode();
}
