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
} from '../../src/ledger/format/hash.ts';
import { binaryString } from '../support/code-points.ts';

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
    const text = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 3000 }), binaryString({ maxLength: 3000 }));
    fc.assert(
      fc.property(text, (s) => {
        expect(canonicalTextHash(s)).toBe(toHex(blake3(utf8.encode(s))));
      }),
      { numRuns: 300 },
    );
    expect(canonicalTextHash('abc')).toBe('6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85');
  });
});

// The exact contract of the helpers: errors are RangeError/TypeError with these messages (callers
// and the CLI show them), and every pattern is anchored at both ends.
//
// Equivalent mutants, left alive (no input tells them apart):
// - withRoom's `needed > buffer.length` -> `>=` or `true` (the reused chain input and text
//   buffers): growing a buffer that is already big enough only allocates; the bytes hashed are the
//   same (the tests below and test/unit/hash-compare.test.ts check buffers that must grow and ones
//   that must not, against a reference). `true` is sometimes reported killed: allocating on every
//   call can time out.
// The exact RFC 8785 text, the hash comparisons and which values reach the canonicalize package
// are pinned in test/unit/{canonical-json-rfc8785,hash-compare,canonical-package}.test.ts.
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('fromHex, exactly', () => {
  const NOT_HEX = 'expected lowercase hex with an even number of digits';

  it('decodes the empty string and any lowercase hex', () => {
    expect(fromHex('')).toEqual(new Uint8Array(0));
    expect(fromHex('', 0)).toEqual(new Uint8Array(0));
    expect(fromHex('0123456789abcdef')).toEqual(Uint8Array.from([0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef]));
    expect(fromHex('ff'.repeat(32), 32)).toEqual(new Uint8Array(32).fill(0xff));
  });

  it('refuses uppercase, odd length, non-hex and hex with anything before or after it, with one message', () => {
    for (const bad of ['AB', 'aB', 'abc', 'a', 'zz', 'g0', 'zzab', 'abzz', ' ab', 'ab ', 'ab\n', '0x00']) {
      const error = thrown(() => fromHex(bad));
      expect(error, bad).toBeInstanceOf(RangeError);
      expect((error as Error).message, bad).toBe(NOT_HEX);
    }
  });

  it('refuses a value that is not a string, though its string form is hex', () => {
    for (const bad of [1234, ['abcd'], { toString: () => 'abcd' }, null, undefined]) {
      const error = thrown(() => fromHex(bad as unknown as string));
      expect(error).toBeInstanceOf(RangeError);
      expect((error as Error).message).toBe(NOT_HEX);
    }
  });

  it('refuses a length other than the one asked for, naming both', () => {
    const short = thrown(() => fromHex('abcd', 32));
    expect(short).toBeInstanceOf(RangeError);
    expect((short as Error).message).toBe('expected 32 bytes of hex, got 2');
    expect((thrown(() => fromHex('00'.repeat(33), 32)) as Error).message).toBe('expected 32 bytes of hex, got 33');
    expect((thrown(() => fromHex('00', 0)) as Error).message).toBe('expected 0 bytes of hex, got 1');
  });
});

describe('isHashHex, exactly', () => {
  const hash = 'ab'.repeat(32);

  it('accepts exactly 64 lowercase hex digits', () => {
    expect(isHashHex(hash)).toBe(true);
    expect(isHashHex('0123456789abcdef'.repeat(4))).toBe(true);
  });

  it('refuses a hash inside a longer string, or one digit more or less', () => {
    for (const bad of [`${hash}0`, `0${hash}`, `x${hash}`, `${hash}x`, `${hash}\n`, hash.slice(1), `${hash.slice(1)}G`, '', 'g'.repeat(64)]) {
      expect(isHashHex(bad), bad).toBe(false);
    }
  });

  it('refuses values that are not strings, though their string form is a hash', () => {
    expect(isHashHex([hash])).toBe(false);
    expect(isHashHex({ toString: () => hash })).toBe(false);
    expect(isHashHex(null)).toBe(false);
    expect(isHashHex(undefined)).toBe(false);
  });
});

describe('bytesEqual, exactly', () => {
  it('compares every byte, the first and the last included', () => {
    const a = Uint8Array.from([1, 2, 3, 4]);
    expect(bytesEqual(a, Uint8Array.from(a))).toBe(true);
    expect(bytesEqual(a, Uint8Array.from([0, 2, 3, 4]))).toBe(false);
    expect(bytesEqual(a, Uint8Array.from([1, 2, 3, 5]))).toBe(false);
    expect(bytesEqual(new Uint8Array(0), new Uint8Array(0))).toBe(true);
    expect(bytesEqual(Uint8Array.of(1, 2), Uint8Array.of(1))).toBe(false);
    expect(bytesEqual(Uint8Array.of(0), Uint8Array.of(0, 0))).toBe(false);
  });
});

describe('canonicalJson, exactly', () => {
  it('throws a TypeError naming the problem for values with no JSON form', () => {
    for (const bad of [undefined, () => 1, Symbol('s')]) {
      const error = thrown(() => canonicalJson(bad));
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe('value has no JSON representation');
    }
  });

  it('is RFC 8785 JSON', () => {
    expect(canonicalJson({ b: [1, 2.5, 'é'], a: null, c: { y: true, x: 1e21 } })).toBe('{"a":null,"b":[1,2.5,"é"],"c":{"x":1e+21,"y":true}}');
    expect(canonicalJson('x')).toBe('"x"');
  });
});

describe('chainHash on long entries (the reusable input buffer)', () => {
  /** The chain hash computed from its definition with @noble/hashes directly. */
  function reference(prevHash: string, e: LedgerEntry): string {
    return toHex(blake3(new Uint8Array([...CHAIN_DOMAIN_TAG, ...fromHex(prevHash), ...canonicalEntryBytes(e)])));
  }

  it('hashes entries around and well over 4096 bytes of JSON, multi-byte UTF-8 included, as the reference', () => {
    const prev = 'cd'.repeat(32);
    // The buffer starts at 4096 bytes and grows when 51 + 3 × (UTF-16 length of the JSON) exceeds
    // it: JSON of 1348 units is written into it as it is, 1349 grows it. '€' takes 3 UTF-8 bytes.
    const overhead = canonicalJson({ v: 1, ...entry, payload: { text: '' } }).length;
    const euros = (jsonLength: number) => '€'.repeat(jsonLength - overhead);
    const texts = [
      euros(1347),
      euros(1348),
      euros(1349),
      euros(1350),
      'a'.repeat(4000),
      'a'.repeat(5000),
      'é€😀x'.repeat(700),
      '€'.repeat(20_000),
      'a'.repeat(100),
    ];
    for (const text of texts) {
      const e = { ...entry, payload: { text } };
      expect(chainHash(prev, e), `${text.length} chars`).toBe(reference(prev, e));
    }
    // After growing, a short entry still hashes only its own bytes.
    expect(chainHash(prev, entry)).toBe(reference(prev, entry));
  });

  it('keeps the domain tag in a grown buffer', () => {
    const e = { ...entry, payload: { text: '😀'.repeat(30_000) } };
    expect(chainHash(GENESIS_HASH, e)).toBe(reference(GENESIS_HASH, e));
    expect(chainHash(GENESIS_HASH, entry)).toBe(reference(GENESIS_HASH, entry));
  });
});
