// Rows in PostgreSQL's binary COPY format, as the verification's reads receive them
// (src/ledger/verification/copy-rows.ts, copy-fields.ts): per row a 16-bit field count, then per field a 32-bit
// length (-1: NULL) and its bytes. Event rows carry readEventPage's columns (src/ledger/verification/verify-read.ts).

import type { StoredLedgerEvent } from '../../src/ledger/format/hash.ts';
import type { FieldRows } from '../../src/ledger/verification/copy-rows.ts';

const utf8 = new TextEncoder();
/** 2000-01-01T00:00:00Z in Unix milliseconds: PostgreSQL's epoch. */
const PG_EPOCH_MS = 946_684_800_000;

/** One field's bytes, or null for NULL. */
export type Field = Uint8Array | null;

export const text = (s: string): Field => utf8.encode(s);

export function int8(n: number | bigint): Field {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigInt64(0, BigInt(n));
  return b;
}

/** A timestamptz: microseconds since 2000-01-01. */
export const timestamptz = (iso: string): Field => int8(BigInt(Date.parse(iso) - PG_EPOCH_MS) * 1000n);

export function uuid(id: string | null): Field {
  if (id === null) return null;
  const hex = id.replaceAll('-', '');
  return Uint8Array.from({ length: 16 }, (_, i) => Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16));
}

/** A jsonb field: version byte 1, then the text. */
export function jsonb(json: string): Field {
  const body = utf8.encode(json);
  const b = new Uint8Array(1 + body.length);
  b[0] = 1;
  b.set(body, 1);
  return b;
}

/** JSON as jsonb_out spaces it (", " and ": "); member order as given (the canonicaliser sorts). */
export function pgJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pgJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pgJson(v)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value);
}

/** One binary COPY row of the given fields. */
export function copyRow(fields: Field[]): Uint8Array {
  const size = 2 + fields.reduce((n, f) => n + 4 + (f?.length ?? 0), 0);
  const row = new Uint8Array(size);
  const view = new DataView(row.buffer);
  view.setInt16(0, fields.length);
  let at = 2;
  for (const f of fields) {
    view.setInt32(at, f ? f.length : -1);
    at += 4;
    if (f) row.set(f, at);
    at += f?.length ?? 0;
  }
  return row;
}

/** Rows back to back in one array, as copyFieldRows returns them. */
export function fieldRows(rows: Uint8Array[]): FieldRows {
  const bytes = new Uint8Array(rows.reduce((n, r) => n + r.length, 0));
  const out: FieldRows = { bytes, starts: [], ends: [] };
  let at = 0;
  for (const row of rows) {
    bytes.set(row, at);
    out.starts.push(at);
    out.ends.push((at += row.length));
  }
  return out;
}

/** The fields of an event row (readEventPage's columns); the payload as jsonb_out would print it unless given. */
export function eventFields(e: StoredLedgerEvent, payloadText = pgJson(e.payload)): Field[] {
  return [timestamptz(e.createdAt), uuid(e.episodeId), jsonb(payloadText), int8(e.seq), text(e.type), uuid(e.workItemId), text(e.prevHash), text(e.hash)];
}

/** An event row as readEventPage reads it (eventFields' fields as one binary COPY row). */
export const eventRow = (e: StoredLedgerEvent, payloadText?: string): Uint8Array => copyRow(eventFields(e, payloadText));
