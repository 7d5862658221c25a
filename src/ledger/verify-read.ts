// The reads of a stored-range verification (verify-range.ts), shaped for throughput. Each row
// comes back as one JSON text (json_build_array) with only the columns that are hashed or
// compared, timestamps as text or epoch milliseconds (no Date parsed per row): an event row is
// parsed by one native JSON.parse, a third less CPU than the driver's per-column parsing, and a
// step row is not parsed at all: its canonical text is written straight from PostgreSQL's JSON
// text (json-text.ts) when it is checked. The step rows of a page are read by runs of step
// numbers per episode (a few index range scans, not one lookup per step). verify-range.ts starts
// these reads pages ahead of its checks.
import type pg from 'pg';
import { must } from '../core/must.ts';
import { Params, unnestAs } from '../db/sql.ts';
import { canonicalJson, type StoredLedgerEvent } from './hash.ts';
import { decodeString, JsonTextReader } from './json-text.ts';
import { STEP_CANONICAL_FIELDS, stepCanonicalFromTexts } from './step-hash.ts';

const CREATED_AT = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

type Row = unknown[];

// The rows' one text column as it comes. jsonb values are embedded in it as their own text, so
// they parse to what the driver's JSON.parse of a jsonb column returns; seq and cost come as text,
// parsed as the driver parses bigint and float8.
const TEXT_ONLY = { getTypeParser: () => (text: string) => text };

/** Events with afterSeq < seq (<= toSeq), oldest first, at most `limit`, exactly as hashed. */
export async function readEventPage(db: pg.Pool, tenantId: string, afterSeq: number, toSeq: number | null, limit: number): Promise<StoredLedgerEvent[]> {
  const p = new Params();
  const to = p.add(toSeq);
  const { rows } = await db.query<[string]>({
    text: `SELECT json_build_array(tenant_id, seq::text, type, episode_id, work_item_id, payload, ${CREATED_AT}, prev_hash, hash)::text FROM ledger_events
            WHERE tenant_id = ${p.add(tenantId)} AND seq > ${p.add(afterSeq)} AND (${to}::bigint IS NULL OR seq <= ${to}) ORDER BY seq LIMIT ${p.add(limit)}`,
    values: p.values,
    rowMode: 'array',
    types: TEXT_ONLY,
  });
  const events: StoredLedgerEvent[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = JSON.parse((rows[i] as [string])[0]) as Row;
    events[i] = {
      tenantId: r[0] as string,
      seq: Number(r[1]),
      type: r[2] as string,
      episodeId: r[3] as string | null,
      workItemId: r[4] as string | null,
      payload: r[5],
      createdAt: r[6] as string,
      prevHash: r[7] as string,
      hash: r[8] as string,
    };
  }
  return events;
}

/** A step an event covers: the episode and the step number. */
export interface StepKey {
  episodeId: string;
  n: number;
}

/**
 * A stored step row as PostgreSQL printed it: [content_hash, members...] (storedStepText reads it).
 * Kept as that one text until it is checked, so that no value of the row outlives its check.
 */
export type StoredStep = string;

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const TIMES = new Set(['startedAt', 'endedAt']);
// Times as epoch milliseconds (the columns hold milliseconds): converted to ISO text only when set.
const STEP_COLUMNS = STEP_CANONICAL_FIELDS.map(({ field }) => {
  if (TIMES.has(field)) return `(extract(epoch FROM s.${snake(field)}) * 1000)::float8`;
  return field === 'cost' ? 's.cost::text' : `s.${snake(field)}`;
}).join(', ');
const IS_TIME = STEP_CANONICAL_FIELDS.map(({ field }) => TIMES.has(field));
const COST_INDEX = STEP_CANONICAL_FIELDS.findIndex(({ field }) => field === 'cost');
/** Step numbers closer than this share one range scan; the rows between are read and ignored. */
const RUN_GAP = 8;
const MAX_INT4 = 2 ** 31 - 1;

const memberTexts: string[] = new Array(STEP_CANONICAL_FIELDS.length);

/**
 * A StoredStep to its content_hash column and the canonical text of its hashed members, straight
 * from PostgreSQL's JSON text (json-text.ts): the row is never parsed into values. Times (epoch
 * milliseconds) become ISO text and cost (float8 as text) a number, as the driver's Date and
 * parseFloat made them.
 */
export function storedStepText(row: StoredStep): { contentHash: string; canonical: string } {
  const reader = new JsonTextReader(row);
  reader.enterArray();
  const contentHash = decodeString(must(reader.next()));
  for (let i = 0; i < memberTexts.length; i++) {
    const t = must(reader.next());
    if (t === 'null') memberTexts[i] = t;
    else if (IS_TIME[i]) memberTexts[i] = `"${new Date(Number(t)).toISOString()}"`;
    else if (i === COST_INDEX) memberTexts[i] = canonicalJson(Number.parseFloat(decodeString(t)));
    else memberTexts[i] = t;
  }
  return { contentHash, canonical: stepCanonicalFromTexts(memberTexts) };
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

/** The stored rows of the given steps, by episode id then step number; absent steps are absent. */
export async function readStepRows(db: pg.Pool, tenantId: string, keys: readonly StepKey[]): Promise<Map<string, Map<number, StoredStep>>> {
  const found = new Map<string, Map<number, StoredStep>>();
  if (!keys.length) return found;
  // A number the step_number column cannot hold names no row: left out, so it is reported missing.
  const runs = runsOf(keys.filter((k) => Number.isSafeInteger(k.n) && Math.abs(k.n) <= MAX_INT4));
  const p = new Params();
  const { rows } = await db.query<[string, string, string]>({
    text: `SELECT s.episode_id, s.step_number, json_build_array(s.content_hash, ${STEP_COLUMNS})::text
             FROM ${unnestAs(p, 'k', { episode_id: [runs.episodes, 'uuid'], lo: [runs.lo, 'int'], hi: [runs.hi, 'int'] })}
             JOIN steps s ON s.episode_id = k.episode_id AND s.step_number BETWEEN k.lo AND k.hi
            WHERE s.tenant_id = ${p.add(tenantId)}`,
    values: p.values,
    rowMode: 'array',
    types: TEXT_ONLY,
  });
  for (const [episodeId, n, row] of rows) {
    let steps = found.get(episodeId);
    if (!steps) found.set(episodeId, (steps = new Map()));
    steps.set(Number(n), row);
  }
  return found;
}
