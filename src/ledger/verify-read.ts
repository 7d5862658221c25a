// The reads of a stored-range verification (verify-range.ts), shaped for throughput. Each row
// comes back as one JSON text (json_build_array) with only the columns that are hashed or
// compared, timestamps as text or epoch milliseconds (no Date parsed per row): an event row is
// parsed by one native JSON.parse, a third less CPU than the driver's per-column parsing, and a
// step row is not parsed at all, nor kept as a string: the page's step rows are written as UTF-8
// into one byte array as they arrive, off the JS heap that the collector copies, and each row's
// canonical bytes are written straight from it (json-text.ts) when it is checked. The step rows of a page are read by runs of step
// numbers per episode (a few index range scans, not one lookup per step). verify-range.ts starts
// these reads pages ahead of its checks.
import { Buffer } from 'node:buffer';
import type pg from 'pg';
import { Params, unnestAs } from '../db/sql.ts';
import { bytesHashIs, canonicalJson, canonicalString, type StoredLedgerEvent } from './hash.ts';
import { JsonBytesCanonicaliser } from './json-text.ts';
import { STEP_CANONICAL_FIELDS } from './step-hash.ts';

const CREATED_AT = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** Rows kept as UTF-8 JSON texts in one byte array: row i is bytes[starts[i]..starts[i + 1]). */
export interface ByteRows {
  bytes: Uint8Array;
  starts: number[];
}

/** The number of rows. */
export const rowCount = (rows: ByteRows): number => rows.starts.length - 1;

// An event row's members in RFC 8785 order (that of canonicalEntryBytes), so that its chain input
// is written in one pass (verify-chain.ts), then the two hashes.
export const EVENT_ROW = ['createdAt', 'episodeId', 'payload', 'seq', 'tenantId', 'type', 'workItemId', 'prevHash', 'hash'] as const;

/** Events with afterSeq < seq (<= toSeq), oldest first, at most `limit`, exactly as hashed: one EVENT_ROW text each. */
export async function readEventPage(db: pg.Pool, tenantId: string, afterSeq: number, toSeq: number | null, limit: number): Promise<ByteRows> {
  const p = new Params();
  const to = p.add(toSeq);
  const { arena, types } = byteArena(limit * 512);
  await db.query({
    text: `SELECT json_build_array(${CREATED_AT}, episode_id, payload, seq::text, tenant_id, type, work_item_id, prev_hash, hash) FROM ledger_events
            WHERE tenant_id = ${p.add(tenantId)} AND seq > ${p.add(afterSeq)} AND (${to}::bigint IS NULL OR seq <= ${to}) ORDER BY seq LIMIT ${p.add(limit)}`,
    values: p.values,
    rowMode: 'array',
    types,
  });
  return { bytes: arena.bytes, starts: [...arena.starts, arena.used] };
}

const utf8Decoder = new TextDecoder();

/** The JSON text of row i, parsed. jsonb values are embedded in it as their own text, so they parse to what the driver's JSON.parse of a jsonb column returns. */
function parseRow(rows: ByteRows, i: number): unknown[] {
  return JSON.parse(utf8Decoder.decode(rows.bytes.subarray(rows.starts[i], rows.starts[i + 1]))) as unknown[];
}

/** Event row i as a stored event; seq comes as text, parsed as the driver parses bigint. */
export function eventAt(rows: ByteRows, i: number): StoredLedgerEvent {
  const r = parseRow(rows, i);
  return {
    createdAt: r[0] as string,
    episodeId: r[1] as string | null,
    payload: r[2],
    seq: Number(r[3]),
    tenantId: r[4] as string,
    type: r[5] as string,
    workItemId: r[6] as string | null,
    prevHash: r[7] as string,
    hash: r[8] as string,
  };
}

/** A step an event covers: the episode and the step number. */
export interface StepKey {
  episodeId: string;
  n: number;
}

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const TIMES = new Set(['startedAt', 'endedAt']);
// Times as epoch milliseconds (the columns hold milliseconds): converted to ISO text only when set.
const STEP_COLUMNS = STEP_CANONICAL_FIELDS.map(({ field }) => {
  if (TIMES.has(field)) return `(extract(epoch FROM s.${snake(field)}) * 1000)::float8`;
  return field === 'cost' ? 's.cost::text' : `s.${snake(field)}`;
}).join(', ');
const IS_TIME = STEP_CANONICAL_FIELDS.map(({ field }) => TIMES.has(field));
const IS_OPTIONAL = STEP_CANONICAL_FIELDS.map(({ optional }) => optional);
const COST_INDEX = STEP_CANONICAL_FIELDS.findIndex(({ field }) => field === 'cost');
const utf8 = new TextEncoder();
// Each member's `"key":`, written before its value.
const KEYS = STEP_CANONICAL_FIELDS.map(({ field }) => utf8.encode(`${canonicalString(field)}:`));
/** Step numbers closer than this share one range scan; the rows between are read and ignored. */
const RUN_GAP = 8;
const MAX_INT4 = 2 ** 31 - 1;

/**
 * A page's stored step rows as PostgreSQL sent them, each one JSON text
 * [episode_id, step_number, content_hash, members...] in one byte array (row i is
 * bytes[starts[i]..starts[i + 1])), and the row index of each step by episode id then number.
 */
export interface StoredSteps extends ByteRows {
  rows: Map<string, Map<number, number>>;
}

/** What checking a step row against its logged hash found. */
export type StepCheck = 'ok' | 'content-differs' | 'column-differs';

const writer = new JsonBytesCanonicaliser();

/** Positions the writer at the members of row `index`; true when its content_hash column is `hash`. */
function enterStepRow(steps: StoredSteps, index: number, hash: unknown): boolean {
  writer.begin(steps.bytes, steps.starts[index], steps.starts[index + 1]);
  writer.enterArray();
  for (let i = 0; i < 2; i++) {
    if (!writer.more()) throw new SyntaxError('step row ends early');
    writer.skip(); // episode_id, step_number
  }
  if (!writer.more()) throw new SyntaxError('step row ends early');
  // A hash column is lowercase hex: a literal that is `hash` only once unescaped holds no hash.
  return writer.literalIs(hash);
}

/**
 * Row `index` recomputed (§3.2) and its content_hash column, each compared with the logged hash:
 * the canonical bytes are written straight from PostgreSQL's JSON text (json-text.ts) and hashed
 * where they lie. Times (epoch milliseconds) become ISO text and cost (float8 as text) a number,
 * as the driver's Date and parseFloat made them.
 */
export function checkStepRow(steps: StoredSteps, index: number, hash: unknown): StepCheck {
  const columnIs = enterStepRow(steps, index, hash);
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
  return columnIs ? 'ok' : 'column-differs';
}

/**
 * A type parser that writes each value's UTF-8 into one growing byte array and returns its index:
 * the driver's string of a row dies at once, young, instead of living in the heap (and being
 * copied by every scavenge) until the page is checked.
 */
function byteArena(sizeHint: number) {
  const arena = { bytes: Buffer.allocUnsafeSlow(sizeHint), starts: [] as number[], used: 0 };
  const keep = (text: string): number => {
    if (arena.used + text.length * 3 > arena.bytes.length) {
      const grown = Buffer.allocUnsafeSlow((arena.used + text.length * 3) * 2);
      arena.bytes.copy(grown, 0, 0, arena.used);
      arena.bytes = grown;
    }
    arena.starts.push(arena.used);
    arena.used += arena.bytes.write(text, arena.used); // no view made per row, as encodeInto needs
    return arena.starts.length - 1;
  };
  return { arena, types: { getTypeParser: () => keep } };
}

/** The keys as runs [lo, hi] of step numbers per episode, in key order. */
function runsOf(keys: readonly StepKey[]): { episodes: string[]; lo: number[]; hi: number[] } {
  const runs = { episodes: [] as string[], lo: [] as number[], hi: [] as number[] };
  const open = new Map<string, number>(); // episode -> index of its latest run
  for (const { episodeId, n } of keys) {
    const at = open.get(episodeId);
    if (at !== undefined) {
      const hi = runs.hi[at] ?? 0;
      if (n >= (runs.lo[at] ?? 0) && n <= hi) continue;
      if (n > hi && n <= hi + RUN_GAP) {
        runs.hi[at] = n;
        continue;
      }
    }
    open.set(episodeId, runs.episodes.length);
    runs.episodes.push(episodeId);
    runs.lo.push(n);
    runs.hi.push(n);
  }
  return runs;
}

/** The stored rows of the given steps; absent steps are absent. */
export async function readStepRows(db: pg.Pool, tenantId: string, keys: readonly StepKey[]): Promise<StoredSteps> {
  const rows = new Map<string, Map<number, number>>();
  if (!keys.length) return { bytes: new Uint8Array(0), starts: [0], rows };
  // A number the step_number column cannot hold names no row: left out, so it is reported missing.
  const runs = runsOf(keys.filter((k) => Number.isSafeInteger(k.n) && Math.abs(k.n) <= MAX_INT4));
  const p = new Params();
  const { arena, types } = byteArena(keys.length * 1024);
  await db.query({
    text: `SELECT json_build_array(s.episode_id, s.step_number, s.content_hash, ${STEP_COLUMNS})
             FROM ${unnestAs(p, 'k', { episode_id: [runs.episodes, 'uuid'], lo: [runs.lo, 'int'], hi: [runs.hi, 'int'] })}
             JOIN steps s ON s.episode_id = k.episode_id AND s.step_number BETWEEN k.lo AND k.hi
            WHERE s.tenant_id = ${p.add(tenantId)}`,
    values: p.values,
    rowMode: 'array',
    types,
  });
  const steps = { bytes: arena.bytes, starts: [...arena.starts, arena.used], rows };
  for (let i = 0; i < arena.starts.length; i++) {
    writer.begin(steps.bytes, steps.starts[i], steps.starts[i + 1]);
    writer.enterArray();
    writer.more();
    const episodeId = writer.stringValue();
    writer.more();
    const n = writer.numberValue();
    let byNumber = rows.get(episodeId);
    if (!byNumber) rows.set(episodeId, (byNumber = new Map()));
    byNumber.set(n, i);
  }
  return steps;
}
