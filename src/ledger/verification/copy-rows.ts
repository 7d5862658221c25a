// Query results kept as bytes, for verifyLedger's reads (verify-read.ts): the query runs as COPY
// (...) TO STDOUT (FORMAT binary), whose data the driver hands over as raw chunks, copied into one
// byte array; each row's fields are then read where they lie (copy-fields.ts). No row becomes a
// JS string, array or object: no per-row decode or re-encode (together the largest CPU cost of a
// verification), and nothing on the JS heap that scavenges would copy.
// COPY takes no bind parameters: callers put values in the text through sqlUuid and sqlInteger,
// which accept only what they name, so nothing else can reach the SQL.
import type pg from 'pg';
import { isUuid } from '../../core/ids.ts';

export const rowCount = (rows: FieldRows): number => rows.starts.length;

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

/**
 * Byte arrays for COPY data, kept for the next read: one allocated per read (megabytes of memory
 * outside V8's heap, 80 a verification of 200,000 events) made V8 collect garbage for that
 * memory's sake every few pages, most of the main thread's CPU. A verification gives a page's
 * arrays back once it is done with them (releaseBytes); arrays it does not give back are collected.
 * At most SPARE_BYTES are kept, and none once no read has asked for one for SPARE_IDLE_MS.
 */
const spare: SharedArrayBuffer[] = [];
const SPARE_BYTES = 128 * 1024 * 1024;
const SPARE_IDLE_MS = 5_000;
let spareTimer: NodeJS.Timeout | undefined;

/** A byte array of at least `size` bytes: a spare one if one is large enough. */
function acquireBytes(size: number): Uint8Array {
  spareTimer?.refresh();
  let at = -1; // the smallest spare array large enough
  spare.forEach((buffer, i) => {
    if (buffer.byteLength >= size && (at < 0 || buffer.byteLength < (spare[at] as SharedArrayBuffer).byteLength)) at = i;
  });
  if (at >= 0) return new Uint8Array(spare.splice(at, 1)[0] as SharedArrayBuffer);
  return new Uint8Array(new SharedArrayBuffer(size));
}

/** Gives the array under `bytes` back for a later read; the caller reads nothing of it afterwards. */
export function releaseBytes(bytes: Uint8Array): void {
  const buffer = bytes.buffer;
  if (!(buffer instanceof SharedArrayBuffer)) return;
  const kept = spare.reduce((n, b) => n + b.byteLength, 0);
  if (buffer.byteLength === 0 || kept + buffer.byteLength > SPARE_BYTES || spare.includes(buffer)) return;
  spare.push(buffer);
  spareTimer ??= setTimeout(() => {
    spare.length = 0;
    spareTimer = undefined;
  }, SPARE_IDLE_MS).unref();
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
    this.bytes = acquireBytes(sizeHint);
    this.done = new Promise((resolve, reject) => void (this.settle = { resolve, reject }));
  }

  submit(connection: { query: (text: string) => void }): void {
    connection.query(this.text);
  }

  /** A chunk of the driver's buffer, reused once this returns: copied at once. */
  handleCopyData(message: { chunk: Uint8Array }): void {
    const { chunk } = message;
    if (this.used + chunk.length > this.bytes.length) {
      const grown = acquireBytes((this.used + chunk.length) * 2);
      grown.set(this.bytes.subarray(0, this.used));
      releaseBytes(this.bytes);
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
    releaseBytes(copy.bytes);
    throw error;
  } finally {
    // A connection that failed outside the query (not a database error) is not reused.
    client.release(failure && !('code' in failure) ? failure : undefined);
  }
  return { bytes: copy.bytes, used: copy.used };
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
