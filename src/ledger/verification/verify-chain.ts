// The chain check of a stored-range verification (verify-range.ts) straight from the event rows'
// binary columns (verify-read.ts): each event's chain input is written in one pass into a reused
// buffer (the row's members come in RFC 8785 order; the payload through json-text.ts, the ids and
// time formatted from their binary form) and hashed where it lies, so no event object is made per
// event. It checks what verifyChain (verify.ts) checks, no less: members well-formed as §2 states,
// seq, prevHash, hash (the tenant is the one the read asked for). It only says whether the whole
// page passes: on any doubt the caller runs verifyChain on the parsed events, whose report (or
// success) is then the verdict.

import { isUtf8 } from 'node:buffer';
import { CHAIN_DOMAIN_TAG, fromHex, HASH_BYTES, hashBytes, hashHexInto, hexMatches, type StoredLedgerEvent } from '../format/hash.ts';
import { EARLIEST_ISO_MS, isoTimeInto, LATEST_ISO_MS } from '../format/iso-time.ts';
import { JsonBytesCanonicaliser } from '../format/json-text.ts';
import { isUuid } from '../format/shape.ts';
import { FieldReader, sameBytes } from './copy-fields.ts';
import { type FieldRows, rowCount } from './copy-rows.ts';
import { CoveredSteps, EpisodeIds, type EventFacts, printed, printedSteps, STEPS_LOGGED } from './event-facts.ts';
import { EVENT_FIELD, EVENT_FIELDS } from './verify-read.ts';

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

/** An event type: [a-z_]+ segments joined by dots, at least two. */
function isType(s: Uint8Array, start: number, end: number): boolean {
  let segments = 1;
  let length = 0;
  for (let p = start; p < end; p++) {
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

const QUOTE = 34;
const w = new JsonBytesCanonicaliser();
const fields = new FieldReader(EVENT_FIELDS);
const utf8 = new TextEncoder();

/** Field f, a uuid or NULL, written as a string literal or null. */
function uuidOrNull(f: number): void {
  fields.field(f);
  if (fields.isNull) {
    w.ascii('null');
    return;
  }
  const at = w.reserve(38);
  w.out[at] = QUOTE;
  fields.uuidInto(w.out, at + 1);
  w.out[at + 37] = QUOTE;
}

/** The created_at field, written as Date.prototype.toISOString writes it; false beyond four-digit years. */
function createdAt(): boolean {
  fields.field(EVENT_FIELD.createdAt);
  const ms = fields.millis();
  if (!(ms >= EARLIEST_ISO_MS && ms <= LATEST_ISO_MS)) return false;
  const at = w.reserve(26);
  w.out[at] = QUOTE;
  isoTimeInto(ms, w.out, at + 1);
  w.out[at + 25] = QUOTE;
  return true;
}

/** A steps.logged payload printedSteps read (`count` entries), in canonical form: its members' order is RFC 8785's already. */
function writePrintedSteps(bytes: Uint8Array, count: number): void {
  w.ascii('{"steps":[');
  for (let i = 0; i < count; i++) {
    w.ascii(i === 0 ? '{"hash":"' : ',{"hash":"');
    const hashAt = printed.hashAt[i] as number;
    w.raw(bytes, hashAt, hashAt + 2 * HASH_BYTES);
    w.ascii('","n":');
    w.raw(bytes, printed.digitsAt[i] as number, printed.digitsEnd[i] as number);
    w.ascii('}');
  }
  w.ascii(']}');
}

/**
 * The payload field (jsonb) written in canonical form, and for a steps.logged event of an
 * episode the steps it covers; false unless its text is well-formed UTF-8.
 */
function payload(bytes: Uint8Array, event: number, stepsLogged: boolean, episodeId: string | null, found: CoveredSteps): boolean {
  fields.field(EVENT_FIELD.payload);
  const start = fields.jsonbText();
  const end = fields.at + fields.length;
  const count = stepsLogged ? printedSteps(bytes, start, end) : -1;
  if (count >= 0) {
    writePrintedSteps(bytes, count); // ASCII, checked by printedSteps
    if (episodeId) found.addPrinted(event, episodeId, bytes, count);
    return true;
  }
  if (!isUtf8(bytes.subarray(start, end))) return false;
  w.valueFrom(bytes, start, end);
  if (stepsLogged && episodeId) found.addParsed(event, episodeId, bytes, start, end);
  return true;
}

/** Where one event's chain input comes from and goes to. */
interface EventLink {
  /** The previous hash is prev[from..from+32); for the page's first event, its own prev_hash is decoded there first. */
  prev: Uint8Array;
  from: number;
  first: boolean;
  /** Its own hash is decoded into hashes[to..to+32). */
  hashes: Uint8Array;
  to: number;
}

/** The prev_hash field: decoded into the link's prev for a page's first event, else equal to the previous event's hash. */
function prevHash(bytes: Uint8Array, link: EventLink): boolean {
  fields.field(EVENT_FIELD.prevHash);
  if (link.first) return hashHexInto(bytes, fields.at, fields.length, link.prev, link.from);
  return hexMatches(bytes, fields.at, fields.length, link.prev, link.from);
}

/** Event row i has seq `seq`, chains from its link's previous hash, and hashes to its hash field (decoded into the link). */
function rowChains(rows: FieldRows, i: number, seq: number, link: EventLink, tenant: Uint8Array, found: CoveredSteps, ids: EpisodeIds): boolean {
  const bytes = rows.bytes;
  fields.begin(bytes, rows.starts[i] as number, rows.ends[i] as number);
  fields.field(EVENT_FIELD.type);
  const typeAt = fields.at;
  const typeLength = fields.length;
  if (!isType(bytes, typeAt, typeAt + typeLength)) return false;
  const stepsLogged = typeLength === STEPS_LOGGED.length && sameBytes(STEPS_LOGGED, 0, bytes, typeAt, typeLength);
  if (stepsLogged) found.stepsLogged[i] = 1;
  fields.field(EVENT_FIELD.episodeId);
  const episodeId = stepsLogged ? ids.of(fields, bytes) : null;
  if (!prevHash(bytes, link)) return false;
  w.clear();
  w.bytes(CHAIN_DOMAIN_TAG);
  w.raw(link.prev, link.from, link.from + HASH_BYTES);
  w.ascii('{"createdAt":');
  if (!createdAt()) return false;
  w.ascii(',"episodeId":');
  uuidOrNull(EVENT_FIELD.episodeId);
  w.ascii(',"payload":');
  if (!payload(bytes, i, stepsLogged, episodeId, found)) return false;
  fields.field(EVENT_FIELD.seq);
  if (fields.int64() !== seq) return false;
  w.ascii(`,"seq":${seq},"tenantId":`);
  w.bytes(tenant);
  w.ascii(',"type":"');
  w.raw(bytes, typeAt, typeAt + typeLength);
  w.ascii('","v":1,"workItemId":');
  uuidOrNull(EVENT_FIELD.workItemId);
  w.ascii('}');
  fields.field(EVENT_FIELD.hash);
  if (!hashHexInto(bytes, fields.at, fields.length, link.hashes, link.to)) return false;
  return sameBytes(hashBytes(w.written()), 0, link.hashes, link.to, HASH_BYTES);
}

/** A page whose events all passed: their hashes, the hash its first event chains from, and what they say besides (event-facts.ts). */
export interface PageChain {
  index: PageIndex;
  firstPrev: Uint8Array;
  facts: EventFacts;
}

/**
 * The page's events from seq `firstSeq`, checked from their rows: each chains from the one before
 * it (the first from whatever its prev_hash says: the caller compares firstPrev with the previous
 * page's last hash), so a page is checked as soon as it is read. Undefined on any doubt (the caller
 * then runs verifyChain).
 */
export function chainOfPage(rows: FieldRows, firstSeq: number, tenantId: string): PageChain | undefined {
  if (!isUuid(tenantId)) return undefined;
  const count = rowCount(rows);
  const hashes = new Uint8Array(count * HASH_BYTES);
  const firstPrev = new Uint8Array(HASH_BYTES);
  const tenant = utf8.encode(JSON.stringify(tenantId));
  const found = new CoveredSteps(count);
  const ids = new EpisodeIds();
  const link: EventLink = { prev: firstPrev, from: 0, first: true, hashes, to: 0 };
  try {
    for (let i = 0; i < count; i++) {
      if (i > 0) {
        link.prev = hashes;
        link.from = (i - 1) * HASH_BYTES;
        link.first = false;
        link.to = i * HASH_BYTES;
      }
      if (!rowChains(rows, i, firstSeq + i, link, tenant, found, ids)) return undefined;
    }
  } catch {
    return undefined; // not canonical, or not JSON, or not the row asked for: verifyChain names the problem
  }
  return { index: { firstSeq, count, hashes }, firstPrev, facts: found.facts() };
}

/** The index of events verifyChain accepted from seq `firstSeq`. */
export function indexOfEvents(events: readonly StoredLedgerEvent[], firstSeq: number): PageIndex {
  const hashes = new Uint8Array(events.length * HASH_BYTES);
  events.forEach((e, i) => hashes.set(fromHex(e.hash, HASH_BYTES), i * HASH_BYTES));
  return { firstSeq, count: events.length, hashes };
}
