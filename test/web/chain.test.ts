// The monitor's in-browser chain check (web/src/chain.ts, written from docs/LEDGER.md) must agree
// with the reference implementation byte for byte, and must flag tampering and broken links.
import { describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { GENESIS_HASH, type LedgerEntry, chainHash as referenceHash } from '../../src/ledger/format/hash.ts';
import { ChainVerifier, chainHash, type LedgerEvent } from '../../web/src/chain.ts';

const tenantId = '6f1c1d2e-8a3b-4c5d-9e0f-112233445566';
const payloads: unknown[] = [
  { task: 'Fix the failing build', context: { language: 'typescript' } },
  { z: 1, a: [3, 1, 2], nested: { b: null, a: 'café ✓ \u0007 "quoted" \\' } },
  { big: 1e21, small: 1e-7, negativeZero: -0, fraction: 0.875, max: Number.MAX_SAFE_INTEGER },
  'a bare string',
  null,
];

/** A chain of events as the API sends them: seq as a decimal string. */
function chain(): LedgerEvent[] {
  let prevHash = GENESIS_HASH;
  return payloads.map((payload, i) => {
    const entry: LedgerEntry = {
      tenantId,
      seq: i + 1,
      type: 'episode.started',
      episodeId: i % 2 ? null : crypto.randomUUID(),
      workItemId: null,
      payload,
      createdAt: new Date(1_800_000_000_000 + i).toISOString(),
    };
    const hash = referenceHash(prevHash, entry);
    const event = { ...entry, seq: String(entry.seq), prevHash, hash };
    prevHash = hash;
    return event;
  });
}

describe('in-browser chain verification', () => {
  it('computes the same hash as src/ledger/format/hash.ts', () => {
    for (const e of chain()) expect(chainHash(e.prevHash, e)).toBe(e.hash);
  });

  it('verifies a chain from the genesis and from an anchor', () => {
    const events = chain();
    const fromGenesis = new ChainVerifier(0, GENESIS_HASH);
    expect(events.map((e) => fromGenesis.check(e))).toEqual(events.map(() => 'verified'));
    const fromAnchor = new ChainVerifier(2, must(events[1]).hash);
    expect(events.slice(2).map((e) => fromAnchor.check(e))).toEqual(['verified', 'verified', 'verified']);
  });

  it('flags an altered event, a gap and a wrong link, and rejects malformed hashes', () => {
    const [a, b, c, d] = chain() as [LedgerEvent, LedgerEvent, LedgerEvent, LedgerEvent];
    const verifier = new ChainVerifier(0, GENESIS_HASH);
    expect(verifier.check(a)).toBe('verified');
    expect(verifier.check({ ...b, payload: { task: 'edited' } })).toBe('hash-mismatch');
    expect(verifier.check(d)).toBe('broken-link'); // c is missing
    expect(new ChainVerifier(2, a.hash).check(c)).toBe('broken-link'); // links to b, not a
    expect(chainHash(b.prevHash.toUpperCase(), b)).toBeNull();
  });
});
