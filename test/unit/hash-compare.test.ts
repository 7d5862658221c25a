// The comparisons verifyLedger makes without writing hashes out as hex (src/ledger/hash.ts:
// chainHashIs; hexMatches and hashHexInto on the rows' hex bytes) and the parsing of prevHash into the chain input: equal only
// to the exact lowercase hex of the hash, for any byte, every other string and non-string false;
// a prevHash that is not 64 lowercase hex digits refused. References are computed with
// @noble/hashes from the definitions in docs/LEDGER.md §3.
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
} from '../../src/ledger/hash.ts';

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
  it('match exactly the lowercase hex of the bytes, at any offset', () => {
    for (const text of ['', 'abc', '{"a":"é€😀"}', 'x'.repeat(5000)]) {
      const digest = blake3(utf8.encode(text));
      const hex = bytesToHex(digest);
      const row = utf8.encode(`..${hex}..`);
      const bytes = new Uint8Array(40);
      bytes.set(digest, 5);
      expect(hexMatches(row, 2, 64, bytes, 5), text.slice(0, 10)).toBe(true);
      const decoded = new Uint8Array(34);
      expect(hashHexInto(row, 2, 64, decoded, 2)).toBe(true);
      expect(decoded.subarray(2)).toEqual(digest);
      for (const bad of [withDigit(hex, 63, hex.endsWith('0') ? '1' : '0'), hex.toUpperCase(), `${hex.slice(0, 10)}g${hex.slice(11)}`]) {
        expect(hexMatches(utf8.encode(bad), 0, 64, bytes, 5), bad).toBe(false);
      }
      for (const bad of [hex.toUpperCase(), `${hex.slice(0, 10)}"${hex.slice(11)}`, `${hex.slice(0, 62)}\\`]) {
        expect(hashHexInto(utf8.encode(bad), 0, 64, decoded, 0), bad).toBe(false);
      }
    }
  });

  it('refuse any length but 64 digits', () => {
    const hex = utf8.encode(bytesToHex(blake3(utf8.encode('abc'))));
    const digest = blake3(utf8.encode('abc'));
    for (const length of [0, 62, 63, 65, 128]) {
      expect(hexMatches(hex, 0, length, digest, 0), String(length)).toBe(false);
      expect(hashHexInto(hex, 0, length, new Uint8Array(32), 0), String(length)).toBe(false);
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
