// What a verified page's events say besides the chain (verify-range.ts): which are steps.logged
// events, and the steps they cover with the hashes they log, from the event rows' binary columns
// (verify-read.ts readEventPage). The chain pass (verify-chain.ts) collects them as it writes each
// event; eventFacts reads them alone, for a page that pass was in doubt about. A steps.logged
// payload as PostgreSQL prints it, {"steps": [{"n": 1, "hash": "<hex>"}, ...]}, is read straight
// from its bytes (printedSteps); any other form is parsed by JSON.parse, whose result the fast
// path equals. The logged hashes are kept as bytes, 32 per covered step, for the step check.

import { HASH_BYTES, hashHexInto } from '../format/hash.ts';
import { FieldReader, sameBytes, uuidString } from './copy-fields.ts';
import { type FieldRows, rowCount } from './copy-rows.ts';
import type { StepKeys } from './step-runs.ts';
import { EVENT_FIELD, EVENT_FIELDS } from './verify-read.ts';

/**
 * What a page's events need besides the chain: the steps its steps.logged events cover (step k
 * as StepKeys holds it, logged by the page's event events[k], with the hash logged for it at
 * hashes[32k..32k+32) when logged[k] is 1; 0: what was logged is no lowercase hex hash), and which
 * events are steps.logged ones (stepsLogged[i] 1). Columns only, so that it crosses threads whole.
 */
export interface EventFacts extends StepKeys {
  events: Int32Array;
  hashes: Uint8Array;
  logged: Uint8Array;
  stepsLogged: Uint8Array;
}

const utf8 = new TextEncoder();
export const STEPS_LOGGED = utf8.encode('steps.logged');
const STEPS_OPEN = utf8.encode('{"steps": [');
const N_OPEN = utf8.encode('{"n": ');
const HASH_OPEN = utf8.encode(', "hash": "');
const utf8Decoder = new TextDecoder();
const isLowerHex = (c: number) => (c >= 48 && c <= 57) || (c >= 97 && c <= 102);

/** s[p..] starts with `part`. */
function startsWith(s: Uint8Array, p: number, part: Uint8Array): boolean {
  for (let i = 0; i < part.length; i++) if (s[p + i] !== part[i]) return false;
  return true;
}

/** Where printedSteps found entry i: its step number, its digits at s[digitsAt[i]..digitsEnd[i]), its hash's hex at s[hashAt[i]..+64). */
export const printed = { n: new Float64Array(64), digitsAt: new Int32Array(64), digitsEnd: new Int32Array(64), hashAt: new Int32Array(64) };

function grownPrinted(): void {
  const size = printed.n.length * 2;
  const grow = <T extends Float64Array | Int32Array>(a: T, make: (n: number) => T): T => {
    const b = make(size);
    b.set(a);
    return b;
  };
  printed.n = grow(printed.n, (n) => new Float64Array(n));
  printed.digitsAt = grow(printed.digitsAt, (n) => new Int32Array(n));
  printed.digitsEnd = grow(printed.digitsEnd, (n) => new Int32Array(n));
  printed.hashAt = grow(printed.hashAt, (n) => new Int32Array(n));
}

/**
 * The number of entries of a payload printed exactly as {"steps": [{"n": 1, "hash": "<64 hex>"},
 * ...]} (each then described in `printed`), or -1 for any other text.
 */
export function printedSteps(s: Uint8Array, start: number, end: number): number {
  if (!startsWith(s, start, STEPS_OPEN)) return -1;
  let p = start + STEPS_OPEN.length;
  if (s[p] === 93) return s[p + 1] === 125 && p + 2 === end ? 0 : -1; // ]}
  for (let count = 0; ; count++) {
    if (!startsWith(s, p, N_OPEN)) return -1;
    p += N_OPEN.length;
    let n = 0;
    const digits = p;
    for (; (s[p] as number) >= 48 && (s[p] as number) <= 57; p++) n = n * 10 + (s[p] as number) - 48;
    if (p === digits || p - digits > 15 || (s[digits] === 48 && p - digits > 1) || !startsWith(s, p, HASH_OPEN)) return -1;
    if (count === printed.n.length) grownPrinted();
    printed.n[count] = n;
    printed.digitsAt[count] = digits;
    printed.digitsEnd[count] = p;
    p += HASH_OPEN.length;
    for (let i = 0; i < 64; i++) if (!isLowerHex(s[p + i] as number)) return -1;
    if (s[p + 64] !== 34 || s[p + 65] !== 125) return -1; // "}
    printed.hashAt[count] = p;
    p += 66;
    if (s[p] === 93) return s[p + 1] === 125 && p + 2 === end ? count + 1 : -1; // ]}
    if (s[p] !== 44 || s[p + 1] !== 32) return -1; // ,
    p += 2;
  }
}

/** Collects a page's covered steps and their logged hashes, in growing columns. */
export class CoveredSteps {
  private count = 0;
  private events = new Int32Array(256);
  private episodeOf = new Int32Array(256);
  private ns = new Float64Array(256);
  private hashes = new Uint8Array(256 * HASH_BYTES);
  private logged = new Uint8Array(256);
  private readonly episodes: string[] = [];
  private readonly episodeIndex = new Map<string, number>();
  readonly stepsLogged: Uint8Array;

  constructor(events: number) {
    this.stepsLogged = new Uint8Array(events);
  }

  /** Adds step n of the episode, logged by `event` with the hash whose hex is text[at..at+length) (at < 0: none). */
  add(event: number, episodeId: string, n: number, text: Uint8Array, at: number, length = 2 * HASH_BYTES): void {
    const k = this.count++;
    if (k === this.logged.length) this.grow();
    let episode = this.episodeIndex.get(episodeId);
    if (episode === undefined) {
      episode = this.episodes.push(episodeId) - 1;
      this.episodeIndex.set(episodeId, episode);
    }
    this.events[k] = event;
    this.episodeOf[k] = episode;
    this.ns[k] = n;
    this.logged[k] = at >= 0 && hashHexInto(text, at, length, this.hashes, k * HASH_BYTES) ? 1 : 0;
  }

  /** Adds the entries printedSteps just found. */
  addPrinted(event: number, episodeId: string, s: Uint8Array, count: number): void {
    for (let i = 0; i < count; i++) this.add(event, episodeId, printed.n[i] as number, s, printed.hashAt[i] as number);
  }

  /** Adds the steps of a steps.logged payload in any form: what JSON.parse(payload).steps holds when it is an array (a step number that is no number: NaN). */
  addParsed(event: number, episodeId: string, s: Uint8Array, start: number, end: number): void {
    const payload = JSON.parse(utf8Decoder.decode(s.subarray(start, end))) as { steps?: unknown } | null;
    const steps = typeof payload === 'object' && Array.isArray(payload?.steps) ? payload.steps : [];
    for (const entry of steps as unknown[]) {
      // An entry that is no object logs no step number and no hash.
      const { n, hash } = (typeof entry === 'object' && entry !== null ? entry : {}) as { n?: unknown; hash?: unknown };
      const hex = typeof hash === 'string' ? utf8.encode(hash) : undefined;
      this.add(event, episodeId, typeof n === 'number' ? n : Number.NaN, hex ?? new Uint8Array(0), hex ? 0 : -1, hex?.length);
    }
  }

  /** The facts, in arrays of their own (the step check may move them to its worker). */
  facts(): EventFacts {
    const k = this.count;
    return {
      count: k,
      events: this.events.slice(0, k),
      episodeOf: this.episodeOf.slice(0, k),
      episodes: this.episodes,
      ns: this.ns.slice(0, k),
      hashes: this.hashes.slice(0, k * HASH_BYTES),
      logged: this.logged.slice(0, k),
      stepsLogged: this.stepsLogged,
    };
  }

  private grow(): void {
    const size = this.logged.length * 2;
    const grown = <T extends Int32Array | Float64Array | Uint8Array>(from: T, to: T): T => {
      to.set(from);
      return to;
    };
    this.events = grown(this.events, new Int32Array(size));
    this.episodeOf = grown(this.episodeOf, new Int32Array(size));
    this.ns = grown(this.ns, new Float64Array(size));
    this.hashes = grown(this.hashes, new Uint8Array(size * HASH_BYTES));
    this.logged = grown(this.logged, new Uint8Array(size));
  }
}

/** Keeps the episode id string of consecutive events of one episode (compared by its 16 bytes). */
export class EpisodeIds {
  private lastAt = -1;
  private last: string | null = null;

  /** The uuid field `fields` is at, as a string, or null. */
  of(fields: FieldReader, bytes: Uint8Array): string | null {
    if (fields.isNull) {
      this.lastAt = -1;
      return null;
    }
    if (!(this.lastAt >= 0 && sameBytes(bytes, this.lastAt, bytes, fields.at, 16))) this.last = uuidString(fields);
    this.lastAt = fields.at;
    return this.last;
  }
}

const fields = new FieldReader(EVENT_FIELDS);

/** The step entries the page's steps.logged events carry, in event order (the rows' columns: verify-read.ts readEventPage). */
export function eventFacts(rows: FieldRows): EventFacts {
  const found = new CoveredSteps(rowCount(rows));
  const ids = new EpisodeIds();
  const bytes = rows.bytes;
  for (let i = 0; i < rowCount(rows); i++) {
    fields.begin(bytes, rows.starts[i] as number, rows.ends[i] as number);
    fields.field(EVENT_FIELD.episodeId);
    const episodeId = ids.of(fields, bytes);
    fields.field(EVENT_FIELD.type);
    const stepsLogged = fields.length === STEPS_LOGGED.length && sameBytes(STEPS_LOGGED, 0, bytes, fields.at, STEPS_LOGGED.length);
    if (!stepsLogged) continue;
    found.stepsLogged[i] = 1;
    if (!episodeId) continue;
    fields.field(EVENT_FIELD.payload);
    const start = fields.jsonbText();
    const end = fields.at + fields.length;
    const count = printedSteps(bytes, start, end);
    if (count >= 0) found.addPrinted(i, episodeId, bytes, count);
    else found.addParsed(i, episodeId, bytes, start, end);
  }
  return found.facts();
}
