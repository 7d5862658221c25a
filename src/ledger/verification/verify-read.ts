// The reads of a stored-range verification (verify-range.ts), shaped for throughput: only the
// columns that are hashed or compared, each row one binary COPY row kept as bytes in one array per
// read (copy-rows.ts, copy-fields.ts): no row is parsed into values or made a string. Binary
// columns cost PostgreSQL about half the CPU of the same rows printed as JSON text
// (json_build_array, to_char of the time), and the checks write each row's canonical bytes
// straight from them: event rows' chain input (verify-chain.ts; eventAt parses one when needed),
// step rows' content (step-check.ts). The step rows of a page are read by runs of step numbers
// per episode (a few index range scans, not one lookup per step: step-runs.ts).
// verify-range.ts starts these reads pages ahead of its checks.
import type pg from 'pg';
import type { StoredLedgerEvent } from '../format/hash.ts';
import { STEP_CANONICAL_FIELDS } from '../format/step-hash.ts';
import { FieldReader, uuidString } from './copy-fields.ts';
import { copyFieldRows, type FieldRows, sqlInteger, sqlUuid } from './copy-rows.ts';
import { runsOf, type StepKeys, type StoredSteps, storedSteps } from './step-runs.ts';

/** The fields of an event row as readEventPage selects them, by position. */
export const EVENT_FIELD = { createdAt: 0, episodeId: 1, payload: 2, seq: 3, type: 4, workItemId: 5, prevHash: 6, hash: 7 } as const;
export const EVENT_FIELDS = 8;

/**
 * Events with afterSeq < seq (<= toSeq), oldest first, at most `limit`, each a binary COPY row
 * [created_at, episode_id, payload, seq, type, work_item_id, prev_hash, hash]: the hashed members
 * in RFC 8785 order (that of canonicalEntryBytes; tenantId is the one asked for), so that the chain
 * input is written in one pass (verify-chain.ts), then the two hashes.
 */
export function readEventPage(db: pg.Pool, tenantId: string, afterSeq: number, toSeq: number | null, limit: number): Promise<FieldRows> {
  const upTo = toSeq === null ? '' : ` AND seq <= ${sqlInteger(toSeq)}`;
  return copyFieldRows(
    db,
    `SELECT created_at, episode_id, payload, seq, type, work_item_id, prev_hash, hash
       FROM ledger_events WHERE tenant_id = ${sqlUuid(tenantId)} AND seq > ${sqlInteger(afterSeq)}${upTo} ORDER BY seq LIMIT ${sqlInteger(limit)}`,
    EVENT_FIELDS,
    limit * 512,
  );
}

const fields = new FieldReader(EVENT_FIELDS);
const utf8Decoder = new TextDecoder();
const text = (): string => utf8Decoder.decode(fields.bytes());
const uuidOrNull = (): string | null => (fields.isNull ? null : uuidString(fields));

/** The seq of event row i. */
export function seqAt(rows: FieldRows, i: number): number {
  fields.begin(rows.bytes, rows.starts[i] as number, rows.ends[i] as number);
  fields.field(EVENT_FIELD.seq);
  return fields.int64();
}

/** Event row i of tenant `tenantId` as a stored event, each member as the driver's parse of its column gives it. */
export function eventAt(rows: FieldRows, i: number, tenantId: string): StoredLedgerEvent {
  fields.begin(rows.bytes, rows.starts[i] as number, rows.ends[i] as number);
  fields.next();
  const createdAt = new Date(fields.millis()).toISOString();
  fields.next();
  const episodeId = uuidOrNull();
  fields.next();
  fields.jsonbText();
  const payload: unknown = JSON.parse(utf8Decoder.decode(fields.bytes(1)));
  fields.next();
  const seq = fields.int64();
  fields.next();
  const type = text();
  fields.next();
  const workItemId = uuidOrNull();
  fields.next();
  const prevHash = text();
  fields.next();
  return { createdAt, episodeId, payload, seq, tenantId, type, workItemId, prevHash, hash: text() };
}

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
// Each member's column as step-check.ts reads it: the column itself, episode_id as text.
const STEP_COLUMNS = STEP_CANONICAL_FIELDS.map(({ field }) => (field === 'episodeId' ? 's.episode_id::text' : `s.${snake(field)}`)).join(', ');
/** run, step_number, content_hash, then the members. */
const STEP_FIELDS = 3 + STEP_CANONICAL_FIELDS.length;

/** A SQL array of uuids or integers, each checked (COPY takes no parameters: copy-rows.ts). */
const sqlArray = (values: readonly string[], type: 'uuid' | 'int'): string => `'{${values.join(',')}}'::${type}[]`;

/**
 * The stored rows of the given steps, by runs of step numbers (step-runs.ts), each its own binary
 * COPY row [run, step_number, content_hash, members...] in no particular order (the run and step
 * number place it); absent steps are absent.
 */
export async function readStepRows(db: pg.Pool, tenantId: string, keys: StepKeys): Promise<StoredSteps> {
  const runs = runsOf(keys);
  if (!runs.episodes.length) return storedSteps({ bytes: new Uint8Array(0), starts: [], ends: [] }, runs);
  const episodes = sqlArray(
    runs.episodes.map((id) => sqlUuid(id).slice(1, -1)),
    'uuid',
  );
  const [lo, hi] = [runs.lo, runs.hi].map((ns) => sqlArray(ns.map(sqlInteger), 'int'));
  const rows = await copyFieldRows(
    db,
    `SELECT (k.run - 1)::int4, s.step_number, s.content_hash, ${STEP_COLUMNS}
       FROM unnest(${episodes}, ${lo}, ${hi}) WITH ORDINALITY AS k(episode_id, lo, hi, run)
       JOIN steps s ON s.episode_id = k.episode_id AND s.step_number BETWEEN k.lo AND k.hi AND s.tenant_id = ${sqlUuid(tenantId)}`,
    STEP_FIELDS,
    keys.count * 1024,
  );
  return storedSteps(rows, runs);
}
