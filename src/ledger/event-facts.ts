// What a verified page's events say besides the chain (verify-range.ts): which are steps.logged
// events, and the steps they cover, read from the event rows' UTF-8 JSON text (verify-read.ts
// readEventPage). A steps.logged payload as PostgreSQL prints it, {"steps": [{"n": 1, "hash":
// "<hex>"}, ...]}, is read straight from its bytes; any other form is parsed by JSON.parse, whose
// result the fast path equals. Consecutive events of one episode share its id string.
import { type ByteRows, rowCount } from './copy-rows.ts';
import { JsonBytesCanonicaliser } from './json-text.ts';
import type { StepKey } from './step-runs.ts';

type StepEntry = { n: number; hash: unknown };

export interface Covered extends StepKey {
  /** The index in its page of the event that logged it. */
  event: number;
  hash: unknown;
}

/** What a page's events need besides the chain: the steps its steps.logged events cover, and which events those are. */
export interface EventFacts {
  covered: Covered[];
  stepsLogged: boolean[];
}

const facts = new JsonBytesCanonicaliser();
const utf8 = new TextEncoder();
const STEPS_LOGGED = utf8.encode('"steps.logged"');
const STEPS_OPEN = utf8.encode('{"steps": [');
const N_OPEN = utf8.encode('{"n": ');
const HASH_OPEN = utf8.encode(', "hash": "');
const utf8Decoder = new TextDecoder();

/** s[p..] starts with `part`. */
function at(s: Uint8Array, p: number, part: Uint8Array): boolean {
  for (let i = 0; i < part.length; i++) if (s[p + i] !== part[i]) return false;
  return true;
}

const isLowerHex = (c: number) => (c >= 48 && c <= 57) || (c >= 97 && c <= 102);

/** The entries of a payload printed exactly as {"steps": [{"n": 1, "hash": "<64 hex>"}, ...]}, else undefined. */
function printedEntries(s: Uint8Array, start: number, end: number): StepEntry[] | undefined {
  if (!at(s, start, STEPS_OPEN)) return undefined;
  const entries: StepEntry[] = [];
  let p = start + STEPS_OPEN.length;
  if (s[p] === 93) return s[p + 1] === 125 && p + 2 === end ? entries : undefined; // ]}
  for (;;) {
    if (!at(s, p, N_OPEN)) return undefined;
    p += N_OPEN.length;
    let n = 0;
    const digits = p;
    for (; (s[p] as number) >= 48 && (s[p] as number) <= 57; p++) n = n * 10 + (s[p] as number) - 48;
    if (p === digits || p - digits > 15 || (s[digits] === 48 && p - digits > 1) || !at(s, p, HASH_OPEN)) return undefined;
    p += HASH_OPEN.length;
    for (let i = 0; i < 64; i++) if (!isLowerHex(s[p + i] as number)) return undefined;
    if (s[p + 64] !== 34 || s[p + 65] !== 125) return undefined; // "}
    entries.push({ n, hash: utf8Decoder.decode(s.subarray(p, p + 64)) });
    p += 66;
    if (s[p] === 93) return s[p + 1] === 125 && p + 2 === end ? entries : undefined; // ]}
    if (s[p] !== 44 || s[p + 1] !== 32) return undefined; // ,
    p += 2;
  }
}

/** The entries a steps.logged payload carries (what JSON.parse(payload).steps holds). */
function payloadEntries(s: Uint8Array, start: number, end: number): StepEntry[] {
  const printed = printedEntries(s, start, end);
  if (printed) return printed;
  const { steps } = JSON.parse(utf8Decoder.decode(s.subarray(start, end))) as { steps?: StepEntry[] };
  return steps ?? [];
}

/** Whether the next element of the row facts reads is the literal "steps.logged". */
function isStepsLogged(): boolean {
  facts.more();
  const start = facts.position;
  facts.skip();
  return facts.position - start === STEPS_LOGGED.length && at(facts.source, start, STEPS_LOGGED);
}

/** The step entries the page's steps.logged events carry, in event order (the rows' members: verify-read.ts readEventPage). */
export function eventFacts(rows: ByteRows): EventFacts {
  const found: EventFacts = { covered: [], stepsLogged: new Array(rowCount(rows)) };
  let lastId: Uint8Array | undefined;
  let episodeId: string | null = null;
  for (let i = 0; i < rowCount(rows); i++) {
    facts.begin(rows.bytes, rows.starts[i], rows.ends[i], rows.wellFormed === true);
    facts.enterArray();
    facts.more();
    facts.skip(); // createdAt
    facts.more();
    const idStart = facts.position;
    const s = facts.source;
    if (facts.isNull()) {
      episodeId = null;
      lastId = undefined;
    } else if (!(lastId && s[idStart + lastId.length] === 44 && at(s, idStart, lastId))) {
      episodeId = facts.stringValue();
      lastId = s.slice(idStart, facts.position);
    } else facts.skip(); // the previous event's episode
    facts.more();
    const payload = facts.position;
    facts.skip();
    const payloadEnd = facts.position;
    for (let skipped = 0; skipped < 2; skipped++) {
      facts.more();
      facts.skip(); // seq, tenantId
    }
    const stepsLogged = isStepsLogged();
    found.stepsLogged[i] = stepsLogged;
    if (!stepsLogged || !episodeId) continue;
    for (const entry of payloadEntries(s, payload, payloadEnd)) found.covered.push({ event: i, episodeId, n: entry.n, hash: entry.hash });
  }
  return found;
}
