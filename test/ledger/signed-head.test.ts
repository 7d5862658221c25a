import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { fromHex, GENESIS_HASH, toHex } from '../../src/ledger/hash.ts';
import { EMPTY_TREE_ROOT } from '../../src/ledger/merkle.ts';
import {
  generateSigningKey,
  isTreeHead,
  keyIdOf,
  publicKeyFromPrivate,
  type SignedTreeHead,
  signTreeHead,
  TREE_HEAD_DOMAIN_TAG,
  type TreeHead,
  treeHeadMessage,
  verifyTreeHead,
} from '../../src/ledger/signed-head.ts';

const head: TreeHead = {
  tenantId: '6f1c1d2e-8a3b-4c5d-9e0f-112233445566',
  treeSize: 42,
  rootHash: 'aa'.repeat(32),
  headHash: 'bb'.repeat(32),
  issuedAt: '2026-11-21T20:50:00.000Z',
};
const privateKey = generateSigningKey();
const publicKey = publicKeyFromPrivate(privateKey);

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
    expect(() => treeHeadMessage({ ...head, rootHash: 'AA'.repeat(32) })).toThrow(TypeError);
    expect(isTreeHead({ ...head, treeSize: 1.5 })).toBe(false);
    expect(isTreeHead(null)).toBe(false);
  });
});

describe('signing and verification', () => {
  const signed = signTreeHead(head, privateKey);

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
