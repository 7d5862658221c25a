// Signed tree heads (checkpoints): a chain alone cannot reveal a cut-off tail, a signed
// (size, root, head hash) published regularly can. Ed25519 per RFC 8032, verified with the
// cofactorless equation (docs/LEDGER.md §5.1), so every verifier reaches OpenSSL's verdict.
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { bytesEqual, canonicalJson, fromHex, hashBytes, isHashHex, toHex } from './hash.ts';
import { hasExactly, isCreatedAt, isUuid } from './shape.ts';

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

const TREE_HEAD_MEMBERS = ['tenantId', 'treeSize', 'rootHash', 'headHash', 'issuedAt'];
const SIGNED_HEAD_MEMBERS = [...TREE_HEAD_MEMBERS, 'signature', 'keyId'];
const SIGNATURE_HEX = /^[0-9a-f]{128}$/;
const KEY_ID_HEX = /^[0-9a-f]{16}$/;

/** Shape check of the five signed fields: lowercase uuid, treeSize a safe integer, hashes as hex, issuedAt as §2's createdAt. */
export function isTreeHead(head: unknown): head is TreeHead {
  if (typeof head !== 'object' || head === null) return false;
  const h = head as Record<string, unknown>;
  return (
    isUuid(h.tenantId) &&
    Number.isSafeInteger(h.treeSize) &&
    (h.treeSize as number) >= 0 &&
    isHashHex(h.rootHash) &&
    isHashHex(h.headHash) &&
    isCreatedAt(h.issuedAt)
  );
}

/** A signed head as exported: exactly the seven members of §5, each well-formed. */
export function isSignedTreeHead(head: unknown): head is SignedTreeHead {
  if (!isTreeHead(head) || !hasExactly(head, SIGNED_HEAD_MEMBERS)) return false;
  const h = head as unknown as Record<string, unknown>;
  return typeof h.signature === 'string' && SIGNATURE_HEX.test(h.signature) && typeof h.keyId === 'string' && KEY_ID_HEX.test(h.keyId);
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

const { Point } = ed25519;
const GROUP_ORDER = Point.Fn.ORDER;

function numberLE(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i] ?? 0);
  return n;
}

/**
 * A public key a verifier accepts (§5.1): the canonical encoding (y < p) of a curve point that is
 * not of small order. Keys come from the caller; a key failing this is refused before any signature.
 */
export function isAcceptablePublicKey(publicKey: Uint8Array): boolean {
  try {
    return publicKey.length === 32 && !Point.fromBytes(publicKey, false).isSmallOrder();
  } catch {
    return false;
  }
}

/**
 * RFC 8032 §5.1.7 with the cofactorless equation, as OpenSSL checks it: S < L, then
 * encode([S]B - [k]A) must equal the 32 bytes of R, k = SHA-512(R || A || M) mod L. A signature
 * valid only under the cofactored equation ([8][S]B = [8]R + [8][k]A, which noble's verify checks)
 * is refused. false for an unacceptable key.
 */
export function verifyEd25519Strict(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== 64 || !isAcceptablePublicKey(publicKey)) return false;
  const r = signature.subarray(0, 32);
  const s = numberLE(signature.subarray(32));
  if (s >= GROUP_ORDER) return false;
  const A = Point.fromBytes(publicKey, false);
  const digest = new Uint8Array(64 + message.length);
  digest.set(r);
  digest.set(publicKey, 32);
  digest.set(message, 64);
  const k = numberLE(sha512(digest)) % GROUP_ORDER;
  const expectedR = Point.BASE.multiplyUnsafe(s).subtract(A.multiplyUnsafe(k));
  return bytesEqual(expectedR.toBytes(), r);
}

/** True only for a well-formed head whose keyId names `publicKey` and whose signature verifies strictly. */
export function verifyTreeHead(signed: SignedTreeHead, publicKey: Uint8Array): boolean {
  try {
    if (!isTreeHead(signed) || signed.keyId !== keyIdOf(publicKey)) return false;
    return verifyEd25519Strict(fromHex(signed.signature, 64), treeHeadMessage(signed), publicKey);
  } catch {
    return false;
  }
}
