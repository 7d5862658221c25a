import { ed25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { fromHex, GENESIS_HASH, toHex } from '../../src/ledger/format/hash.ts';
import { EMPTY_TREE_ROOT } from '../../src/ledger/format/merkle.ts';
import {
  generateSigningKey,
  isAcceptablePublicKey,
  isSignedTreeHead,
  isTreeHead,
  keyIdOf,
  publicKeyFromPrivate,
  type SignedTreeHead,
  signTreeHead,
  TREE_HEAD_DOMAIN_TAG,
  type TreeHead,
  treeHeadMessage,
  verifyEd25519Strict,
  verifyTreeHead,
} from '../../src/ledger/format/signed-head.ts';

const head: TreeHead = {
  tenantId: '6f1c1d2e-8a3b-4c5d-9e0f-112233445566',
  treeSize: 42,
  rootHash: 'aa'.repeat(32),
  headHash: 'bb'.repeat(32),
  issuedAt: '2026-11-21T20:50:00.000Z',
};
// Nothing at module or describe level calls the code under test: a mutant that made it throw there
// would fail the file as it loads, which the mutation runner does not count as a failing test.
const privateKey = ed25519.utils.randomSecretKey();
const utf8 = new TextEncoder();
const publicKey = ed25519.getPublicKey(privateKey);

describe('signing keys', () => {
  it('are fresh 32-byte Ed25519 secret keys, with their RFC 8032 public keys', () => {
    const key = generateSigningKey();
    expect(key).toBeInstanceOf(Uint8Array);
    expect(key).toHaveLength(32);
    expect(toHex(key)).not.toBe(toHex(generateSigningKey()));
    expect(publicKeyFromPrivate(key)).toEqual(ed25519.getPublicKey(key));
    expect(publicKeyFromPrivate(privateKey)).toEqual(publicKey);
  });
});

describe('tree head message', () => {
  it('is the domain tag followed by canonical JSON of the five head fields', () => {
    expect(toHex(TREE_HEAD_DOMAIN_TAG)).toBe('657069736f6469632e7374682e763100');
    const message = treeHeadMessage({ ...head, extra: 'ignored' } as TreeHead);
    expect(message.subarray(0, TREE_HEAD_DOMAIN_TAG.length)).toEqual(TREE_HEAD_DOMAIN_TAG);
    expect(new TextDecoder().decode(message.subarray(TREE_HEAD_DOMAIN_TAG.length))).toBe(
      `{"headHash":"${'bb'.repeat(32)}","issuedAt":"2026-11-21T20:50:00.000Z","rootHash":"${'aa'.repeat(32)}",` +
        `"tenantId":"6f1c1d2e-8a3b-4c5d-9e0f-112233445566","treeSize":42}`,
    );
  });

  it('refuses a malformed head', () => {
    expect(() => treeHeadMessage({ ...head, treeSize: -1 })).toThrow(TypeError);
    expect(() => treeHeadMessage({ ...head, treeSize: -1 })).toThrow(/^malformed tree head$/);
    expect(() => treeHeadMessage({ ...head, rootHash: 'AA'.repeat(32) })).toThrow(TypeError);
    expect(isTreeHead({ ...head, treeSize: 1.5 })).toBe(false);
    expect(isTreeHead(null)).toBe(false);
  });
});

describe('signing and verification', () => {
  let signed: SignedTreeHead;
  beforeEach(() => {
    signed = signTreeHead(head, privateKey);
  });

  it('produces a hex Ed25519 signature over the message and a key id', () => {
    expect(signed).toMatchObject(head);
    expect(signed.signature).toMatch(/^[0-9a-f]{128}$/);
    expect(signed.keyId).toBe(keyIdOf(publicKey));
    expect(signed.keyId).toMatch(/^[0-9a-f]{16}$/);
    expect(ed25519.verify(fromHex(signed.signature), treeHeadMessage(head), publicKey)).toBe(true);
  });

  it('verifies a genuine head, including the empty tree', () => {
    expect(verifyTreeHead(signed, publicKey)).toBe(true);
    const empty = { ...head, treeSize: 0, rootHash: toHex(EMPTY_TREE_ROOT), headHash: GENESIS_HASH };
    expect(verifyTreeHead(signTreeHead(empty, privateKey), publicKey)).toBe(true);
  });

  it('survives a JSON round trip', () => {
    expect(verifyTreeHead(JSON.parse(JSON.stringify(signed)) as SignedTreeHead, publicKey)).toBe(true);
  });

  it('fails for any changed field', () => {
    const changes: Partial<SignedTreeHead>[] = [
      { tenantId: '00000000-0000-0000-0000-000000000000' },
      { treeSize: 41 },
      { rootHash: 'ab'.repeat(32) },
      { headHash: 'bc'.repeat(32) },
      { issuedAt: '2026-11-21T20:50:00.001Z' },
    ];
    for (const change of changes) expect(verifyTreeHead({ ...signed, ...change }, publicKey)).toBe(false);
  });

  it('fails for a flipped signature bit, another key, or a mislabelled key', () => {
    const sig = fromHex(signed.signature);
    sig[10] = must(sig[10]) ^ 0x04;
    expect(verifyTreeHead({ ...signed, signature: toHex(sig) }, publicKey)).toBe(false);
    const otherPublic = publicKeyFromPrivate(generateSigningKey());
    expect(verifyTreeHead(signed, otherPublic)).toBe(false);
    expect(verifyTreeHead({ ...signed, keyId: keyIdOf(otherPublic) }, otherPublic)).toBe(false);
    expect(verifyTreeHead({ ...signed, keyId: '0000000000000000' }, publicKey)).toBe(false);
  });

  it('returns false instead of throwing on malformed input', () => {
    const malformed = [
      { ...signed, signature: 'xyz' },
      { ...signed, signature: signed.signature.slice(2) },
      { ...signed, treeSize: '42' },
      { ...signed, rootHash: undefined },
      null,
      'head',
    ];
    for (const value of malformed) expect(verifyTreeHead(value as unknown as SignedTreeHead, publicKey)).toBe(false);
    expect(verifyTreeHead(signed, new Uint8Array(5))).toBe(false);
  });
});

// Shape and key checks exactly as docs/LEDGER.md §5 and §5.1 state them: each case below is one a
// looser check (a missing anchor, a dropped type check, a zip215 decoding, a skipped length or
// S < L check) would let through.
//
// Equivalent mutants, left alive (no input tells them apart):
// - numberLE starting at `bytes.length + 1`: the bytes past the end read as 0 (`?? 0`), leading
//   zeros of a little-endian number.
// - isAcceptablePublicKey without `publicKey.length === 32`: noble's Point.fromBytes throws for any
//   other length, and the catch returns false.
// - verifyEd25519Strict decoding A with zip215 = true: the key has passed isAcceptablePublicKey
//   (canonical) just before, and both decodings agree on canonical encodings.
const { Point } = ed25519;
const GROUP_ORDER = Point.Fn.ORDER;
const FIELD_PRIME = Point.Fp.ORDER;

function le32(n: bigint): Uint8Array {
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++, n >>= 8n) bytes[i] = Number(n & 0xffn);
  return bytes;
}
function numberLE(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(must(bytes[i], 'byte'));
  return n;
}
function concat(...parts: Uint8Array[]): Uint8Array {
  return Uint8Array.from(parts.flatMap((p) => [...p]));
}
const k8 = (R: Uint8Array, A: Uint8Array, M: Uint8Array) => numberLE(sha512(concat(R, A, M))) % GROUP_ORDER;

/** A point of order exactly 8: [L]P keeps only the torsion part of P (y = 3 has one of order 8). */
const ORDER_8_POINT = (() => {
  const p = Point.fromBytes(le32(3n), false);
  return p.multiplyUnsafe(GROUP_ORDER - 1n).add(p);
})();

describe('isTreeHead', () => {
  it('accepts a well-formed head, the empty tree (size 0) included', () => {
    expect(isTreeHead(head)).toBe(true);
    expect(isTreeHead({ ...head, treeSize: 0 })).toBe(true);
    expect(isTreeHead({ ...head, treeSize: Number.MAX_SAFE_INTEGER })).toBe(true);
  });

  it('refuses each malformed field, and values that are not plain objects', () => {
    const bad: Record<string, unknown>[] = [
      { tenantId: head.tenantId.toUpperCase() },
      { tenantId: undefined },
      { treeSize: -1 },
      { treeSize: 1.5 },
      { treeSize: '42' },
      { treeSize: Number.MAX_SAFE_INTEGER + 1 },
      { rootHash: 'AA'.repeat(32) },
      { rootHash: 'aa'.repeat(31) },
      { headHash: 'BB'.repeat(32) },
      { headHash: `${'bb'.repeat(32)}00` },
      { issuedAt: '2026-11-21T20:50:00Z' },
      { issuedAt: new Date('2026-11-21T20:50:00.000Z') },
    ];
    for (const change of bad) expect(isTreeHead({ ...head, ...change }), JSON.stringify(change)).toBe(false);
    expect(isTreeHead(undefined)).toBe(false);
    expect(isTreeHead('head')).toBe(false);
    // A function carrying the five members is not a head (typeof 'function', not 'object').
    expect(isTreeHead(Object.assign(() => undefined, head))).toBe(false);
  });
});

describe('isSignedTreeHead', () => {
  let signed: SignedTreeHead;
  beforeEach(() => {
    signed = signTreeHead(head, privateKey);
  });

  it('accepts a signed head as exported, with exactly its seven members', () => {
    expect(isSignedTreeHead(signed)).toBe(true);
    expect(isSignedTreeHead(JSON.parse(JSON.stringify(signed)))).toBe(true);
  });

  it('refuses an extra member or a missing one', () => {
    expect(isSignedTreeHead({ ...signed, extra: 1 })).toBe(false);
    expect(isSignedTreeHead({ ...signed, note: undefined })).toBe(false);
    const { keyId: _keyId, ...noKeyId } = signed;
    expect(isSignedTreeHead(noKeyId)).toBe(false);
    const { signature: _signature, ...noSignature } = signed;
    expect(isSignedTreeHead(noSignature)).toBe(false);
    expect(isSignedTreeHead(head)).toBe(false);
  });

  it('refuses a malformed head field even with a good signature and key id', () => {
    expect(isSignedTreeHead({ ...signed, treeSize: -1 })).toBe(false);
    expect(isSignedTreeHead({ ...signed, rootHash: 'AA'.repeat(32) })).toBe(false);
  });

  it('refuses a signature that is not 128 lowercase hex digits', () => {
    const bad = [
      signed.signature.toUpperCase(),
      signed.signature.slice(2),
      `${signed.signature}00`,
      `x${signed.signature}`,
      `${signed.signature}x`,
      `${signed.signature.slice(1)}g`,
    ];
    for (const signature of bad) expect(isSignedTreeHead({ ...signed, signature }), signature).toBe(false);
    // Not a string, though its string form would match the pattern.
    expect(isSignedTreeHead({ ...signed, signature: [signed.signature] })).toBe(false);
  });

  it('refuses a key id that is not 16 lowercase hex digits', () => {
    // An upper-case hex digit, whatever the random key's id holds (one of all digits has no letter to raise).
    const bad = [`A${signed.keyId.slice(1)}`, signed.keyId.slice(1), `${signed.keyId}0`, `x${signed.keyId}`, `${signed.keyId}x`, `${signed.keyId.slice(1)}g`];
    for (const keyId of bad) expect(isSignedTreeHead({ ...signed, keyId }), keyId).toBe(false);
    expect(isSignedTreeHead({ ...signed, keyId: [signed.keyId] })).toBe(false);
    expect(isSignedTreeHead(null)).toBe(false);
  });
});

describe('isAcceptablePublicKey', () => {
  it('accepts a genuine key', () => {
    expect(isAcceptablePublicKey(publicKey)).toBe(true);
  });

  it('refuses a key of the wrong length', () => {
    expect(isAcceptablePublicKey(publicKey.subarray(0, 31))).toBe(false);
    expect(isAcceptablePublicKey(concat(publicKey, Uint8Array.of(0)))).toBe(false);
    expect(isAcceptablePublicKey(new Uint8Array(0))).toBe(false);
  });

  it('refuses a non-canonical encoding (y = p + 3) of a point that is not of small order', () => {
    const nonCanonical = le32(FIELD_PRIME + 3n);
    // The point itself is fine: ZIP 215 decoding accepts it, and y = 3 is its canonical encoding.
    expect(Point.fromBytes(nonCanonical, true).isSmallOrder()).toBe(false);
    expect(isAcceptablePublicKey(le32(3n))).toBe(true);
    expect(isAcceptablePublicKey(nonCanonical)).toBe(false);
  });

  it('refuses small-order keys: the identity and a point of order 8', () => {
    expect(ORDER_8_POINT.multiplyUnsafe(4n).is0()).toBe(false);
    expect(ORDER_8_POINT.multiplyUnsafe(8n).is0()).toBe(true);
    expect(isAcceptablePublicKey(le32(1n))).toBe(false);
    expect(isAcceptablePublicKey(ORDER_8_POINT.toBytes())).toBe(false);
  });

  it('returns false, not an exception, for 32 bytes that are no curve point', () => {
    const notAPoint = le32(2n); // x² = 3/(4d+1) has no square root
    expect(() => Point.fromBytes(notAPoint, false)).toThrow();
    expect(isAcceptablePublicKey(notAPoint)).toBe(false);
  });
});

describe('verifyEd25519Strict', () => {
  let message: Uint8Array;
  let signature: Uint8Array;
  beforeEach(() => {
    message = treeHeadMessage(head);
    signature = ed25519.sign(message, privateKey);
  });

  it('accepts a genuine signature', () => {
    expect(verifyEd25519Strict(signature, message, publicKey)).toBe(true);
    expect(verifyEd25519Strict(signature, message.subarray(1), publicKey)).toBe(false);
  });

  it('refuses a 63- or 65-byte signature, even one whose S reads the same', () => {
    // 65 bytes: a zero byte appended leaves R and the little-endian S unchanged.
    expect(verifyEd25519Strict(concat(signature, Uint8Array.of(0)), message, publicKey)).toBe(false);
    // 63 bytes: a signature whose S has a zero top byte, cut by that byte.
    const shortS = findSignature((sig) => sig[63] === 0);
    expect(verifyEd25519Strict(shortS.sig, shortS.msg, publicKey)).toBe(true);
    expect(verifyEd25519Strict(shortS.sig.subarray(0, 63), shortS.msg, publicKey)).toBe(false);
    expect(verifyEd25519Strict(new Uint8Array(0), message, publicKey)).toBe(false);
  });

  it('refuses S >= L: S equal to the group order, and S + L', () => {
    const r = signature.subarray(0, 32);
    const s = numberLE(signature.subarray(32));
    expect(verifyEd25519Strict(concat(r, le32(GROUP_ORDER)), message, publicKey)).toBe(false);
    expect(verifyEd25519Strict(concat(r, le32(s + GROUP_ORDER)), message, publicKey)).toBe(false);
    expect(verifyEd25519Strict(concat(r, le32(GROUP_ORDER - 1n)), message, publicKey)).toBe(false);
  });

  it('refuses a bad key without throwing: wrong length, not a point, non-canonical', () => {
    expect(verifyEd25519Strict(signature, message, publicKey.subarray(0, 31))).toBe(false);
    expect(verifyEd25519Strict(signature, message, le32(2n))).toBe(false);
    expect(verifyEd25519Strict(signature, message, le32(FIELD_PRIME + 3n))).toBe(false);
  });

  it('refuses a forgery under the identity key, which the equation alone would accept', () => {
    // With A the identity, [S]B - [k]A = [S]B for every message: R = [S]B verifies anything.
    const s = 12345n;
    const forged = concat(Point.BASE.multiply(s).toBytes(), le32(s));
    expect(verifyEd25519Strict(forged, message, le32(1n))).toBe(false);
    expect(verifyEd25519Strict(forged, message.subarray(1), le32(1n))).toBe(false);
  });

  it('uses the cofactorless equation: a signature valid only under the cofactored one is refused', () => {
    // A mixed-order key A' = [a]B + T (T of order 8) is acceptable. S = r + k·a gives
    // [S]B - [k]A' = R - [k]T, which equals R only when 8 divides k; the cofactored equation
    // ([8][S]B = [8]R + [8][k]A') holds either way.
    const a = 0x1234567890abcdefn;
    const mixedKey = Point.BASE.multiply(a).add(ORDER_8_POINT).toBytes();
    expect(isAcceptablePublicKey(mixedKey)).toBe(true);
    const signWith = (msg: Uint8Array, r: bigint) => {
      const R = Point.BASE.multiply(r).toBytes();
      const k = k8(R, mixedKey, msg);
      return { sig: concat(R, le32((r + k * a) % GROUP_ORDER)), k };
    };
    let cofactoredOnly: { sig: Uint8Array; msg: Uint8Array } | undefined;
    let bothValid: { sig: Uint8Array; msg: Uint8Array } | undefined;
    for (let i = 1; !(cofactoredOnly && bothValid); i++) {
      const msg = utf8.encode(`message ${i}`);
      const { sig, k } = signWith(msg, BigInt(1000 + i));
      if (k % 8n === 0n) bothValid ??= { sig, msg };
      else cofactoredOnly ??= { sig, msg };
    }
    expect(ed25519.verify(cofactoredOnly.sig, cofactoredOnly.msg, mixedKey)).toBe(true);
    expect(verifyEd25519Strict(cofactoredOnly.sig, cofactoredOnly.msg, mixedKey)).toBe(false);
    expect(verifyEd25519Strict(bothValid.sig, bothValid.msg, mixedKey)).toBe(true);
  });
});

/** A signature by `privateKey` (over some message) that satisfies `wanted`. */
function findSignature(wanted: (sig: Uint8Array) => boolean): { sig: Uint8Array; msg: Uint8Array } {
  for (let i = 0; ; i++) {
    const msg = utf8.encode(`find ${i}`);
    const sig = ed25519.sign(msg, privateKey);
    if (wanted(sig)) return { sig, msg };
  }
}
