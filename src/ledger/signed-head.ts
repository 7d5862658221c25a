// Signed tree heads (checkpoints): a chain alone cannot reveal a cut-off tail, a signed
// (size, root, head hash) published regularly can. Ed25519 per RFC 8032, verified strictly.
import { ed25519 } from '@noble/curves/ed25519.js';
import { canonicalJson, fromHex, hashBytes, isHashHex, toHex } from './hash.ts';

export interface TreeHead {
  tenantId: string;
  treeSize: number; // events covered: seq 1..treeSize
  rootHash: string; // hex MTH of the first treeSize leaves (EMPTY_TREE_ROOT for 0)
  headHash: string; // hex chain hash of event treeSize (GENESIS_HASH for 0)
  issuedAt: string; // ISO 8601 UTC with milliseconds
}

export interface SignedTreeHead extends TreeHead {
  signature: string; // hex of the 64-byte Ed25519 signature
  keyId: string; // keyIdOf(public key)
}

const utf8 = new TextEncoder();

/** utf8 "episodic.sth.v1" followed by one 0x00 byte (hex 657069736f6469632e7374682e763100). */
export const TREE_HEAD_DOMAIN_TAG: Uint8Array = utf8.encode('episodic.sth.v1\0');

const KEY_ID_HEX_CHARS = 16;

/** A fresh 32-byte Ed25519 secret key (the RFC 8032 seed). */
export function generateSigningKey(): Uint8Array {
  return ed25519.utils.randomSecretKey();
}

export function publicKeyFromPrivate(privateKey: Uint8Array): Uint8Array {
  return ed25519.getPublicKey(privateKey);
}

/** First 8 bytes (16 hex digits) of BLAKE3(public key): names the key, proves nothing. */
export function keyIdOf(publicKey: Uint8Array): string {
  return toHex(hashBytes(publicKey)).slice(0, KEY_ID_HEX_CHARS);
}

/** Shape check: the five fields present with the right types, hashes as 32-byte lowercase hex. */
export function isTreeHead(head: unknown): head is TreeHead {
  if (typeof head !== 'object' || head === null) return false;
  const h = head as Record<string, unknown>;
  return (
    typeof h.tenantId === 'string' &&
    Number.isSafeInteger(h.treeSize) &&
    (h.treeSize as number) >= 0 &&
    isHashHex(h.rootHash) &&
    isHashHex(h.headHash) &&
    typeof h.issuedAt === 'string'
  );
}

/** The signed bytes: TREE_HEAD_DOMAIN_TAG || utf8(RFC 8785 JSON of the five head fields). */
export function treeHeadMessage(head: TreeHead): Uint8Array {
  if (!isTreeHead(head)) throw new TypeError('malformed tree head');
  // Only the five head fields are signed, whatever else the object carries.
  const { tenantId, treeSize, rootHash, headHash, issuedAt } = head;
  const json = utf8.encode(canonicalJson({ tenantId, treeSize, rootHash, headHash, issuedAt }));
  const message = new Uint8Array(TREE_HEAD_DOMAIN_TAG.length + json.length);
  message.set(TREE_HEAD_DOMAIN_TAG);
  message.set(json, TREE_HEAD_DOMAIN_TAG.length);
  return message;
}

export function signTreeHead(head: TreeHead, privateKey: Uint8Array): SignedTreeHead {
  const { tenantId, treeSize, rootHash, headHash, issuedAt } = head;
  const signature = toHex(ed25519.sign(treeHeadMessage(head), privateKey));
  const keyId = keyIdOf(publicKeyFromPrivate(privateKey));
  return { tenantId, treeSize, rootHash, headHash, issuedAt, signature, keyId };
}

/** True only for a well-formed head whose keyId names `publicKey` and whose signature verifies. */
export function verifyTreeHead(signed: SignedTreeHead, publicKey: Uint8Array): boolean {
  try {
    if (!isTreeHead(signed) || signed.keyId !== keyIdOf(publicKey)) return false;
    const signature = fromHex(signed.signature, 64);
    // zip215: false = RFC 8032 strict checks, so every conforming verifier agrees on the verdict.
    return ed25519.verify(signature, treeHeadMessage(signed), publicKey, { zip215: false });
  } catch {
    return false;
  }
}
