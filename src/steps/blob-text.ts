// A blob's content read from PostgreSQL in slices, one statement per slice, for every door that
// reads it: GraphQL answers (read whole, or streamed into a sliced answer as it is written:
// src/steps/streamed-text.ts) and GET /blobs/<hash> (src/http/blob-download.ts). No connection is
// held between slices, so a slow client holds none, and the server holds about one slice of a read
// at a time. Each slice is ~1 MiB of the value's UTF-8 bytes, cut at character starts and sent as
// text: PostgreSQL's substring of text walks the characters from the start for every slice (~250 ms
// for 8 MB), and bytea arrives as hex, twice its size to parse (~2x node's CPU per slice). The cost:
// each statement detoasts the whole value again (an 8 MB blob's backend CPU ~45 ms in 8 statements
// against ~15 ms read once; storing blobs as bytea with STORAGE EXTERNAL would make a slice cheap).
import type pg from 'pg';
import { Params, queryRows } from '../db/sql.ts';

/** Bytes per slice, before its cuts move to character starts (at most 3 bytes each way). */
const SLICE_BYTES = 1024 * 1024;

/** The blob was forgotten between the read of its size and of its bytes (or never was). */
class BlobGoneError extends Error {
  constructor(hash: string) {
    super(`blob ${hash} is gone`);
  }
}

/** A slice: the text of the value's bytes [start, next), whole characters; `size` is the value's bytes. */
interface Slice {
  start: number;
  next: number;
  size: number;
  text: string;
}

/**
 * The statement of one slice: from the character start at or before byte `at` to the one at or
 * after `at + bytes` (or the end). The value is converted once per statement (the one-row subquery).
 */
function sliceStatement(tenantId: string, hash: string, at: number, bytes: number): { sql: string; p: Params } {
  const p = new Params();
  const len = 'octet_length(b.bytes)';
  // A UTF-8 continuation byte is 10xxxxxx: a cut inside a character moves past (or back over) its 1-3 continuation bytes.
  const isLead = (g: string) => `get_byte(b.bytes, ${g}) & 192 <> 128`;
  // One test per WHEN: CASE tests them in order, where an OR may test its get_byte first (past the end of an empty value).
  const back = (g: string) => `${g} - CASE WHEN ${g} >= ${len} THEN 0 WHEN ${isLead(g)} THEN 0
      WHEN ${isLead(`${g} - 1`)} THEN 1 WHEN ${isLead(`${g} - 2`)} THEN 2 ELSE 3 END`;
  const forward = (g: string) => `${g} + CASE WHEN ${isLead(g)} THEN 0
      WHEN ${g} + 1 >= ${len} THEN 1 WHEN ${isLead(`${g} + 1`)} THEN 1
      WHEN ${g} + 2 >= ${len} THEN 2 WHEN ${isLead(`${g} + 2`)} THEN 2 ELSE 3 END`;
  const value = `SELECT convert_to(content, 'UTF8') AS bytes FROM blobs WHERE tenant_id = ${p.add(tenantId)} AND hash = ${p.add(hash)} OFFSET 0`;
  const from = `${p.add(at)}::int`;
  const to = `(${from} + ${p.add(bytes)}::int)`;
  // OFFSET 0 keeps the one-row subquery apart, so its bytes are converted once and both cuts read them.
  const sql = `SELECT x.start, x.next, ${len} AS size, convert_from(substring(b.bytes FROM x.start + 1 FOR x.next - x.start), 'UTF8') AS text
    FROM (${value}) b
    CROSS JOIN LATERAL (SELECT ${back(from)} AS start, CASE WHEN ${to} >= ${len} THEN ${len} ELSE ${forward(to)} END AS next) x`;
  return { sql, p };
}

/**
 * The slices of the tenant's blob `hash` covering bytes [from, end) (end past the value: to its
 * end), one statement each when the caller asks for it; at least one, so an empty blob is read (as
 * one empty slice) and a missing one throws BlobGoneError. `beforeSlice` waits for a slice's turn
 * given its bytes.
 */
async function* blobSlices(
  pool: pg.Pool,
  tenantId: string,
  hash: string,
  from = 0,
  end = Number.POSITIVE_INFINITY,
  beforeSlice?: (bytes: number) => Promise<void>,
): AsyncGenerator<Slice> {
  let at = from;
  let size = end;
  do {
    const bytes = Math.min(SLICE_BYTES, end - at);
    await beforeSlice?.(bytes);
    const { sql, p } = sliceStatement(tenantId, hash, at, bytes);
    const slice = (await queryRows<Slice>(pool, sql, p))[0];
    if (!slice) throw new BlobGoneError(hash);
    yield slice;
    at = slice.next;
    size = slice.size;
  } while (at < Math.min(end, size));
}

/** The text of the tenant's blob `hash`, or null when it has none. */
export async function blobText(pool: pg.Pool, tenantId: string, hash: string): Promise<string | null> {
  const texts: string[] = [];
  try {
    for await (const slice of blobSlices(pool, tenantId, hash)) texts.push(slice.text);
  } catch (err) {
    if (err instanceof BlobGoneError) return null;
    throw err;
  }
  return texts.join('');
}

/**
 * The text of the tenant's blob `hash` in slices of ~1 MiB, each read when the caller asks for it.
 * The caller knows the blob exists (its size was read): one that is gone by now (forgotten
 * meanwhile) throws, so a streamed answer breaks off rather than carry an empty or partial text.
 */
export async function* blobTextSlices(pool: pg.Pool, tenantId: string, hash: string): AsyncGenerator<string> {
  for await (const slice of blobSlices(pool, tenantId, hash)) if (slice.text) yield slice.text;
}

/**
 * The bytes [start, end] (inclusive) of the tenant's blob `hash` in slices of ~1 MiB, each read when
 * the caller asks for it after `beforeSlice` (given its bytes); a range may start or end inside a
 * character (its slice's text is cut to the range as UTF-8).
 */
export async function* blobBytes(
  pool: pg.Pool,
  tenantId: string,
  hash: string,
  start: number,
  end: number,
  beforeSlice: (bytes: number) => Promise<void>,
): AsyncGenerator<Buffer> {
  for await (const slice of blobSlices(pool, tenantId, hash, start, end + 1, beforeSlice)) {
    const bytes = Buffer.from(slice.text, 'utf8');
    yield bytes.subarray(Math.max(0, start - slice.start), Math.min(bytes.length, end + 1 - slice.start));
  }
}
