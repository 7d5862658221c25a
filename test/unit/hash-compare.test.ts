// The comparisons verifyLedger makes without writing hashes out as hex (src/ledger/format/hash.ts:
// chainHashIs, and hexMatches and hashHexInto on the hex bytes of the rows' hash columns) and the
// parsing of prevHash into the chain input: equal only to the exact lowercase hex of the hash,
// for any byte, every other string and non-string false; a hash that is not 64 lowercase hex
// digits (uppercase, another length, another character) refused or not decoded. References are
// computed with @noble/hashes from the definitions in docs/LEDGER.md §3.
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CHAIN_DOMAIN_TAG,
  canonicalEntryBytes,
  canonicalTextHash,
  chainHash,
  chainHashIs,
  hashBytes,
  hasherReady,
  hashHexInto,
  hexMatches,
  type LedgerEntry,
} from '../../src/ledger/format/hash.ts';

beforeAll(() => hasherReady);

const utf8 = new TextEncoder();
const entry: LedgerEntry = {
  tenantId: '6f1c1d2e-8a3b-4c5d-9e0f-112233445566',
  seq: 3,
  type: 'episode.started',
  episodeId: '0b8e2f4a-1c3d-4e5f-8a9b-c0d1e2f3a4b5',
  workItemId: null,
  payload: { task: 'x' },
  createdAt: '2026-11-21T20:50:00.000Z',
};

/** BLAKE3(tag || prevHash bytes || entry), with prevHash given as bytes. */
function reference(prev: Uint8Array, e: LedgerEntry): string {
  return bytesToHex(blake3(new Uint8Array([...CHAIN_DOMAIN_TAG, ...prev, ...canonicalEntryBytes(e)])));
}

/** The hex with the digit at `index` replaced. */
const withDigit = (hex: string, index: number, digit: string) => hex.slice(0, index) + digit + hex.slice(index + 1);

// Characters next to the lowercase hex digits in ASCII ('/' ':' before and after 0-9, '`' 'g'
// around a-f), the uppercase digits, and one outside ASCII.
const NOT_HEX_DIGITS = ['/', ':', '`', 'g', 'A', 'F', ' ', 'é'];

describe('chainHash reads prevHash as 32 bytes of lowercase hex', () => {
  it('takes every hex digit at its value, in the high and the low half of a byte', () => {
    // Every byte value once, so each digit is seen in both positions.
    for (let start = 0; start < 256; start += 32) {
      const prev = Uint8Array.from({ length: 32 }, (_, i) => start + i);
      expect(chainHash(bytesToHex(prev), entry)).toBe(reference(prev, entry));
    }
  });

  it('refuses a character beside the hex digits, in the high or the low half of any byte', () => {
    const good = '0123456789abcdef'.repeat(4);
    for (const bad of NOT_HEX_DIGITS) {
      for (const index of [0, 1, 30, 31, 62, 63]) {
        expect(() => chainHash(withDigit(good, index, bad), entry), `${bad} at ${index}`).toThrow(new RangeError('expected 32 bytes of lowercase hex'));
      }
    }
  });

  it('refuses another length or a value that is not a string', () => {
    const good = 'ab'.repeat(32);
    for (const bad of ['', 'ab', `${good}a`, `${good}ab`, good.slice(2)]) {
      expect(() => chainHash(bad, entry), bad).toThrow(new RangeError('expected 32 bytes of lowercase hex'));
    }
    const lookalike = Array.from({ length: 64 }, () => 'a');
    expect(() => chainHash(lookalike as unknown as string, entry)).toThrow(new RangeError('expected 32 bytes of lowercase hex'));
    expect(() => chainHash(undefined as unknown as string, entry)).toThrow(new RangeError('expected 32 bytes of lowercase hex'));
  });
});

describe('chainHashIs', () => {
  const prev = 'cd'.repeat(32);

  it('is true for the chain hash itself, for many entries', () => {
    for (let seq = 1; seq <= 50; seq++) {
      const e = { ...entry, seq };
      expect(chainHashIs(prev, e, chainHash(prev, e)), String(seq)).toBe(true);
    }
  });

  it('is false when any one digit differs, including to a non-hex neighbour of the right value', () => {
    const hash = chainHash(prev, entry);
    for (let index = 0; index < 64; index++) {
      const digit = hash[index] as string;
      const other = digit === '0' ? '1' : '0';
      expect(chainHashIs(prev, entry, withDigit(hash, index, other)), `digit ${index}`).toBe(false);
      if (digit >= 'a') expect(chainHashIs(prev, entry, withDigit(hash, index, digit.toUpperCase())), `upper ${index}`).toBe(false);
    }
    // '`' is the character before 'a', ':' the one after '9', '/' before '0', 'g' after 'f'.
    for (const bad of NOT_HEX_DIGITS) {
      expect(chainHashIs(prev, entry, withDigit(hash, 0, bad)), bad).toBe(false);
      expect(chainHashIs(prev, entry, withDigit(hash, 63, bad)), bad).toBe(false);
    }
  });

  it('is false for the hash with digits added or removed, for the whole-string uppercase and for an empty string', () => {
    const hash = chainHash(prev, entry);
    for (const bad of [`${hash}0`, `${hash}00`, hash.slice(0, 62), hash.slice(0, 63), `0${hash.slice(0, 63)}`, hash.toUpperCase(), '']) {
      expect(chainHashIs(prev, entry, bad), bad).toBe(false);
    }
  });

  it('refuses a malformed prevHash as chainHash does', () => {
    expect(() => chainHashIs('zz'.repeat(32), entry, 'ab'.repeat(32))).toThrow(new RangeError('expected 32 bytes of lowercase hex'));
  });
});

describe('hexMatches and hashHexInto (hex bytes as the rows hold them)', () => {
  /** The hex of `digest` as bytes at text[at..at+64), other bytes around it. */
  function hexText(digest: Uint8Array, at: number): Uint8Array {
    const text = new Uint8Array(at + 70).fill(48);
    text.set(utf8.encode(bytesToHex(digest)), at);
    return text;
  }
  const digests = Array.from({ length: 8 }, (_, d) => Uint8Array.from({ length: 32 }, (_, i) => 32 * d + i)); // every byte value once

  it('decode and match every byte value, in the high and the low digit, at any offset', () => {
    for (const [d, digest] of digests.entries()) {
      const text = hexText(digest, d);
      const out = new Uint8Array(32 + d).fill(7);
      expect(hashHexInto(text, d, 64, out, d), `digest ${d}`).toBe(true);
      expect(out.subarray(d)).toEqual(digest);
      const bytes = new Uint8Array(40);
      bytes.set(digest, 3);
      expect(hexMatches(text, d, 64, bytes, 3), `digest ${d}`).toBe(true);
    }
  });

  it('hexMatches is false when any one digit differs', () => {
    const digest = blake3(utf8.encode('abc'));
    const text = hexText(digest, 0);
    for (let index = 0; index < 64; index++) {
      const changed = text.slice();
      changed[index] = changed[index] === 48 ? 49 : 48;
      expect(hexMatches(changed, 0, 64, digest, 0), `digit ${index}`).toBe(false);
    }
  });

  it('refuse a byte beside the hex digits, an uppercase digit or a byte outside ASCII, in the high or the low half of any byte', () => {
    const digest = digests[5] as Uint8Array; // a0..bf: letters in every high digit
    const bad = [...NOT_HEX_DIGITS.filter((c) => c.length === 1 && c.charCodeAt(0) < 128).map((c) => c.charCodeAt(0)), 0x22, 0x00, 0xc3, 0xe9, 0xff];
    for (const byte of bad) {
      for (const index of [0, 1, 30, 31, 62, 63]) {
        const text = hexText(digest, 2);
        text[2 + index] = byte;
        expect(hashHexInto(text, 2, 64, new Uint8Array(32), 0), `${byte} at ${index}`).toBe(false);
        expect(hexMatches(text, 2, 64, digest, 0), `${byte} at ${index}`).toBe(false);
      }
    }
    const upper = utf8.encode(bytesToHex(digest).toUpperCase());
    expect(hashHexInto(upper, 0, 64, new Uint8Array(32), 0)).toBe(false);
    expect(hexMatches(upper, 0, 64, digest, 0)).toBe(false);
  });

  it('refuse any length but 64 digits', () => {
    const digest = blake3(utf8.encode('abc'));
    const text = utf8.encode(bytesToHex(digest).repeat(2));
    for (const length of [-1, 0, 62, 63, 65, 128]) {
      expect(hexMatches(text, 0, length, digest, 0), String(length)).toBe(false);
      expect(hashHexInto(text, 0, length, new Uint8Array(32), 0), String(length)).toBe(false);
    }
  });
});

describe('canonicalTextHash on texts larger than its first buffer', () => {
  it('hashes all the bytes of long multi-byte texts, and only its own bytes after one', () => {
    // The reused buffer starts at 64 KiB and grows when 3 bytes per UTF-16 unit may not fit.
    const texts = ['€'.repeat(21_845), '€'.repeat(21_846), '😀'.repeat(40_000), 'é'.repeat(100_000), 'abc'];
    for (const text of texts) {
      const expected = bytesToHex(blake3(utf8.encode(text)));
      expect(canonicalTextHash(text), `${text.length} units`).toBe(expected);
      expect(bytesToHex(hashBytes(utf8.encode(text)))).toBe(expected);
    }
  });
});
