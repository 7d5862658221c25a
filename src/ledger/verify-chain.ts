// The chain check of a stored-range verification (verify-range.ts) straight from the event rows'
// UTF-8 JSON text (verify-read.ts): each event's chain input is written in one pass into a reused
// buffer (the row's members come in RFC 8785 order; the payload through json-text.ts) and hashed
// where it lies, so no event object, string or regular expression is made per event. It checks
// what verifyChain (verify.ts) checks, no less: members well-formed as §2 states, tenant, seq,
// prevHash, hash. It only says whether the whole page passes: on any doubt the caller runs
// verifyChain on the parsed events, whose report (or success) is then the verdict.

import { type ByteRows, rowCount } from './copy-rows.ts';
import { CHAIN_DOMAIN_TAG, fromHex, HASH_BYTES, hashBytes, isHashHex, type StoredLedgerEvent } from './hash.ts';
import { JsonBytesCanonicaliser } from './json-text.ts';
import { isUuid } from './shape.ts';

/** A verified page: its events have seq firstSeq, firstSeq + 1, ...; event i's hash is hashes[32i..32i+32). */
export interface PageIndex {
  firstSeq: number;
  count: number;
  hashes: Uint8Array;
}

export interface ChainStart {
  seq: number;
  prevHash: string;
  tenantId: string;
}

const QUOTE = 34;
const isDigit = (c: number | undefined): boolean => c !== undefined && c >= 48 && c <= 57;
/** Lowercase hex digits' values by byte, -1 for any other byte: one load instead of comparisons (400,000 hashes a 200,000-event ledger). */
const HEX_VALUE = new Int8Array(256).fill(-1);
for (let c = 0; c < 16; c++) HEX_VALUE['0123456789abcdef'.charCodeAt(c)] = c;
const hexValue = (c: number | undefined): number => (c === undefined ? -1 : (HEX_VALUE[c] as number));

/** A lowercase uuid literal, quotes included, at s[start..end). */
function isUuidLiteral(s: Uint8Array, start: number, end: number): boolean {
  if (end - start !== 38) return false;
  for (let i = 0; i < 36; i++) {
    const c = s[start + 1 + i];
    if (i === 8 || i === 13 || i === 18 || i === 23 ? c !== 45 : hexValue(c) < 0) return false;
  }
  return true;
}

const CREATED_AT_SHAPE = '0000-00-00T00:00:00.000Z';

/** A createdAt literal (Date.prototype.toISOString of a year 0000-9999). */
function isCreatedAtLiteral(s: Uint8Array, start: number, end: number): boolean {
  if (end - start !== CREATED_AT_SHAPE.length + 2) return false;
  for (let i = 0; i < CREATED_AT_SHAPE.length; i++) {
    const c = s[start + 1 + i];
    const shape = CREATED_AT_SHAPE.charCodeAt(i);
    if (shape === 48 ? !isDigit(c) : c !== shape) return false;
  }
  return true;
}

/** An event type literal: [a-z_]+ segments joined by dots, at least two. */
function isTypeLiteral(s: Uint8Array, start: number, end: number): boolean {
  let segments = 1;
  let length = 0;
  for (let p = start + 1; p < end - 1; p++) {
    const c = s[p] as number;
    if (c === 46) {
      if (length === 0) return false;
      segments++;
      length = 0;
    } else if ((c >= 97 && c <= 122) || c === 95) length++;
    else return false;
  }
  return segments >= 2 && length > 0;
}

/** Decodes a 64-digit lowercase hex literal into `out`; false if it is not one. */
function hashLiteralInto(s: Uint8Array, start: number, end: number, out: Uint8Array): boolean {
  if (end - start !== 2 * HASH_BYTES + 2) return false;
  let bad = 0;
  for (let i = 0, p = start + 1; i < HASH_BYTES; i++, p += 2) {
    const high = HEX_VALUE[s[p] as number] as number;
    const low = HEX_VALUE[s[p + 1] as number] as number;
    bad |= high | low; // -1 marks a byte that is no lowercase hex digit
    out[i] = (high << 4) | low;
  }
  return bad >= 0;
}

const w = new JsonBytesCanonicaliser();

type Shape = (s: Uint8Array, start: number, end: number) => boolean;

/** Moves past the next element, a string literal, and writes it if `shape` accepts it. */
const literal = (shape: Shape): boolean => w.more() && literalHere(shape);

/** The next element: null or a uuid literal, written. */
function uuidOrNull(): boolean {
  if (!w.more()) return false;
  if (!w.isNull()) return literalHere(isUuidLiteral);
  w.ascii('null');
  return true;
}

/** literal() for an element more() has already been called for. */
function literalHere(shape: Shape): boolean {
  const start = w.position;
  if (w.source[start] !== QUOTE) return false;
  w.skip();
  if (!shape(w.source, start, w.position)) return false;
  w.copy(start, w.position);
  return true;
}

/** The seq literal ("123", as bigint prints) holding exactly `seq`, written as a number. */
function seqLiteral(seq: number): boolean {
  if (!w.more()) return false;
  const s = w.source;
  const start = w.position;
  w.skip();
  const end = w.position;
  if (s[start] !== QUOTE || end - start < 3 || end - start > 17 || s[start + 1] === 48) return false;
  let value = 0;
  for (let p = start + 1; p < end - 1; p++) {
    if (!isDigit(s[p])) return false;
    value = value * 10 + ((s[p] as number) - 48);
  }
  if (value !== seq) return false;
  w.copy(start + 1, end - 1);
  return true;
}

/** The tenant literal, equal to `tenantId` (a uuid). */
function tenantLiteral(tenantId: string): boolean {
  if (!literal(isUuidLiteral)) return false;
  const s = w.out;
  const at = w.length - 37;
  for (let i = 0; i < 36; i++) if (s[at + i] !== tenantId.charCodeAt(i)) return false;
  return true;
}

/** The next element, a hash literal, decoded into `out`. */
function hashElement(out: Uint8Array): boolean {
  if (!w.more()) return false;
  const start = w.position;
  w.skip();
  return hashLiteralInto(w.source, start, w.position, out);
}

const scratchPrev = new Uint8Array(HASH_BYTES);

/** Event row i chains from `prev` with seq `seq`, its own hash decoded into `hash`. */
function rowChains(rows: ByteRows, i: number, seq: number, prev: Uint8Array, tenantId: string, hash: Uint8Array): boolean {
  w.begin(rows.bytes, rows.starts[i], rows.ends[i], rows.wellFormed === true);
  w.bytes(CHAIN_DOMAIN_TAG);
  w.bytes(prev);
  w.enterArray();
  w.ascii('{"createdAt":');
  if (!literal(isCreatedAtLiteral)) return false;
  w.ascii(',"episodeId":');
  if (!uuidOrNull()) return false;
  w.ascii(',"payload":');
  if (!w.more()) return false;
  w.value();
  w.ascii(',"seq":');
  if (!seqLiteral(seq)) return false;
  w.ascii(',"tenantId":');
  if (!tenantLiteral(tenantId)) return false;
  w.ascii(',"type":');
  if (!literal(isTypeLiteral)) return false;
  w.ascii(',"v":1,"workItemId":');
  if (!uuidOrNull()) return false;
  w.ascii('}');
  if (!hashElement(scratchPrev) || !hashElement(hash) || w.more() || !w.done()) return false;
  for (let b = 0; b < HASH_BYTES; b++) if (scratchPrev[b] !== prev[b]) return false;
  const digest = hashBytes(w.written());
  for (let b = 0; b < HASH_BYTES; b++) if (digest[b] !== hash[b]) return false;
  return true;
}

/** The page's index when every event passes; undefined on any doubt (the caller then runs verifyChain). */
export function chainOfRows(rows: ByteRows, start: ChainStart): PageIndex | undefined {
  if (!isUuid(start.tenantId) || !isHashHex(start.prevHash)) return undefined;
  const count = rowCount(rows);
  const hashes = new Uint8Array(count * HASH_BYTES);
  let prev = fromHex(start.prevHash, HASH_BYTES);
  try {
    for (let i = 0; i < count; i++) {
      const hash = hashes.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES);
      if (!rowChains(rows, i, start.seq + i, prev, start.tenantId, hash)) return undefined;
      prev = hash;
    }
  } catch {
    return undefined; // not canonical, or not JSON: verifyChain names the problem
  }
  return { firstSeq: start.seq, count, hashes };
}

/** The index of events verifyChain accepted from seq `firstSeq`. */
export function indexOfEvents(events: readonly StoredLedgerEvent[], firstSeq: number): PageIndex {
  const hashes = new Uint8Array(events.length * HASH_BYTES);
  events.forEach((e, i) => hashes.set(fromHex(e.hash, HASH_BYTES), i * HASH_BYTES));
  return { firstSeq, count: events.length, hashes };
}
