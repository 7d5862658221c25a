// A blob's text for a GraphQL answer, read as slices: one statement whose rows are ~512 KiB of its
// text each, so pg parses and decodes one row at a time as it arrives, with the event loop free
// between rows. Read whole, a 7.9 MB blob arrived as one 8 MB protocol message that pg buffered and
// decoded in one ~10-15 ms stretch, during which no other request was served (issue 50). The value
// is detoasted once (the one-row subquery) and cut by bytes, each cut moved forward to the start
// of a character: PostgreSQL's substring of text walks the characters from the start for every
// slice (~250 ms for 8 MB), and bytea slices arrive as hex, twice their size to parse.
// A large blob whose answer is streamed (src/steps/streamed-text.ts) is read through a cursor over
// the same statement instead, a slice per FETCH as the answer is written: the server then holds
// one slice of it at a time, not the whole text (and its copies) until the answer has left.
import type pg from 'pg';
import { Params, queryRows } from '../db/sql.ts';

/** Bytes per row of the read, before the cut moves to the next character (at most 3 bytes further). */
const SLICE_BYTES = 512 * 1024;
/**
 * How long a streamed read keeps its connection at most: past it (a client that reads slowly) the
 * rest is fetched at once and the connection goes back to the pool.
 */
const STREAM_HOLD_MS = 10_000;

/** The statement whose rows are the slices of the blob's text, in order. */
function slicesStatement(tenantId: string, hash: string): { sql: string; p: Params } {
  const p = new Params();
  // A UTF-8 continuation byte is 10xxxxxx: a cut inside a character moves past its 1-3 continuation bytes.
  const cutAt = (g: string) => `${g} + CASE WHEN ${g} = 0 THEN 0
      WHEN get_byte(b.bytes, ${g}) & 192 <> 128 THEN 0 WHEN get_byte(b.bytes, ${g} + 1) & 192 <> 128 THEN 1
      WHEN get_byte(b.bytes, ${g} + 2) & 192 <> 128 THEN 2 ELSE 3 END`;
  // OFFSET 0 keeps the one-row subquery apart, so its bytes are converted once and every slice is cut from them.
  const sql = `SELECT c.at, convert_from(substring(b.bytes FROM c.cut + 1 FOR c.next_cut - c.cut), 'UTF8') AS slice
    FROM (SELECT convert_to(content, 'UTF8') AS bytes FROM blobs WHERE tenant_id = ${p.add(tenantId)} AND hash = ${p.add(hash)} OFFSET 0) b
    CROSS JOIN LATERAL (
      SELECT x.at, x.cut, coalesce(lead(x.cut) OVER (ORDER BY x.at), octet_length(b.bytes)) AS next_cut
      FROM (SELECT g AS at, ${cutAt('g')} AS cut FROM generate_series(0, greatest(octet_length(b.bytes) - 1, 0), ${p.add(SLICE_BYTES)}::int) AS g) x
    ) c`;
  return { sql, p };
}

/** The text of the tenant's blob `hash`, or null when it has none. */
export async function blobText(pool: pg.Pool, tenantId: string, hash: string): Promise<string | null> {
  const { sql, p } = slicesStatement(tenantId, hash);
  const rows = await queryRows<{ at: number; slice: string }>(pool, sql, p);
  if (!rows.length) return null;
  return rows
    .sort((a, b) => a.at - b.at)
    .map((r) => r.slice)
    .join('');
}

/**
 * The text of the tenant's blob `hash` in slices of ~512 KiB, each fetched from a cursor when the
 * caller asks for it (the value is detoasted once, when the first is fetched). The connection is
 * taken at the first slice and given back after the last, when the caller stops early, or after
 * STREAM_HOLD_MS. The caller knows the blob exists (its size was read): one that is gone by now
 * (forgotten meanwhile) throws, so a streamed answer breaks off rather than carry an empty text.
 */
export async function* blobTextSlices(pool: pg.Pool, tenantId: string, hash: string): AsyncGenerator<string> {
  const { sql, p } = slicesStatement(tenantId, hash);
  const client = await pool.connect();
  let given = false;
  /** The connection back to the pool, once; one that failed is dropped (its transaction may be open). */
  const giveBack = (err?: Error) => {
    if (given) return;
    given = true;
    client.release(err);
  };
  try {
    await client.query('BEGIN READ ONLY');
    await client.query(`DECLARE blob_slices NO SCROLL CURSOR FOR ${sql} ORDER BY c.at`, p.values);
    const until = Date.now() + STREAM_HOLD_MS;
    for (let first = true; ; first = false) {
      const late = Date.now() > until;
      const { rows } = await client.query<{ slice: string }>(late ? 'FETCH ALL FROM blob_slices' : 'FETCH 1 FROM blob_slices');
      if (first && !rows.length) throw new Error(`blob ${hash} is gone`);
      if (late || !rows.length) {
        await client.query('COMMIT');
        giveBack();
        for (const row of rows) yield row.slice;
        return;
      }
      yield (rows[0] as { slice: string }).slice;
    }
  } catch (err) {
    giveBack(err as Error);
    throw err;
  } finally {
    // The caller stopped early (its answer was cut off): the cursor's transaction is still open.
    if (!given) {
      const ended = await client.query('ROLLBACK').then(
        () => undefined,
        (err: Error) => err,
      );
      giveBack(ended);
    }
  }
}
