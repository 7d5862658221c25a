// eventFacts (src/ledger/verification/event-facts.ts): the steps a page's steps.logged events cover, read from
// the event rows' binary columns, equal what JSON.parse of each payload gives, whether a payload
// is in the form PostgreSQL prints (read from its bytes) or any other (parsed), with each logged
// hash kept as bytes when it is a lowercase hex hash and marked as no hash otherwise.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GENESIS_HASH } from '../../src/ledger/format/hash.ts';
import { eventFacts } from '../../src/ledger/verification/event-facts.ts';
import { eventRow, fieldRows } from '../support/copy-binary.ts';

const A = '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9';
const B = '5f0c6b7e-3d2a-4c1b-9e8f-7a6b5c4d3e2f';
const HASH = 'f9664b1223a00938fee3e083d860d8398c5ac4262371a7f9bfcfb5de4e64374a';

/** An event row as readEventPage gets it, the payload text as given (the other columns play no part). */
const row = (episodeId: string | null, payload: string, type: string) =>
  eventRow(
    { tenantId: B, seq: 1, type, episodeId, workItemId: null, payload: null, createdAt: '2026-11-27T10:00:00.000Z', prevHash: HASH, hash: HASH },
    payload,
  );

type Event = { episodeId: string | null; payload: string; type: string };

/** The same facts from JSON.parse of each payload. */
function reference(events: Event[]) {
  const covered: { event: number; episodeId: string; n: number; hash: string | null }[] = [];
  events.forEach((e, event) => {
    const payload = JSON.parse(e.payload) as { steps?: unknown } | null;
    if (e.type !== 'steps.logged' || !e.episodeId || !Array.isArray(payload?.steps)) return;
    for (const entry of payload.steps as { n?: unknown; hash?: unknown }[]) {
      const { n, hash } = typeof entry === 'object' && entry !== null ? entry : {};
      const isHash = typeof hash === 'string' && /^[0-9a-f]{64}$/.test(hash);
      covered.push({ event, episodeId: e.episodeId, n: typeof n === 'number' ? n : Number.NaN, hash: isHash ? hash : null });
    }
  });
  return { covered, stepsLogged: events.map((e) => (e.type === 'steps.logged' ? 1 : 0)) };
}

/** eventFacts' columns as one object per covered step. */
function found(events: Event[]) {
  const facts = eventFacts(fieldRows(events.map((e) => row(e.episodeId, e.payload, e.type))));
  const covered = Array.from({ length: facts.count }, (_, k) => ({
    event: facts.events[k],
    episodeId: facts.episodes[facts.episodeOf[k] as number],
    n: facts.ns[k],
    hash: facts.logged[k] ? Buffer.from(facts.hashes.subarray(32 * k, 32 * k + 32)).toString('hex') : null,
  }));
  return { covered, stepsLogged: [...facts.stepsLogged] };
}

// Step numbers as JSON may write them: the fast path reads 1 to 15 digits without a leading zero, JSON.parse the rest.
const nText = fc.oneof(fc.nat().map(String), fc.constantFrom('0', '123456789012345', '1234567890123456', '9007199254740993', '-3', '1.5', '1e2'));
// Logged hashes: lowercase hex of 64 digits, and near misses (uppercase, 63 or 65 digits, 64 bytes of 63 characters).
const hashText = fc.constantFrom(HASH, GENESIS_HASH, HASH.toUpperCase(), HASH.slice(1), `${HASH}0`, `é${HASH.slice(2)}`);

/** A steps.logged payload as PostgreSQL prints it, in another legal form, or in an odd one. */
const payloadArb = fc.oneof(
  fc
    .array(fc.record({ n: nText, hash: hashText }), { maxLength: 4 })
    .map((steps) => `{"steps": [${steps.map((s) => `{"n": ${s.n}, "hash": "${s.hash}"}`).join(', ')}]}`),
  fc
    .array(fc.record({ n: fc.oneof(fc.integer({ min: -5, max: 1e6 }), fc.constant('3')), hash: fc.constantFrom(HASH, 7, null) }), { maxLength: 4 })
    .map((steps) => JSON.stringify({ steps })),
  fc.constantFrom(
    '{"steps": []}',
    '{}',
    'null',
    '[1]',
    '{"steps": 3}',
    '{"steps": [null, 2]}',
    '{"steps": [{"n": 1, "hash": "x", "more": 1}]}',
    '{"other": 1, "steps": [{"hash": "h", "n": 2}]}',
    ` { "steps" : [ { "hash" : "${HASH}" , "n" : 4 } ] } `,
    `{"steps": [{"n": 1, "hash": "f9\\u0036${HASH.slice(3)}"}]}`,
    `{"steps": [{"n": 1, "hash": "${HASH}"}], "steps": [{"n": 2, "hash": "${HASH}"}]}`,
    `{"steps": [{"n": 1, "hash": "${HASH}", "n": 5}]}`,
    `{"steps": [{"n": 1, "hash": "${HASH}"}]} `,
  ),
);

describe('eventFacts', () => {
  it('equals JSON.parse of the payloads', () => {
    const eventArb = fc.record({
      episodeId: fc.constantFrom(A, B, null),
      payload: payloadArb,
      type: fc.constantFrom('steps.logged', 'checkpoint.saved'),
    });
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 12 }), (events) => {
        expect(found(events)).toEqual(reference(events));
      }),
      { numRuns: 500 },
    );
  });

  it('reads the entries of a payload as PostgreSQL prints it, each hash as bytes or as no hash', () => {
    const payload = `{"steps": [{"n": 1, "hash": "${HASH}"}, {"n": 2, "hash": "${HASH.toUpperCase()}"}]}`;
    const facts = eventFacts(fieldRows([row(A, '{"a": 1}', 'checkpoint.saved'), row(A, payload, 'steps.logged'), row(null, payload, 'steps.logged')]));
    expect(facts).toMatchObject({ count: 2, episodes: [A], stepsLogged: new Uint8Array([0, 1, 1]), logged: new Uint8Array([1, 0]) });
    expect([...facts.events, ...facts.ns]).toEqual([1, 1, 1, 2]);
    expect(Buffer.from(facts.hashes.subarray(0, 32)).toString('hex')).toBe(HASH);
  });
});
