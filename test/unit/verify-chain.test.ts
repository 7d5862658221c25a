// chainOfPage (src/ledger/verification/verify-chain.ts), the chain check of verifyLedger straight from the event
// rows' binary COPY columns, against verifyChain (src/ledger/proofs/verify.ts) on the same rows parsed as
// eventAt parses them: it accepts an untouched page, giving every event's hash, the hash its first
// event chains from (whatever it is: the caller joins it to the page before) and the facts of its
// steps.logged events; it refuses a seq other than firstSeq + i; and whichever byte of a row is
// changed, in a field's data or its length header, it never accepts a page verifyChain refuses
// (an event eventAt cannot parse counts as refused).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chainHash, GENESIS_HASH, type StoredLedgerEvent } from '../../src/ledger/format/hash.ts';
import { verifyChain } from '../../src/ledger/proofs/verify.ts';
import type { FieldRows } from '../../src/ledger/verification/copy-rows.ts';
import { eventFacts } from '../../src/ledger/verification/event-facts.ts';
import { chainOfPage } from '../../src/ledger/verification/verify-chain.ts';
import { EVENT_FIELDS, eventAt } from '../../src/ledger/verification/verify-read.ts';
import { eventRow, fieldRows, pgJson } from '../support/copy-binary.ts';

const tenantId = '5f0c6b7e-3d2a-4c1b-9e8f-7a6b5c4d3e2f';
const episodeId = '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9';
const workItemId = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const HASH = 'f9664b1223a00938fee3e083d860d8398c5ac4262371a7f9bfcfb5de4e64374a';
const toHex = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? []).toString('hex');

interface Content {
  type: string;
  payload: unknown;
}

/** The contents chained from `prevHash`, event i with seq seqs[i] (firstSeq + i unless given); every third of no episode. */
function ledger(contents: Content[], firstSeq = 1, prevHash = GENESIS_HASH, seqs = contents.map((_, i) => firstSeq + i)): StoredLedgerEvent[] {
  let prev = prevHash;
  return contents.map(({ type, payload }, i) => {
    const entry = {
      tenantId,
      seq: seqs[i] as number,
      type,
      episodeId: i % 3 === 2 ? null : episodeId,
      workItemId: i % 4 === 3 ? workItemId : null,
      payload,
      createdAt: new Date(Date.UTC(2026, 10, 27, 10) + i * 1234.5).toISOString(),
    };
    const event = { ...entry, prevHash: prev, hash: chainHash(prev, entry) };
    prev = event.hash;
    return event;
  });
}

/** The events' rows, each payload printed as jsonb_out prints it or (compact) as JSON.stringify does. */
const pageOf = (events: StoredLedgerEvent[], compact = false): FieldRows =>
  fieldRows(events.map((e) => eventRow(e, compact ? JSON.stringify(e.payload) : pgJson(e.payload))));

/** verifyChain's verdict on the rows as eventAt parses them; false when one cannot be parsed. */
function verifyChainAccepts(rows: FieldRows, firstSeq = 1, prevHash = GENESIS_HASH): boolean {
  try {
    const events = rows.starts.map((_, i) => eventAt(rows, i, tenantId));
    return verifyChain(events, { expectedPrevHash: prevHash, expectedFirstSeq: firstSeq, tenantId }).ok;
  } catch {
    return false;
  }
}

/** The steps the page's steps.logged events of an episode cover, as their payloads say. */
function coveredOf(events: StoredLedgerEvent[]) {
  return events.flatMap((e, event) => {
    if (e.type !== 'steps.logged' || !e.episodeId) return [];
    return (e.payload as { steps: { n: number; hash: string }[] }).steps.map(({ n, hash }) => ({ event, episodeId: e.episodeId, n, hash }));
  });
}

/** The covered steps of chainOfPage's facts, one object each. */
function coveredIn(facts: ReturnType<typeof eventFacts>) {
  return Array.from({ length: facts.count }, (_, k) => ({
    event: facts.events[k],
    episodeId: facts.episodes[facts.episodeOf[k] as number],
    n: facts.ns[k],
    hash: facts.logged[k] ? toHex(facts.hashes.subarray(32 * k, 32 * k + 32)) : null,
  }));
}

const stepsLogged = fc
  .array(fc.record({ n: fc.nat({ max: 500 }), hash: fc.constantFrom(GENESIS_HASH, HASH, 'ab'.repeat(32)) }), { maxLength: 3 })
  .map((steps): Content => ({ type: 'steps.logged', payload: { steps } }));
const other = fc.jsonValue({ maxDepth: 3 }).map((payload): Content => ({ type: 'checkpoint.saved', payload }));
const contentsArb = fc.array(fc.oneof(stepsLogged, other), { minLength: 1, maxLength: 5 });

/** Where each field's data lies in a row: [start, end) per field (empty for NULL). */
function fieldSpans(row: Uint8Array): [number, number][] {
  const view = new DataView(row.buffer, row.byteOffset, row.byteLength);
  const spans: [number, number][] = [];
  for (let f = 0, p = 2; f < EVENT_FIELDS; f++) {
    const length = Math.max(view.getInt32(p), 0);
    spans.push([p + 4, p + 4 + length]);
    p += 4 + length;
  }
  return spans;
}

describe('chainOfPage', () => {
  it('accepts an untouched page, with every event hash, its first prevHash and its steps.logged facts', () => {
    fc.assert(
      fc.property(contentsArb, fc.boolean(), fc.boolean(), (contents, fromGenesis, compact) => {
        const firstSeq = fromGenesis ? 1 : 41;
        const prevHash = fromGenesis ? GENESIS_HASH : 'cd'.repeat(32);
        const events = ledger(contents, firstSeq, prevHash);
        const rows = pageOf(events, compact);
        const page = chainOfPage(rows, firstSeq, tenantId);
        expect(page?.index).toMatchObject({ firstSeq, count: events.length });
        expect(toHex(page?.index.hashes)).toBe(events.map((e) => e.hash).join(''));
        expect(toHex(page?.firstPrev)).toBe(prevHash);
        expect([...(page?.facts.stepsLogged ?? [])]).toEqual(events.map((e) => (e.type === 'steps.logged' ? 1 : 0)));
        expect(page && coveredIn(page.facts)).toEqual(coveredOf(events));
        expect(page?.facts).toEqual(eventFacts(rows));
      }),
      { numRuns: 150 },
    );
  });

  it('gives a first prevHash other than the genesis hash as it is, leaving the join to its caller', () => {
    const prevHash = 'ab'.repeat(32);
    const events = ledger([{ type: 'episode.started', payload: { a: 1 } }], 1, prevHash);
    const page = chainOfPage(pageOf(events), 1, tenantId);
    expect(toHex(page?.firstPrev)).toBe(prevHash);
    expect(verifyChainAccepts(pageOf(events), 1, prevHash)).toBe(true);
  });

  it('refuses a page whose seqs are not firstSeq, firstSeq + 1, ..., though each event hashes to its hash', () => {
    const contents = [1, 2, 3].map((a): Content => ({ type: 'episode.started', payload: { a } }));
    expect(chainOfPage(pageOf(ledger(contents)), 1, tenantId)).toBeDefined();
    expect(chainOfPage(pageOf(ledger(contents)), 2, tenantId)).toBeUndefined();
    for (const seqs of [
      [1, 2, 4],
      [1, 3, 2],
      [1, 1, 2],
      [2, 3, 4],
    ]) {
      const rows = pageOf(ledger(contents, 1, GENESIS_HASH, seqs));
      expect(chainOfPage(rows, 1, tenantId), String(seqs)).toBeUndefined();
      expect(verifyChainAccepts(rows), String(seqs)).toBe(false);
    }
  });

  it('refuses a tenant id that is not a lowercase uuid', () => {
    const rows = pageOf(ledger([{ type: 'episode.started', payload: {} }]));
    expect(chainOfPage(rows, 1, tenantId.toUpperCase())).toBeUndefined();
  });

  it('never accepts a page verifyChain refuses, whichever byte of a field or a header is changed', () => {
    const where = fc.record({ row: fc.nat(), field: fc.integer({ min: 0, max: EVENT_FIELDS }), at: fc.nat(), flip: fc.integer({ min: 1, max: 255 }) });
    fc.assert(
      fc.property(contentsArb, where, (contents, { row, field, at, flip }) => {
        const rows = ledger(contents).map((e) => eventRow(e));
        const changed = rows[row % rows.length] as Uint8Array;
        // field EVENT_FIELDS: any byte of the row, its count and length headers included.
        const [start, end] = field < EVENT_FIELDS ? (fieldSpans(changed)[field] as [number, number]) : [0, changed.length];
        const p = end > start ? start + (at % (end - start)) : at % changed.length;
        changed[p] = (changed[p] as number) ^ flip;
        const page = fieldRows(rows);
        const chain = chainOfPage(page, 1, tenantId);
        if (!chain) return;
        expect(verifyChainAccepts(page)).toBe(true);
        expect(chain.facts).toEqual(eventFacts(page));
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses a time whose ISO text has no four-digit year, as verifyChain does', () => {
    for (const createdAt of ['+010000-01-01T00:00:00.000Z', '-000001-12-31T23:59:59.999Z']) {
      const entry = { tenantId, seq: 1, type: 'episode.started', episodeId, workItemId: null, payload: { a: 1 }, createdAt };
      const rows = fieldRows([eventRow({ ...entry, prevHash: GENESIS_HASH, hash: chainHash(GENESIS_HASH, entry) })]);
      expect(eventAt(rows, 0, tenantId).createdAt).toBe(createdAt);
      expect(chainOfPage(rows, 1, tenantId), createdAt).toBeUndefined();
      expect(verifyChainAccepts(rows), createdAt).toBe(false);
    }
  });
});
