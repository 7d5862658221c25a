// The step-row check of a stored-range verification (docs/LEDGER.md §7.5, §3.2), pure so that it
// runs in a worker thread (step-worker.ts) as well as inline: each entry's stored row recomputed
// from PostgreSQL's JSON text and its content_hash column, both compared with the logged hash.
// The canonical bytes are written straight from the row text (json-text.ts) and hashed where they
// lie. A batch is a page's entries in logged order, with where each one's row text lies.
import { bytesHashIs, canonicalJson, canonicalString } from './hash.ts';
import { JsonBytesCanonicaliser } from './json-text.ts';
import { STEP_CANONICAL_FIELDS } from './step-hash.ts';

/** A page's step entries in logged order: entry k's row is bytes[starts[k]..ends[k]) (starts[k] -1: no row), its logged hash hashes[k]. */
export interface StepBatch {
  bytes: Uint8Array;
  /** The rows are known to be well-formed UTF-8 (copy-rows.ts). */
  wellFormed: boolean;
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

const TIMES = new Set(['startedAt', 'endedAt']);
const IS_TIME = STEP_CANONICAL_FIELDS.map(({ field }) => TIMES.has(field));
const IS_OPTIONAL = STEP_CANONICAL_FIELDS.map(({ optional }) => optional);
const COST_INDEX = STEP_CANONICAL_FIELDS.findIndex(({ field }) => field === 'cost');
const utf8 = new TextEncoder();
// Each member's `"key":`, written before its value.
const KEYS = STEP_CANONICAL_FIELDS.map(({ field }) => utf8.encode(`${canonicalString(field)}:`));

const writer = new JsonBytesCanonicaliser();

/** Positions the writer at the members of the row [step_number, content_hash, members...]; true when its content_hash column is `hash`. */
function enterStepRow(batch: StepBatch, k: number, hash: unknown): boolean {
  writer.begin(batch.bytes, batch.starts[k], batch.ends[k], batch.wellFormed);
  writer.enterArray();
  if (!writer.more()) throw new SyntaxError('step row ends early');
  writer.skip(); // step_number
  if (!writer.more()) throw new SyntaxError('step row ends early');
  // A hash column is lowercase hex: a literal that is `hash` only once unescaped holds no hash.
  return writer.literalIs(hash);
}

/**
 * Entry k's row recomputed (§3.2) and its content_hash column, each compared with the logged hash.
 * Times (epoch milliseconds) become ISO text and cost (float8 as text) a number, as the driver's
 * Date and parseFloat made them.
 */
function checkEntry(batch: StepBatch, k: number): StepProblem | undefined {
  const hash = batch.hashes[k];
  const columnIs = enterStepRow(batch, k, hash);
  writer.ascii('{');
  for (let i = 0; i < KEYS.length; i++) {
    if (!writer.more()) throw new SyntaxError('step row ends early');
    const isNull = writer.isNull();
    if (isNull && IS_OPTIONAL[i]) continue;
    if (writer.length > 1) writer.ascii(',');
    writer.bytes(KEYS[i] as Uint8Array);
    if (isNull) writer.ascii('null');
    else if (IS_TIME[i]) writer.ascii(`"${new Date(writer.numberValue()).toISOString()}"`);
    else if (i === COST_INDEX) writer.ascii(canonicalJson(Number.parseFloat(writer.stringValue())));
    else writer.value();
  }
  writer.ascii('}');
  if (!bytesHashIs(writer.written(), hash)) return 'content-differs';
  return columnIs ? undefined : 'column-differs';
}

/**
 * Checks entries [from, to) of the batch in order up to the first bad one (`checked` counts from
 * `from`). Throws on a row that is not the JSON the read asks for.
 */
export function checkStepBatch(batch: StepBatch, from = 0, to = batch.hashes.length): StepVerdict {
  for (let k = from; k < to; k++) {
    const problem = (batch.starts[k] as number) < 0 ? 'step-missing' : checkEntry(batch, k);
    if (problem) return { checked: k - from, bad: { entry: k, problem } };
  }
  return { checked: to - from };
}
