// The step-row check of a stored-range verification (docs/LEDGER.md §7.5, §3.2), pure so that it
// runs in a worker thread (step-worker.ts) as well as inline: each entry's stored row recomputed
// from its columns and its content_hash column, both compared with the logged hash. A row is as
// binary COPY sends it (verify-read.ts readStepRows): [run, step_number, content_hash, then the
// canonical members in RFC 8785 order], each field a 32-bit length (-1: NULL) and its bytes:
// text as UTF-8, jsonb as a version byte and PostgreSQL's JSON text, integers and float8
// big-endian, timestamptz as microseconds since 2000-01-01. The canonical bytes are written
// straight from them (text escaped, jsonb through json-text.ts) and hashed where they lie.
// A batch is a page's entries in logged order, with where each one's row lies.
import { isUtf8 } from 'node:buffer';
import { bytesHashIs, canonicalJson, canonicalString } from './hash.ts';
import { JsonBytesCanonicaliser } from './json-text.ts';
import { STEP_CANONICAL_FIELDS } from './step-hash.ts';

/** How each canonical member's column is sent (verify-read.ts selects it so). */
export type StepColumnKind = 'text' | 'jsonb' | 'int4' | 'float8' | 'time';

const KIND_OF: Record<string, StepColumnKind> = {
  contentRefs: 'jsonb',
  parameters: 'jsonb',
  result: 'jsonb',
  worldBefore: 'jsonb',
  worldAfter: 'jsonb',
  metadata: 'jsonb',
  latencyMs: 'int4',
  tokens: 'int4',
  cost: 'float8',
  startedAt: 'time',
  endedAt: 'time',
};

/** The canonical members' column kinds, in STEP_CANONICAL_FIELDS order (anything else is text). */
export const STEP_COLUMN_KINDS: readonly StepColumnKind[] = STEP_CANONICAL_FIELDS.map(({ field }) => KIND_OF[field] ?? 'text');

/** A page's step entries in logged order: entry k's row is bytes[starts[k]..ends[k]) (starts[k] -1: no row), its logged hash hashes[k]. */
export interface StepBatch {
  bytes: Uint8Array;
  starts: Int32Array;
  ends: Int32Array;
  hashes: unknown[];
}

export type StepProblem = 'step-missing' | 'content-differs' | 'column-differs';

/** Entries that verified before the first bad one (`bad`: its index in the batch and what was wrong). */
export interface StepVerdict {
  checked: number;
  bad?: { entry: number; problem: StepProblem };
}

const IS_OPTIONAL = STEP_CANONICAL_FIELDS.map(({ optional }) => optional);
const utf8 = new TextEncoder();
// Each member's `"key":`, written before its value.
const KEYS = STEP_CANONICAL_FIELDS.map(({ field }) => utf8.encode(`${canonicalString(field)}:`));
/** Fields before the members: run, step_number, content_hash. */
const LEADING_FIELDS = 3;
const FIELDS = LEADING_FIELDS + KEYS.length;
/** 2000-01-01T00:00:00Z in Unix milliseconds: PostgreSQL's epoch for timestamps. */
const PG_EPOCH_MS = 946_684_800_000;

const writer = new JsonBytesCanonicaliser();

/** Reads a row's fields in order: at() and length after each next(). */
class Fields {
  private b: Uint8Array = new Uint8Array(0);
  private view: DataView = new DataView(this.b.buffer);
  private p = 0;
  private end = 0;
  at = 0;
  length = 0;

  begin(bytes: Uint8Array, start: number, end: number): void {
    if (this.b !== bytes) {
      this.b = bytes;
      this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    }
    if (end - start < 2 || this.view.getInt16(start) !== FIELDS) throw new SyntaxError(`step row has not ${FIELDS} fields`);
    this.p = start + 2;
    this.end = end;
  }

  /** The next field; length -1 for NULL. */
  next(): void {
    if (this.p + 4 > this.end) throw new SyntaxError('step row ends early');
    this.length = this.view.getInt32(this.p);
    this.at = this.p + 4;
    this.p = this.at + Math.max(this.length, 0);
    if (this.p > this.end) throw new SyntaxError('step row ends early');
  }

  int32(): number {
    if (this.length !== 4) throw new SyntaxError('not an int4 field');
    return this.view.getInt32(this.at);
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
}

const fields = new Fields();

/** Writes the member value of field i (not NULL) from its column, as the driver's values made it. */
function writeValue(bytes: Uint8Array, kind: StepColumnKind): void {
  const { at, length } = fields;
  if (kind === 'text') writer.rawString(bytes, at, at + length);
  else if (kind === 'jsonb') {
    if (length < 1 || bytes[at] !== 1) throw new SyntaxError('not a jsonb field (version 1)');
    writer.valueFrom(bytes, at + 1, at + length);
  } else if (kind === 'int4') writer.ascii(String(fields.int32()));
  else if (kind === 'float8') writer.ascii(canonicalJson(fields.float64()));
  else writer.ascii(`"${new Date(fields.millis()).toISOString()}"`);
}

/**
 * Entry k's row recomputed (§3.2) and its content_hash column, each compared with the logged hash.
 * Throws on a row that is not the row the read asks for, or whose text is not well-formed UTF-8.
 */
function checkEntry(batch: StepBatch, k: number): StepProblem | undefined {
  const hash = batch.hashes[k];
  const bytes = batch.bytes;
  fields.begin(bytes, batch.starts[k] as number, batch.ends[k] as number);
  fields.next(); // run
  fields.next(); // step_number
  fields.next();
  // A hash column is lowercase hex: bytes that are not `hash` as ASCII hold no hash.
  const columnIs = fields.isAscii(hash);
  writer.clear();
  writer.ascii('{');
  for (let i = 0; i < KEYS.length; i++) {
    fields.next();
    const isNull = fields.length < 0;
    if (isNull && IS_OPTIONAL[i]) continue;
    if (writer.length > 1) writer.ascii(',');
    writer.bytes(KEYS[i] as Uint8Array);
    if (isNull) writer.ascii('null');
    else writeValue(bytes, STEP_COLUMN_KINDS[i] as StepColumnKind);
  }
  writer.ascii('}');
  const written = writer.written();
  if (!isUtf8(written)) throw new TypeError('step row is not well-formed UTF-8');
  if (!bytesHashIs(written, hash)) return 'content-differs';
  return columnIs ? undefined : 'column-differs';
}

/**
 * Checks entries [from, to) of the batch in order up to the first bad one (`checked` counts from
 * `from`). Throws on a row that is not the row the read asks for.
 */
export function checkStepBatch(batch: StepBatch, from = 0, to = batch.hashes.length): StepVerdict {
  for (let k = from; k < to; k++) {
    const problem = (batch.starts[k] as number) < 0 ? 'step-missing' : checkEntry(batch, k);
    if (problem) return { checked: k - from, bad: { entry: k, problem } };
  }
  return { checked: to - from };
}
