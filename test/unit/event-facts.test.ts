// eventFacts (src/ledger/event-facts.ts): the steps a page's steps.logged events cover, read from
// the event rows' JSON text, equal what JSON.parse of the same rows gives, whether a payload is in
// the form PostgreSQL prints (read from its bytes) or any other (parsed).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ByteRows } from '../../src/ledger/copy-rows.ts';
import { eventFacts } from '../../src/ledger/event-facts.ts';

const utf8 = new TextEncoder();
const A = '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9';
const B = '5f0c6b7e-3d2a-4c1b-9e8f-7a6b5c4d3e2f';
const HASH = 'f9664b1223a00938fee3e083d860d8398c5ac4262371a7f9bfcfb5de4e64374a';

function byteRows(texts: string[]): ByteRows {
  const bytes = utf8.encode(texts.join('\n'));
  const rows: ByteRows = { bytes, starts: [], ends: [], wellFormed: true };
  let at = 0;
  for (const t of texts) {
    const length = utf8.encode(t).length;
    rows.starts.push(at);
    rows.ends.push(at + length);
    at += length + 1;
  }
  return rows;
}

/** An event row as readEventPage gets it, the payload text as given. */
const row = (episodeId: string | null, payload: string, type: string) =>
  `["2026-11-27T10:00:00.000Z", ${JSON.stringify(episodeId)}, ${payload}, "1", "${A}", ${JSON.stringify(type)}, null, "${HASH}", "${HASH}"]`;

/** The same facts from JSON.parse of each row. */
function reference(texts: string[]) {
  const covered: unknown[] = [];
  const stepsLogged = texts.map((t, event) => {
    const r = JSON.parse(t) as [string, string | null, { steps?: { n: unknown; hash: unknown }[] }, string, string, string];
    if (r[5] !== 'steps.logged') return false;
    if (r[1]) for (const e of r[2].steps ?? []) covered.push({ event, episodeId: r[1], n: e.n, hash: e.hash });
    return true;
  });
  return { covered, stepsLogged };
}

/** A steps.logged payload as PostgreSQL prints it, or in another legal form. */
const payloadArb = fc.oneof(
  fc
    .array(fc.record({ n: fc.nat(), hash: fc.constantFrom(HASH, HASH.toUpperCase(), HASH.slice(1)) }), { maxLength: 4 })
    .map((steps) => `{"steps": [${steps.map((s) => `{"n": ${s.n}, "hash": "${s.hash}"}`).join(', ')}]}`),
  fc
    .array(fc.record({ n: fc.integer({ min: -5, max: 1e6 }), hash: fc.constantFrom(HASH, 7, null) }), { maxLength: 4 })
    .map((steps) => JSON.stringify({ steps })),
  fc.constantFrom('{"steps": []}', '{}', '{"steps": [{"n": 1, "hash": "x", "more": 1}]}', '{"other": 1, "steps": [{"hash": "h", "n": 2}]}'),
);

describe('eventFacts', () => {
  it('equals JSON.parse of the rows', () => {
    const eventArb = fc.record({
      episodeId: fc.constantFrom(A, B, null),
      payload: payloadArb,
      type: fc.constantFrom('steps.logged', 'checkpoint.saved'),
    });
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 12 }), (events) => {
        const texts = events.map((e) => row(e.episodeId, e.payload, e.type));
        expect(eventFacts(byteRows(texts))).toEqual(reference(texts));
      }),
      { numRuns: 500 },
    );
  });
});
