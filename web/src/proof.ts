// Proof bundle verification in the browser, from docs/LEDGER.md sections 4 to 7 alone (as
// chain.ts does for the chain): the tree head's Ed25519 signature, each event's chain hash, each
// event's inclusion proof against the signed root, links between bundled neighbours, and the head
// hash. test/web/proof.test.ts pins it to the server's bundles and src/ledger/proofs/verify.ts.
import { ed25519 } from '@noble/curves/ed25519.js';
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import canonicalize from 'canonicalize';
import { chainHash, type LedgerEvent } from './chain.ts';

export interface TreeHead {
  tenantId: string;
  treeSize: number;
  rootHash: string;
  headHash: string;
  issuedAt: string;
  signature: string;
  keyId: string;
}
export interface Bundle {
  tenantId: string;
  events: Array<Omit<LedgerEvent, 'seq'> & { seq: number }>;
  proofs: Array<{ seq: number; leafIndex: number; auditPath: string[] }>;
  treeHead: TreeHead;
}
export interface BundleVerdict {
  ok: boolean;
  signatureValid: boolean;
  eventsChecked: number;
  problems: string[];
}

const utf8 = new TextEncoder();
const STH_TAG = utf8.encode('episodic.sth.v1\0');
const HEX32 = /^[0-9a-f]{64}$/;

/** keyId = the first 16 hex digits of hex(BLAKE3(publicKey)). */
export const keyIdOf = (publicKeyHex: string) => bytesToHex(blake3(hexToBytes(publicKeyHex))).slice(0, 16);

function signatureValid(head: TreeHead, publicKeyHex: string): boolean {
  try {
    if (head.keyId !== keyIdOf(publicKeyHex)) return false;
    const { tenantId, treeSize, rootHash, headHash, issuedAt } = head;
    const json = utf8.encode(canonicalize({ tenantId, treeSize, rootHash, headHash, issuedAt }) ?? '');
    const message = new Uint8Array(STH_TAG.length + json.length);
    message.set(STH_TAG);
    message.set(json, STH_TAG.length);
    return ed25519.verify(hexToBytes(head.signature), message, hexToBytes(publicKeyHex), { zip215: false });
  } catch {
    return false;
  }
}

function node(left: Uint8Array, right: Uint8Array): Uint8Array {
  const input = new Uint8Array(65);
  input[0] = 0x01;
  input.set(left, 1);
  input.set(right, 33);
  return blake3(input);
}

function leaf(chainHashHex: string): Uint8Array {
  const input = new Uint8Array(33);
  input.set(hexToBytes(chainHashHex), 1);
  return blake3(input);
}

/** RFC 9162 section 2.1.3.2 over BLAKE3. */
export function inclusionHolds(leafIndex: number, treeSize: number, leafHash: Uint8Array, path: string[], rootHex: string): boolean {
  if (!Number.isSafeInteger(leafIndex) || leafIndex < 0 || leafIndex >= treeSize || !path.every((p) => HEX32.test(p))) return false;
  let fn = leafIndex;
  let sn = treeSize - 1;
  let r = leafHash;
  for (const hex of path) {
    if (sn === 0) return false;
    const p = hexToBytes(hex);
    if (fn % 2 === 1 || fn === sn) {
      r = node(p, r);
      while (fn % 2 === 0 && fn !== 0) [fn, sn] = [fn / 2, Math.floor(sn / 2)];
    } else {
      r = node(r, p);
    }
    [fn, sn] = [Math.floor(fn / 2), Math.floor(sn / 2)];
  }
  return sn === 0 && bytesToHex(r) === rootHex;
}

function eventProblem(
  e: Bundle['events'][number],
  bundle: Bundle,
  bySeq: Map<number, Bundle['events'][number]>,
  proofs: Map<number, Bundle['proofs'][number]>,
): string | null {
  const head = bundle.treeHead;
  if (e.tenantId !== bundle.tenantId) return 'belongs to another tenant';
  if (chainHash(e.prevHash, { ...e, seq: String(e.seq) }) !== e.hash) return 'hash mismatch: its content was changed';
  const before = bySeq.get(e.seq - 1);
  if (before && before.hash !== e.prevHash) return 'does not link to the event before it';
  if (e.seq > head.treeSize) return 'is not covered by the signed tree head';
  const proof = proofs.get(e.seq);
  if (!proof) return 'has no inclusion proof';
  if (proof.leafIndex !== e.seq - 1 || !inclusionHolds(proof.leafIndex, head.treeSize, leaf(e.hash), proof.auditPath, head.rootHash))
    return 'inclusion proof does not verify';
  if (e.seq === head.treeSize && e.hash !== head.headHash) return 'differs from the signed head hash';
  return null;
}

/** Never throws: a malformed bundle is a failed verdict. */
export function verifyBundle(bundle: Bundle, publicKeyHex: string): BundleVerdict {
  try {
    const problems: string[] = [];
    const signature = signatureValid(bundle.treeHead, publicKeyHex);
    if (!signature) problems.push('tree head signature does not verify with the ledger key');
    if (bundle.treeHead.tenantId !== bundle.tenantId) problems.push('tree head names another tenant');
    const bySeq = new Map(bundle.events.map((e) => [e.seq, e]));
    const proofs = new Map(bundle.proofs.map((p) => [p.seq, p]));
    if (bySeq.size !== bundle.events.length || proofs.size !== bundle.proofs.length) problems.push('duplicate events or proofs');
    let eventsChecked = 0;
    for (const e of bundle.events) {
      const problem = eventProblem(e, bundle, bySeq, proofs);
      if (problem) problems.push(`event ${e.seq} ${problem}`);
      else eventsChecked++;
    }
    return { ok: problems.length === 0, signatureValid: signature, eventsChecked, problems };
  } catch (err) {
    return { ok: false, signatureValid: false, eventsChecked: 0, problems: [`malformed bundle: ${(err as Error).message}`] };
  }
}
