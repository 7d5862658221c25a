// The reads of a stored-range verification (verify-range.ts), shaped for throughput: only the
// columns that are hashed or compared, timestamps as text or binary (no Date
// parsed per row), kept as bytes in one array per read (copy-rows.ts): no row is parsed into
// values or made a string. An event row comes back as one JSON text (json_build_array).
// Event rows are chain-checked from the bytes (verify-chain.ts; eventAt parses one when needed),
// many to a COPY row (copy-rows.ts). Step rows come as separate binary columns instead (one COPY
// row each): PostgreSQL prints them in half the CPU json_build_array and string_agg took, and each
// step row's canonical bytes are written straight from them (step-check.ts) when it is checked.
// The step rows of a page are read by runs of step numbers per episode (a few index range scans,
// not one lookup per step: step-runs.ts).
// verify-range.ts starts these reads pages ahead of its checks.
import type pg from 'pg';
import { type ByteRows, copyFieldRows, copyRows, sqlInteger, sqlUuid } from './copy-rows.ts';
import type { StoredLedgerEvent } from './hash.ts';
import { STEP_CANONICAL_FIELDS } from './step-hash.ts';
import { runsOf, type StepKey, type StoredSteps, storedSteps } from './step-runs.ts';

const CREATED_AT = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** Texts per COPY row of an event page (about 256 KB of the realistic mix): few driver messages, no large one. */
const EVENTS_PER_COPY_ROW = 256;

/**
 * Events with afterSeq < seq (<= toSeq), oldest first, at most `limit`, exactly as hashed, each
 * the JSON text [createdAt, episodeId, payload, seq, tenantId, type, workItemId, prevHash, hash]:
 * the members in RFC 8785 order (that of canonicalEntryBytes), so that the chain input is written
 * in one pass (verify-chain.ts), then the two hashes. EVENTS_PER_COPY_ROW texts to a COPY row.
 */
export function readEventPage(db: pg.Pool, tenantId: string, afterSeq: number, toSeq: number | null, limit: number): Promise<ByteRows> {
  const upTo = toSeq === null ? '' : ` AND seq <= ${sqlInteger(toSeq)}`;
  const group = `(e.seq - ${sqlInteger(afterSeq)} - 1) / ${EVENTS_PER_COPY_ROW}`;
  return copyRows(
    db,
    `SELECT string_agg(e.text, E'\\n' ORDER BY e.seq) FROM (
       SELECT seq, json_build_array(${CREATED_AT}, episode_id, payload, seq::text, tenant_id, type, work_item_id, prev_hash, hash)::text AS text
         FROM ledger_events WHERE tenant_id = ${sqlUuid(tenantId)} AND seq > ${sqlInteger(afterSeq)}${upTo} ORDER BY seq LIMIT ${sqlInteger(limit)}
     ) e GROUP BY ${group} ORDER BY ${group}`,
    limit * 512,
  );
}

const utf8Decoder = new TextDecoder();

/** The JSON text of row i, parsed. jsonb values are embedded in it as their own text, so they parse to what the driver's JSON.parse of a jsonb column returns. */
function parseRow(rows: ByteRows, i: number): unknown[] {
  return JSON.parse(utf8Decoder.decode(rows.bytes.subarray(rows.starts[i], rows.ends[i]))) as unknown[];
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
export async function readStepRows(db: pg.Pool, tenantId: string, keys: readonly StepKey[]): Promise<StoredSteps> {
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
    keys.length * 1024,
  );
  return storedSteps(rows, runs);
}
