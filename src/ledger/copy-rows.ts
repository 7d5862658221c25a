// One-column query results kept as bytes, for verifyLedger's reads (verify-read.ts): the query runs
// as COPY (...) TO STDOUT (FORMAT binary), whose data the driver hands over as raw chunks, copied
// into one byte array. A json column's binary form is its UTF-8 text, so each row is a JSON text
// that never becomes a JS string: no per-row decode, string, row array, or re-encode (together the
// largest CPU cost of a verification), and nothing on the JS heap that scavenges would copy.
// Each COPY row may hold several JSON texts joined by newlines (string_agg in the query): the
// driver makes a Buffer, a message object and an event per COPY row, which cost more than the
// row's canonical form when a row is one small JSON text. JSON text as PostgreSQL prints it holds
// no raw newline (strings escape it), so the newline separates texts unambiguously.
// COPY takes no bind parameters: callers put values in the text through sqlUuid and sqlInteger,
// which accept only what they name, so nothing else can reach the SQL.
import { Buffer, isUtf8 } from 'node:buffer';
import type pg from 'pg';
import { isUuid } from '../core/ids.ts';

/** Rows of UTF-8 JSON text in one byte array: row i is bytes[starts[i]..ends[i]). */
export interface ByteRows {
  bytes: Uint8Array;
  starts: number[];
  ends: number[];
  /** True when every row is known to be well-formed UTF-8 (checked once per COPY row, not per text). */
  wellFormed?: boolean;
}

/** Rows as copyRows returns them: row i came from the COPY row numbered groups[i] (from 0, NULL ones counted). */
export interface GroupedRows extends ByteRows {
  groups: number[];
}

export const rowCount = (rows: ByteRows): number => rows.starts.length;

/** A uuid as SQL text; throws on anything else. */
export function sqlUuid(value: string): string {
  if (!isUuid(value)) throw new TypeError(`not a uuid: ${JSON.stringify(value)}`);
  return `'${value}'`;
}

/** An integer as SQL text; throws on anything else. */
export function sqlInteger(value: number): string {
  if (!Number.isSafeInteger(value)) throw new TypeError(`not an integer: ${value}`);
  return String(value);
}

/** Collects a COPY's data chunks (pg's Submittable protocol, as pg-copy-streams implements it). */
class CopyOut {
  bytes: Uint8Array;
  used = 0;
  readonly done: Promise<void>;
  private settle: { resolve: () => void; reject: (error: Error) => void } | undefined;
  private failed: Error | undefined;

  constructor(
    readonly text: string,
    sizeHint: number,
  ) {
    this.bytes = Buffer.allocUnsafeSlow(sizeHint); // not zeroed: only what is copied in is read
    this.done = new Promise((resolve, reject) => void (this.settle = { resolve, reject }));
  }

  submit(connection: { query: (text: string) => void }): void {
    connection.query(this.text);
  }

  /** A chunk of the driver's buffer, reused once this returns: copied at once. */
  handleCopyData(message: { chunk: Uint8Array }): void {
    const { chunk } = message;
    if (this.used + chunk.length > this.bytes.length) {
      const grown = Buffer.allocUnsafeSlow((this.used + chunk.length) * 2);
      grown.set(this.bytes.subarray(0, this.used));
      this.bytes = grown;
    }
    this.bytes.set(chunk, this.used);
    this.used += chunk.length;
  }

  handleCommandComplete(): void {}

  handleError(error: Error): void {
    this.failed = error;
    this.settle?.reject(error);
  }

  handleReadyForQuery(): void {
    if (!this.failed) this.settle?.resolve();
  }
}

const int16 = (b: Uint8Array, p: number): number => (((b[p] as number) << 24) | ((b[p + 1] as number) << 16)) >> 16;
const int32 = (b: Uint8Array, p: number): number =>
  ((b[p] as number) << 24) | ((b[p + 1] as number) << 16) | ((b[p + 2] as number) << 8) | (b[p + 3] as number);
/** "PGCOPY\n\377\r\n\0", then 32-bit flags and header extension length. */
const SIGNATURE = [80, 71, 67, 79, 80, 89, 10, 255, 13, 10, 0];
const NEWLINE = 10;

/**
 * The rows of COPY's binary format: a header, then per row a field count (1 here), a length (-1
 * for NULL, skipped) and the value, newline-separated JSON texts; -1 ends.
 */
function rowsOf(bytes: Uint8Array, used: number): GroupedRows {
  if (SIGNATURE.some((b, i) => bytes[i] !== b)) throw new Error('COPY output lacks the binary signature');
  const rows: GroupedRows = { bytes, starts: [], ends: [], groups: [], wellFormed: true };
  for (let p = SIGNATURE.length + 8 + int32(bytes, SIGNATURE.length + 4), group = 0; p < used; group++) {
    const fields = int16(bytes, p);
    if (fields === -1) return rows;
    const length = int32(bytes, p + 2);
    if (fields !== 1) throw new Error('COPY output is not one column');
    p += 6;
    if (length < 0) continue; // NULL: a group without rows
    if (p + length > used) break;
    const field = bytes.subarray(p, p + length);
    if (!isUtf8(field)) rows.wellFormed = false; // each text is then checked where it is read
    splitTexts(field, p, rows, group);
    p += length;
  }
  throw new Error('COPY output ends early');
}

/** Adds the newline-separated texts of `field` (at `offset` in the rows' bytes) as rows of `group`. */
function splitTexts(field: Uint8Array, offset: number, rows: GroupedRows, group: number): void {
  for (let start = 0; start <= field.length; ) {
    const newline = field.indexOf(NEWLINE, start);
    const end = newline < 0 ? field.length : newline;
    rows.starts.push(offset + start);
    rows.ends.push(offset + end);
    rows.groups.push(group);
    start = end + 1;
  }
}

/** COPY (select) TO STDOUT (FORMAT binary) on one pooled connection: its data and the byte count. */
async function copyOut(pool: pg.Pool, select: string, sizeHint: number): Promise<{ bytes: Uint8Array; used: number }> {
  const copy = new CopyOut(`COPY (${select}) TO STDOUT (FORMAT binary)`, sizeHint);
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    client.query(copy);
    await copy.done;
  } catch (error) {
    failure = error as Error;
    throw error;
  } finally {
    // A connection that failed outside the query (not a database error) is not reused.
    client.release(failure && !('code' in failure) ? failure : undefined);
  }
  // A plain Uint8Array view: Buffer's own subarray (one per text read) costs several times more.
  return { bytes: new Uint8Array(copy.bytes.buffer, copy.bytes.byteOffset, copy.bytes.length), used: copy.used };
}

/**
 * Runs `select` (one column of newline-separated JSON texts, or NULL) through COPY on one pooled
 * connection; sizeHint is the expected byte count.
 */
export async function copyRows(pool: pg.Pool, select: string, sizeHint: number): Promise<GroupedRows> {
  const { bytes, used } = await copyOut(pool, select, sizeHint);
  return rowsOf(bytes, used);
}

/** Rows of a binary COPY with several fields: row i is bytes[starts[i]..ends[i]), its field count first, then each field's length and bytes. */
export interface FieldRows {
  bytes: Uint8Array;
  starts: number[];
  ends: number[];
}

/** The rows of COPY's binary format, each of `fields` fields (checked to lie within the data); -1 ends. */
function fieldRowsOf(bytes: Uint8Array, used: number, fields: number): FieldRows {
  if (SIGNATURE.some((b, i) => bytes[i] !== b)) throw new Error('COPY output lacks the binary signature');
  const rows: FieldRows = { bytes, starts: [], ends: [] };
  for (let p = SIGNATURE.length + 8 + int32(bytes, SIGNATURE.length + 4); p + 2 <= used; ) {
    const count = int16(bytes, p);
    if (count === -1) return rows;
    if (count !== fields) throw new Error(`COPY output is not ${fields} columns`);
    const start = p;
    p += 2;
    for (let f = 0; f < fields && p <= used; f++) p += 4 + Math.max(int32(bytes, p), 0);
    if (p > used) break;
    rows.starts.push(start);
    rows.ends.push(p);
  }
  throw new Error('COPY output ends early');
}

/** Runs `select` (rows of `fields` columns) through binary COPY on one pooled connection; sizeHint is the expected byte count. */
export async function copyFieldRows(pool: pg.Pool, select: string, fields: number, sizeHint: number): Promise<FieldRows> {
  const { bytes, used } = await copyOut(pool, select, sizeHint);
  return fieldRowsOf(bytes, used, fields);
}
