// chainOfPage (src/ledger/verify-chain.ts), the chain check of verifyLedger straight from the event
// rows' binary columns, against verifyChain on the same rows parsed (eventAt): it accepts an
// untouched page with every event's hash and the facts of its steps.logged events, it never accepts
// a page verifyChain refuses whichever byte of it is changed, and it leaves the join to the page
// before (its first prevHash) and the page's seq to its caller only as far as it says.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FieldRows } from '../../src/ledger/copy-rows.ts';
import { eventFacts } from '../../src/ledger/event-facts.ts';
import { chainHash, GENESIS_HASH, type StoredLedgerEvent } from '../../src/ledger/hash.ts';
import { verifyChain } from '../../src/ledger/verify.ts';
import { chainOfPage } from '../../src/ledger/verify-chain.ts';
import { eventAt } from '../../src/ledger/verify-read.ts';
import { copyRow, eventFields, fieldRows } from '../support/copy-binary.ts';

const tenantId = '5f0c6b7e-3d2a-4c1b-9e8f-7a6b5c4d3e2f';
const episodeId = '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9';

/** A chained page of events from `firstSeq` after `prevHash`: steps.logged events on even seqs. */
function ledger(payloads: unknown[], firstSeq = 1, prevHash = GENESIS_HASH): StoredLedgerEvent[] {
  let prev = prevHash;
  return payloads.map((payload, i) => {
    const entry = {
      tenantId,
      seq: firstSeq + i,
      type: i % 2 ? 'checkpoint.saved' : 'steps.logged',
      episodeId: i % 3 === 2 ? null : episodeId,
      workItemId: i % 4 === 3 ? '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d' : null,
      payload,
      createdAt: new Date(Date.UTC(2026, 10, 27, 10) + i * 1234.5).toISOString(),
    };
    const hash = chainHash(prev, entry);
    const event = { ...entry, prevHash: prev, hash };
    prev = hash;
    return event;
  });
}

const rowsOf = (events: StoredLedgerEvent[]): Uint8Array[] => events.map((e) => copyRow(eventFields(e)));

/** verifyChain's verdict on the rows parsed as eventAt parses them; false when one cannot be parsed. */
function verifyChainAccepts(rows: FieldRows, firstSeq = 1, prevHash = GENESIS_HASH): boolean {
  try {
    const events = rows.starts.map((_, i) => eventAt(rows, i, tenantId));
    return verifyChain(events, { expectedPrevHash: prevHash, expectedFirstSeq: firstSeq, tenantId }).ok;
  } catch {
    return false;
  }
}

const stepsPayload = fc
  .array(fc.record({ n: fc.nat({ max: 500 }), hash: fc.constantFrom(GENESIS_HASH, 'ab'.repeat(32)) }), { maxLength: 3 })
  .map((steps) => ({ steps }));
const payloads = fc.array(fc.oneof(stepsPayload, fc.jsonValue({ maxDepth: 3 })), { minLength: 1, maxLength: 5 });

describe('chainOfPage', () => {
  it('accepts an untouched page, with every event hash, its first prevHash and the facts eventFacts reads', () => {
    fc.assert(
      fc.property(payloads, fc.boolean(), (values, fromGenesis) => {
        const firstSeq = fromGenesis ? 1 : 41;
        const prevHash = fromGenesis ? GENESIS_HASH : 'cd'.repeat(32);
        const events = ledger(values, firstSeq, prevHash);
        const rows = fieldRows(rowsOf(events));
        const page = chainOfPage(rows, firstSeq, tenantId);
        expect(page?.index).toMatchObject({ firstSeq, count: events.length });
        expect(Buffer.from(page?.index.hashes ?? []).toString('hex')).toBe(events.map((e) => e.hash).join(''));
        expect(Buffer.from(page?.firstPrev ?? []).toString('hex')).toBe(prevHash);
        expect(page?.facts).toEqual(eventFacts(rows));
      }),
      { numRuns: 150 },
    );
  });

  it('never accepts a page verifyChain refuses, whichever byte is changed', () => {
    fc.assert(
      fc.property(payloads, fc.nat(), fc.integer({ min: 0, max: 255 }), (values, where, byte) => {
        const rows = rowsOf(ledger(values));
        const r = where % rows.length;
        const row = rows[r] as Uint8Array;
        row[Math.floor(where / rows.length) % row.length] = byte;
        const page = fieldRows(rows);
        if (chainOfPage(page, 1, tenantId)) expect(verifyChainAccepts(page)).toBe(true);
      }),
      { numRuns: 600 },
    );
  });

  it('refuses a page whose seqs are not firstSeq, firstSeq + 1, ...', () => {
    const rows = fieldRows(rowsOf(ledger([{ a: 1 }, { b: 2 }])));
    expect(chainOfPage(rows, 1, tenantId)).toBeDefined();
    expect(chainOfPage(rows, 2, tenantId)).toBeUndefined();
  });

  it('refuses a time whose ISO text has no four-digit year, which verifyChain names', () => {
    const [event] = ledger([{ a: 1 }]) as [StoredLedgerEvent];
    const late = { ...event, createdAt: '+010000-01-01T00:00:00.000Z' };
    late.hash = chainHash(GENESIS_HASH, late);
    const fields = eventFields({ ...late, createdAt: '2026-01-01T00:00:00.000Z' });
    fields[0] = eventFields(event)[0] ?? null;
    const micros = BigInt(Date.parse('+010000-01-01T00:00:00.000Z') - Date.UTC(2000, 0, 1)) * 1000n;
    const time = new Uint8Array(8);
    new DataView(time.buffer).setBigInt64(0, micros);
    fields[0] = time;
    const rows = fieldRows([copyRow(fields)]);
    expect(chainOfPage(rows, 1, tenantId)).toBeUndefined();
    expect(verifyChainAccepts(rows)).toBe(false);
  });
});
