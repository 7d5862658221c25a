import { blake3 } from '@noble/hashes/blake3.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bytesEqual,
  CHAIN_DOMAIN_TAG,
  canonicalEntryBytes,
  canonicalJson,
  canonicalTextHash,
  chainHash,
  contentHash,
  fromHex,
  GENESIS_HASH,
  hashBytes,
  isHashHex,
  LEDGER_SCHEMA_VERSION,
  type LedgerEntry,
  toHex,
} from '../../src/ledger/hash.ts';

const utf8 = new TextEncoder();

const entry: LedgerEntry = {
  tenantId: '6f1c1d2e-8a3b-4c5d-9e0f-112233445566',
  seq: 1,
  type: 'episode.started',
  episodeId: '0b8e2f4a-1c3d-4e5f-8a9b-c0d1e2f3a4b5',
  workItemId: null,
  payload: { task: 'fix the build', budget: { maxSteps: 20 } },
  createdAt: '2026-11-21T20:50:00.000Z',
};

describe('BLAKE3', () => {
  it('matches the published test vectors', () => {
    expect(toHex(hashBytes(utf8.encode('abc')))).toBe('6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85');
    expect(toHex(hashBytes(new Uint8Array(0)))).toBe('af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262');
  });
});

describe('hex helpers', () => {
  it('round-trips bytes', () => {
    const bytes = Uint8Array.from([0, 1, 0xab, 0xff]);
    expect(toHex(bytes)).toBe('0001abff');
    expect(fromHex('0001abff')).toEqual(bytes);
  });

  it('rejects uppercase, odd-length, non-hex and wrong-length input', () => {
    expect(() => fromHex('AB')).toThrow(RangeError);
    expect(() => fromHex('abc')).toThrow(RangeError);
    expect(() => fromHex('zz')).toThrow(RangeError);
    expect(() => fromHex('abcd', 32)).toThrow(RangeError);
  });

  it('recognises 32-byte hashes', () => {
    expect(isHashHex(GENESIS_HASH)).toBe(true);
    expect(isHashHex('A'.repeat(64))).toBe(false);
    expect(isHashHex('0'.repeat(62))).toBe(false);
    expect(isHashHex(42)).toBe(false);
  });

  it('compares bytes', () => {
    expect(bytesEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 2))).toBe(true);
    expect(bytesEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 3))).toBe(false);
    expect(bytesEqual(Uint8Array.of(1), Uint8Array.of(1, 2))).toBe(false);
  });
});

describe('canonical entry bytes', () => {
  it('are RFC 8785 JSON of exactly the hashed fields, keys sorted', () => {
    const withExtras = { ...entry, prevHash: GENESIS_HASH, hash: 'ff'.repeat(32), dbId: 7 };
    expect(new TextDecoder().decode(canonicalEntryBytes(withExtras))).toBe(
      '{"createdAt":"2026-11-21T20:50:00.000Z","episodeId":"0b8e2f4a-1c3d-4e5f-8a9b-c0d1e2f3a4b5",' +
        '"payload":{"budget":{"maxSteps":20},"task":"fix the build"},"seq":1,' +
        '"tenantId":"6f1c1d2e-8a3b-4c5d-9e0f-112233445566","type":"episode.started","v":1,"workItemId":null}',
    );
    expect(LEDGER_SCHEMA_VERSION).toBe(1);
  });

  it('do not depend on payload key order', () => {
    const reordered = { ...entry, payload: { budget: { maxSteps: 20 }, task: 'fix the build' } };
    expect(canonicalEntryBytes(reordered)).toEqual(canonicalEntryBytes(entry));
  });

  it('refuse values without a JSON form', () => {
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
    expect(() => canonicalJson({ n: Number.NaN })).toThrow();
  });
});

describe('chainHash', () => {
  it('is BLAKE3(tag || prevHash bytes || canonical entry)', () => {
    expect(toHex(CHAIN_DOMAIN_TAG)).toBe('657069736f6469632e6c65646765722e763100');
    const prev = 'ab'.repeat(32);
    const input = new Uint8Array([...CHAIN_DOMAIN_TAG, ...fromHex(prev), ...canonicalEntryBytes(entry)]);
    expect(chainHash(prev, entry)).toBe(toHex(blake3(input)));
  });

  it('changes with any hashed field and with prevHash', () => {
    const base = chainHash(GENESIS_HASH, entry);
    const variants: LedgerEntry[] = [
      { ...entry, seq: 2 },
      { ...entry, type: 'episode.completed' },
      { ...entry, episodeId: null },
      { ...entry, workItemId: entry.episodeId },
      { ...entry, payload: { task: 'fix the build', budget: { maxSteps: 21 } } },
      { ...entry, createdAt: '2026-11-21T20:50:00.001Z' },
      { ...entry, tenantId: entry.tenantId.replace('6f', '7f') },
    ];
    for (const variant of variants) expect(chainHash(GENESIS_HASH, variant)).not.toBe(base);
    expect(chainHash('01'.repeat(32), entry)).not.toBe(base);
  });

  it('handles large multi-byte payloads (the scratch buffer grows)', () => {
    const big = { ...entry, payload: { text: 'é€😀'.repeat(5000) } };
    const input = new Uint8Array([...CHAIN_DOMAIN_TAG, ...fromHex(GENESIS_HASH), ...canonicalEntryBytes(big)]);
    expect(chainHash(GENESIS_HASH, big)).toBe(toHex(blake3(input)));
    expect(chainHash(GENESIS_HASH, entry)).toBe(chainHash(GENESIS_HASH, { ...entry }));
  });

  it('rejects a malformed prevHash', () => {
    expect(() => chainHash('00', entry)).toThrow(RangeError);
    expect(() => chainHash('G'.repeat(64), entry)).toThrow(RangeError);
  });
});

describe('contentHash', () => {
  it('hashes canonical JSON, independent of key order', () => {
    expect(contentHash({ b: 1, a: [1, 'x'] })).toBe(toHex(blake3(utf8.encode('{"a":[1,"x"],"b":1}'))));
    expect(contentHash({ a: [1, 'x'], b: 1 })).toBe(contentHash({ b: 1, a: [1, 'x'] }));
  });

  it('gives the bytes noble gives, for any text and size (hash-wasm computes it)', () => {
    // Sizes across BLAKE3's 64-byte blocks and 1024-byte chunks, and every UTF-8 length.
    const text = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 3000 }), fc.string({ unit: 'binary', maxLength: 3000 }));
    fc.assert(
      fc.property(text, (s) => {
        expect(canonicalTextHash(s)).toBe(toHex(blake3(utf8.encode(s))));
      }),
      { numRuns: 300 },
    );
    expect(canonicalTextHash('abc')).toBe('6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85');
  });
});
