// chainOfRows (src/ledger/verify-chain.ts), the chain check of verifyLedger straight from event
// rows' JSON text, against verifyChain on the same rows parsed: it accepts an untouched page, and it
// never accepts a page verifyChain refuses, whatever byte of it is changed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ByteRows } from '../../src/ledger/copy-rows.ts';
import { chainHash, GENESIS_HASH, type StoredLedgerEvent } from '../../src/ledger/hash.ts';
import { verifyChain } from '../../src/ledger/verify.ts';
import { chainOfRows } from '../../src/ledger/verify-chain.ts';

const tenantId = '5f0c6b7e-3d2a-4c1b-9e8f-7a6b5c4d3e2f';
const episodeId = '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9';
const utf8 = new TextEncoder();

/** A chained page of events from seq 1 with the given payloads. */
function ledger(payloads: unknown[]): StoredLedgerEvent[] {
  let prevHash = GENESIS_HASH;
  return payloads.map((payload, i) => {
    const entry = {
      tenantId,
      seq: i + 1,
      type: 'steps.logged',
      episodeId: i % 2 ? null : episodeId,
      workItemId: null,
      payload,
      createdAt: '2026-11-27T10:00:00.000Z',
    };
    const hash = chainHash(prevHash, entry);
    const event = { ...entry, prevHash, hash };
    prevHash = hash;
    return event;
  });
}

/** Event rows as readEventPage gets them (members in RFC 8785 order, seq as text), spaced as PostgreSQL prints. */
const rowText = (e: StoredLedgerEvent): string =>
  `[${[e.createdAt, e.episodeId, e.payload, String(e.seq), e.tenantId, e.type, e.workItemId, e.prevHash, e.hash].map((v) => JSON.stringify(v)).join(', ')}]`;

function byteRows(texts: string[]): ByteRows {
  const parts = texts.map((t) => utf8.encode(t));
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  const rows: ByteRows = { bytes, starts: [], ends: [] };
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    rows.starts.push(at);
    rows.ends.push((at += part.length));
  }
  return rows;
}

/** verifyChain's verdict on the rows parsed as eventAt parses them; false when one is not JSON. */
function verifyChainAccepts(texts: string[]): boolean {
  try {
    const events = texts.map((t) => {
      const r = JSON.parse(t) as unknown[];
      return { createdAt: r[0], episodeId: r[1], payload: r[2], seq: Number(r[3]), tenantId: r[4], type: r[5], workItemId: r[6], prevHash: r[7], hash: r[8] };
    });
    return verifyChain(events as StoredLedgerEvent[], { expectedPrevHash: GENESIS_HASH, expectedFirstSeq: 1, tenantId }).ok;
  } catch {
    return false;
  }
}

const start = { seq: 1, prevHash: GENESIS_HASH, tenantId };
const payloads = fc.array(fc.jsonValue({ maxDepth: 3 }), { minLength: 1, maxLength: 4 });

describe('chainOfRows', () => {
  it('accepts an untouched page, with every event hash', () => {
    fc.assert(
      fc.property(payloads, (values) => {
        const events = ledger(values);
        const index = chainOfRows(byteRows(events.map(rowText)), start);
        expect(index?.count).toBe(events.length);
        expect(Buffer.from(index?.hashes ?? []).toString('hex')).toBe(events.map((e) => e.hash).join(''));
      }),
      { numRuns: 100 },
    );
  });

  it('never accepts a page verifyChain refuses, whichever byte is changed', () => {
    fc.assert(
      fc.property(payloads, fc.nat(), fc.integer({ min: 32, max: 126 }), (values, where, code) => {
        const texts = ledger(values).map(rowText);
        const row = where % texts.length;
        const text = texts[row] as string;
        const at = Math.floor(where / texts.length) % text.length;
        texts[row] = text.slice(0, at) + String.fromCharCode(code) + text.slice(at + 1);
        if (chainOfRows(byteRows(texts), start)) expect(verifyChainAccepts(texts)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });
});
