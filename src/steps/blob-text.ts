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

/**
 * The statement whose rows are the slices of the blob's text, each with its byte offset `at`. Each
 * row is cut on its own (no window over the rows, no sort), so a cursor's FETCH computes only the
 * rows it returns: generate_series yields them in order, and blobTextSlices checks it.
 */
function slicesStatement(tenantId: string, hash: string): { sql: string; p: Params } {
  const p = new Params();
  const len = 'octet_length(b.bytes)';
  // A UTF-8 continuation byte is 10xxxxxx: a cut inside a character moves past its 1-3 continuation bytes (never past the end).
  const cutAt = (g: string) => `${g} + CASE WHEN ${g} = 0 THEN 0
      WHEN get_byte(b.bytes, ${g}) & 192 <> 128 THEN 0
      WHEN ${g} + 1 >= ${len} OR get_byte(b.bytes, ${g} + 1) & 192 <> 128 THEN 1
      WHEN ${g} + 2 >= ${len} OR get_byte(b.bytes, ${g} + 2) & 192 <> 128 THEN 2 ELSE 3 END`;
  const slice = p.add(SLICE_BYTES);
  // OFFSET 0 keeps the one-row subquery apart, so its bytes are converted once and every slice is cut from them.
  const sql = `SELECT x.at, convert_from(substring(b.bytes FROM x.cut + 1 FOR x.next_cut - x.cut), 'UTF8') AS slice
    FROM (SELECT convert_to(content, 'UTF8') AS bytes FROM blobs WHERE tenant_id = ${p.add(tenantId)} AND hash = ${p.add(hash)} OFFSET 0) b
    CROSS JOIN LATERAL (
      SELECT g AS at, ${cutAt('g')} AS cut,
        CASE WHEN g + ${slice}::int >= ${len} THEN ${len} ELSE ${cutAt(`(g + ${slice}::int)`)} END AS next_cut
      FROM generate_series(0, greatest(${len} - 1, 0), ${slice}::int) AS g
    ) x`;
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
    await client.query(`DECLARE blob_slices NO SCROLL CURSOR FOR ${sql}`, p.values);
    const until = Date.now() + STREAM_HOLD_MS;
    let next = 0;
    /** The slice of a row, which must be the next one (the statement has no ORDER BY: its rows come in generate_series' order). */
    const inOrder = (row: { at: number; slice: string }) => {
      if (row.at !== next) throw new Error(`blob ${hash}: slice at byte ${row.at} came where ${next} was due`);
      next += SLICE_BYTES;
      return row.slice;
    };
    for (;;) {
      const late = Date.now() > until;
      const { rows } = await client.query<{ at: number; slice: string }>(late ? 'FETCH ALL FROM blob_slices' : 'FETCH 1 FROM blob_slices');
      if (next === 0 && !rows.length) throw new Error(`blob ${hash} is gone`);
      if (late || !rows.length) {
        await client.query('COMMIT');
        giveBack();
        for (const row of rows) yield inOrder(row);
        return;
      }
      yield inOrder(rows[0] as { at: number; slice: string });
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
