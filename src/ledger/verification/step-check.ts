// The step-row check of a stored-range verification (docs/LEDGER.md §7.5, §3.2), pure so that it
// runs in a worker thread (verify-worker.ts) as well as inline: each entry's stored row recomputed
// from its columns and its content_hash column, both compared with the logged hash. A row is as
// binary COPY sends it (verify-read.ts readStepRows): [run, step_number, content_hash, then the
// canonical members in RFC 8785 order], each field a 32-bit length (-1: NULL) and its bytes:
// text as UTF-8, jsonb as a version byte and PostgreSQL's JSON text, integers and float8
// big-endian, timestamptz as microseconds since 2000-01-01. The canonical bytes are written
// straight from them (text escaped, jsonb through json-text.ts) and hashed where they lie.
// A batch is a page's entries in logged order, with where each one's row lies.
import { isUtf8 } from 'node:buffer';
import { FORGOTTEN_MEMBERS } from '../format/forgotten.ts';
import { canonicalJson, canonicalString, HASH_BYTES, hashBytes, hexMatches } from '../format/hash.ts';
import { JsonBytesCanonicaliser } from '../format/json-text.ts';
import { STEP_CANONICAL_FIELDS, STEP_KEPT_FIELDS } from '../format/step-hash.ts';
import { FieldReader, sameBytes } from './copy-fields.ts';

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

/**
 * A page's step entries in logged order: entry k's row is bytes[starts[k]..ends[k]) (starts[k] -1:
 * no row), its logged hash hashes[32k..32k+32) when logged[k] is 1 (0: the entry's hash is no
 * lowercase hex hash, so nothing equals it; FORGOTTEN: a steps.forgotten event names the step with
 * that hash, so its row has no content to check, §3.4).
 */
export interface StepBatch {
  bytes: Uint8Array;
  starts: Int32Array;
  ends: Int32Array;
  hashes: Uint8Array;
  logged: Uint8Array;
  /** Entry k's keptHash at [32k, 32k+32) where logged[k] is FORGOTTEN_KEPT (§3.4). */
  kept?: Uint8Array;
}

/**
 * logged[k] of an entry whose step was forgotten (verify-pages.ts marks it): its row, if any, must
 * hold none of the forgotten members and keep the logged hash in its content_hash column.
 */
export const FORGOTTEN = 2;
/** A forgotten entry whose steps.forgotten event hashed the members the row keeps (batch.kept): they must hash to it. */
export const FORGOTTEN_KEPT = 3;
const IS_FORGOTTEN_MEMBER = STEP_CANONICAL_FIELDS.map(({ field }) => FORGOTTEN_MEMBERS.includes(field));
const IS_KEPT_MEMBER = STEP_CANONICAL_FIELDS.map(({ field }) => STEP_KEPT_FIELDS.includes(field));

export type StepProblem = 'step-missing' | 'content-differs' | 'column-differs' | 'kept-differs';

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
const writer = new JsonBytesCanonicaliser();
const fields = new FieldReader(FIELDS);

/** Writes the member value of field i (not NULL) from its column, as the driver's values made it. */
function writeValue(bytes: Uint8Array, kind: StepColumnKind): void {
  const { at, length } = fields;
  if (kind === 'text') writer.rawString(bytes, at, at + length);
  else if (kind === 'jsonb') writer.valueFrom(bytes, fields.jsonbText(), at + length);
  else if (kind === 'int4') writer.ascii(String(fields.int32()));
  else if (kind === 'float8') writer.ascii(canonicalJson(fields.float64()));
  else writer.ascii(`"${new Date(fields.millis()).toISOString()}"`);
}

/**
 * Entry k's row recomputed (§3.2) and its content_hash column, each compared with the logged hash.
 * Throws on a row that is not the row the read asks for, or whose text is not well-formed UTF-8.
 */
function checkEntry(batch: StepBatch, k: number): StepProblem | undefined {
  const bytes = batch.bytes;
  const logged = batch.logged[k] === 1;
  fields.begin(bytes, batch.starts[k] as number, batch.ends[k] as number);
  fields.next(); // run
  fields.next(); // step_number
  fields.next();
  const columnIs = logged && hexMatches(bytes, fields.at, fields.length, batch.hashes, k * HASH_BYTES);
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
  if (!logged || !sameBytes(hashBytes(written), 0, batch.hashes, k * HASH_BYTES, HASH_BYTES)) return 'content-differs';
  return columnIs ? undefined : 'column-differs';
}

/**
 * A forgotten entry's row: none of the forgotten members set, its content_hash column the logged
 * hash, and (FORGOTTEN_KEPT) the members it keeps hashing to its event's keptHash.
 */
function checkForgotten(batch: StepBatch, k: number): StepProblem | undefined {
  const bytes = batch.bytes;
  const checkKept = batch.logged[k] === FORGOTTEN_KEPT;
  fields.begin(bytes, batch.starts[k] as number, batch.ends[k] as number);
  fields.next(); // run
  fields.next(); // step_number
  fields.next();
  const columnIs = hexMatches(bytes, fields.at, fields.length, batch.hashes, k * HASH_BYTES);
  writer.clear();
  writer.ascii('{');
  for (let i = 0; i < KEYS.length; i++) {
    fields.next();
    const isNull = fields.length < 0;
    if (IS_FORGOTTEN_MEMBER[i] && !isNull) return 'content-differs';
    if (!checkKept || !IS_KEPT_MEMBER[i] || (isNull && IS_OPTIONAL[i])) continue;
    if (writer.length > 1) writer.ascii(',');
    writer.bytes(KEYS[i] as Uint8Array);
    if (isNull) writer.ascii('null');
    else writeValue(bytes, STEP_COLUMN_KINDS[i] as StepColumnKind);
  }
  writer.ascii('}');
  if (checkKept && !sameBytes(hashBytes(writer.written()), 0, batch.kept as Uint8Array, k * HASH_BYTES, HASH_BYTES)) return 'kept-differs';
  return columnIs ? undefined : 'column-differs';
}

/**
 * Checks entries [from, to) of the batch in order up to the first bad one (`checked` counts from
 * `from`). Throws on a row that is not the row the read asks for.
 */
export function checkStepBatch(batch: StepBatch, from = 0, to = batch.logged.length): StepVerdict {
  for (let k = from; k < to; k++) {
    const absent = (batch.starts[k] as number) < 0;
    const forgotten = batch.logged[k] === FORGOTTEN || batch.logged[k] === FORGOTTEN_KEPT;
    const problem = absent ? (forgotten ? undefined : 'step-missing') : forgotten ? checkForgotten(batch, k) : checkEntry(batch, k);
    if (problem) return { checked: k - from, bad: { entry: k, problem } };
  }
  return { checked: to - from };
}
