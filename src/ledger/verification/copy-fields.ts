// Reads the fields of one binary COPY row (copy-rows.ts FieldRows) in order, as PostgreSQL sends
// them: each a 32-bit length (-1: NULL) and its bytes; integers and float8 big-endian, uuid as 16
// bytes, timestamptz as microseconds since 2000-01-01, text as UTF-8, jsonb as a version byte and
// its text. Used by the verification's chain, step and event-facts checks, nothing allocated per row.

/** 2000-01-01T00:00:00Z in Unix milliseconds: PostgreSQL's epoch for timestamps. */
const PG_EPOCH_MS = 946_684_800_000;
const HEX_DIGITS = new TextEncoder().encode('0123456789abcdef');

/** Reads a row's fields: at and length after each next() (the next field) or field(f). */
export class FieldReader {
  private b: Uint8Array = new Uint8Array(0);
  private view: DataView = new DataView(this.b.buffer);
  private readonly starts: Int32Array;
  private readonly lengths: Int32Array;
  private current = 0;
  at = 0;
  length = 0;

  constructor(private readonly fields: number) {
    this.starts = new Int32Array(fields);
    this.lengths = new Int32Array(fields);
  }

  /** Starts row bytes[start..end); throws unless it has the expected number of fields, each within it. */
  begin(bytes: Uint8Array, start: number, end: number): void {
    if (this.b !== bytes) {
      this.b = bytes;
      this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    }
    if (end - start < 2 || this.view.getInt16(start) !== this.fields) throw new SyntaxError(`row has not ${this.fields} fields`);
    let p = start + 2;
    for (let f = 0; f < this.fields; f++) {
      if (p + 4 > end) throw new SyntaxError('row ends early');
      const length = this.view.getInt32(p);
      this.starts[f] = p + 4;
      this.lengths[f] = length;
      p += 4 + Math.max(length, 0);
    }
    if (p > end) throw new SyntaxError('row ends early');
    this.current = 0;
  }

  /** The next field (the first after begin); length -1 for NULL. */
  next(): void {
    this.field(this.current);
  }

  /** Field f; the next field is then f + 1. */
  field(f: number): void {
    if (f >= this.fields) throw new SyntaxError('no more fields');
    this.at = this.starts[f] as number;
    this.length = this.lengths[f] as number;
    this.current = f + 1;
  }

  /** The field's bytes, past the first `skip` (a view). */
  bytes(skip = 0): Uint8Array {
    return this.b.subarray(this.at + skip, this.at + Math.max(this.length, skip));
  }

  /** Where a jsonb field's text starts (after its version byte, which must be 1); it ends at at + length. */
  jsonbText(): number {
    if (this.length < 1 || this.b[this.at] !== 1) throw new SyntaxError('not a jsonb field (version 1)');
    return this.at + 1;
  }

  get isNull(): boolean {
    return this.length < 0;
  }

  int32(): number {
    if (this.length !== 4) throw new SyntaxError('not an int4 field');
    return this.view.getInt32(this.at);
  }

  /** An int8 as a number: exact up to 2^53, NaN beyond (no safe integer holds it). */
  int64(): number {
    if (this.length !== 8) throw new SyntaxError('not an int8 field');
    const high = this.view.getInt32(this.at);
    if (high >= 2 ** 21 || high < -(2 ** 21)) return Number.NaN;
    return high * 2 ** 32 + this.view.getUint32(this.at + 4);
  }

  float64(): number {
    if (this.length !== 8) throw new SyntaxError('not a float8 field');
    return this.view.getFloat64(this.at);
  }

  /** A timestamptz as Unix milliseconds, truncated as a Date truncates (exact at every magnitude). */
  millis(): number {
    if (this.length !== 8) throw new SyntaxError('not a timestamptz field');
    const high = this.view.getInt32(this.at);
    const micros = high * 2 ** 32 + this.view.getUint32(this.at + 4);
    if (Math.abs(high) < 2 ** 20) return micros / 1000 + PG_EPOCH_MS; // below 2^52: exact
    return Number(this.view.getBigInt64(this.at) / 1000n) + PG_EPOCH_MS;
  }

  /** The field's bytes are exactly the ASCII of `expected`. */
  isAscii(expected: unknown): boolean {
    if (typeof expected !== 'string' || this.length !== expected.length) return false;
    for (let i = 0; i < expected.length; i++) {
      const c = expected.charCodeAt(i);
      if (c > 127 || this.b[this.at + i] !== c) return false;
    }
    return true;
  }

  /** A uuid field as its lowercase text with dashes, written at out[to..to+36). */
  uuidInto(out: Uint8Array, to: number): void {
    if (this.length !== 16) throw new SyntaxError('not a uuid field');
    for (let i = 0, o = to; i < 16; i++) {
      if (i === 4 || i === 6 || i === 8 || i === 10) out[o++] = 45; // -
      const byte = this.b[this.at + i] as number;
      out[o++] = HEX_DIGITS[byte >> 4] as number;
      out[o++] = HEX_DIGITS[byte & 15] as number;
    }
  }
}

const uuidText = new Uint8Array(36);
const latin1 = new TextDecoder('latin1');

/** The uuid field the reader is at, as a string. */
export function uuidString(fields: FieldReader): string {
  fields.uuidInto(uuidText, 0);
  return latin1.decode(uuidText);
}

/** a[aAt..aAt+n) equals b[bAt..bAt+n). */
export function sameBytes(a: Uint8Array, aAt: number, b: Uint8Array, bAt: number, n: number): boolean {
  for (let i = 0; i < n; i++) if (a[aAt + i] !== b[bAt + i]) return false;
  return true;
}
