// The worked example of docs/LEDGER.md as golden vectors: if any of these change, every stored
// hash changes with them, and the spec page is stale.
import { describe, expect, it } from 'vitest';
import { GENESIS_HASH, canonicalEntryBytes, chainHash, contentHash, hashBytes, toHex, type LedgerEntry } from '../../src/ledger/hash.ts';
import { MerkleTree, eventLeafHash } from '../../src/ledger/merkle.ts';
import { keyIdOf, publicKeyFromPrivate, signTreeHead, treeHeadMessage } from '../../src/ledger/signed-head.ts';
import { buildProofBundle, verifyProofBundle } from '../../src/ledger/verify.ts';

const tenantId = '6f1c1d2e-8a3b-4c5d-9e0f-112233445566';
const episodeId = '0b8e2f4a-1c3d-4e5f-8a9b-c0d1e2f3a4b5';
const step = { stepNumber: 1, kind: 'tool_call', tool: 'shell', parameters: { cmd: 'npm test' } };
const STEP_HASH = '9d6de7a1da26feb0c3e391f5f169b3ee92a30abc20174546fe8714aeb8a34472';

const entries: LedgerEntry[] = [
  {
    tenantId,
    seq: 1,
    type: 'episode.started',
    episodeId,
    workItemId: null,
    payload: { task: 'Fix the failing build', context: { language: 'typescript' } },
    createdAt: '2026-11-21T20:50:00.000Z',
  },
  {
    tenantId,
    seq: 2,
    type: 'steps.logged',
    episodeId,
    workItemId: null,
    payload: { steps: [{ stepNumber: 1, contentHash: STEP_HASH }] },
    createdAt: '2026-11-21T20:50:01.250Z',
  },
  {
    tenantId,
    seq: 3,
    type: 'episode.completed',
    episodeId,
    workItemId: null,
    payload: { outcome: 'success', reward: 0.875, note: 'café ✓' },
    createdAt: '2026-11-21T20:50:02.500Z',
  },
];

const HASHES = [
  '2393b500dca5e2b547dd5acbe1ff06be092fc6b0bdc5117d43cb8bcb1d0bf131',
  'b50d9b3d56a689b2848faaf290cdb7e5a0cf7650be774fa938dd1c76871df546',
  '6bff6fed7226222041bc0e34f1d0133ee0ae1e63cdd4abf7cbcfd2647fd9a767',
];
const LEAVES = [
  'd6eb021588b760c2ece4e5fe887b7a292b899e34207d74bc3e88126dc3e3fb0c',
  'fd7b6c80d4ba4d159fd6f27f0cfcabc3ab72de63bd6b09082d234ac697880de6',
  'e88fad148fc627a7f4cf670748219c028d5123d1cf1c18d5b04598c04eb20cf8',
];
const ROOT_2 = 'f922614dba68524263b3b36db78e4c3462e713e6a70c5984c4b0a78735ca239d';
const ROOT_3 = '966d6670bdd53bfebc980fd9443b73cf74d71b5c294d1b14572f00ef6321afa5';

describe('docs/LEDGER.md worked example', () => {
  let prevHash = GENESIS_HASH;
  const events = entries.map((entry) => {
    const event = { ...entry, prevHash, hash: chainHash(prevHash, entry) };
    prevHash = event.hash;
    return event;
  });
  const tree = MerkleTree.fromEventHashes(events.map((e) => e.hash));
  const privateKey = hashBytes(new TextEncoder().encode('episodic example signing key'));
  const head = { tenantId, treeSize: 3, rootHash: ROOT_3, headHash: HASHES[2]!, issuedAt: '2026-11-21T20:50:10.000Z' };

  it('content hash, canonical bytes and chain hashes', () => {
    expect(contentHash(step)).toBe(STEP_HASH);
    expect(new TextDecoder().decode(canonicalEntryBytes(entries[2]!))).toBe(
      '{"createdAt":"2026-11-21T20:50:02.500Z","episodeId":"0b8e2f4a-1c3d-4e5f-8a9b-c0d1e2f3a4b5",' +
        '"payload":{"note":"café ✓","outcome":"success","reward":0.875},"seq":3,' +
        '"tenantId":"6f1c1d2e-8a3b-4c5d-9e0f-112233445566","type":"episode.completed","v":1,"workItemId":null}',
    );
    expect(canonicalEntryBytes(entries[2]!).length).toBe(266);
    expect(events.map((e) => e.hash)).toEqual(HASHES);
  });

  it('leaves, roots and proofs', () => {
    expect(HASHES.map((h) => toHex(eventLeafHash(h)))).toEqual(LEAVES);
    expect([1, 2, 3].map((n) => toHex(tree.root(n)))).toEqual([LEAVES[0], ROOT_2, ROOT_3]);
    expect(tree.inclusionProof(1).map(toHex)).toEqual([LEAVES[0], LEAVES[2]]);
    expect(tree.inclusionProof(2).map(toHex)).toEqual([ROOT_2]);
    expect(tree.consistencyProof(2).map(toHex)).toEqual([LEAVES[2]]);
    expect(tree.consistencyProof(1).map(toHex)).toEqual([LEAVES[1], LEAVES[2]]);
  });

  it('signed tree head', () => {
    const publicKey = publicKeyFromPrivate(privateKey);
    expect(toHex(privateKey)).toBe('9e341bde8fda9c01b5ce950c6c577d769c8788fc985bf3be72f4099c96eca328');
    expect(toHex(publicKey)).toBe('14ea44316fe1cd228ff68c213f1e2ccf82cd43d6a701e8f9888e4971d22f5cca');
    expect(keyIdOf(publicKey)).toBe('bed385be4c8862b4');
    expect(new TextDecoder().decode(treeHeadMessage(head))).toBe(
      'episodic.sth.v1\0' +
        `{"headHash":"${HASHES[2]}","issuedAt":"2026-11-21T20:50:10.000Z","rootHash":"${ROOT_3}",` +
        `"tenantId":"${tenantId}","treeSize":3}`,
    );
    const signed = signTreeHead(head, privateKey);
    expect(signed.signature).toBe(
      'acc06cb4f166eedabdabc34f8527821fe4efecb98ebfe5af7ad215d1654b2725e95c64be062f86e0b22440e5d37873e8d888a5167c9a24d8def0e750e1ad5204',
    );
    const bundle = buildProofBundle([events[1]!], tree, signed);
    expect(bundle.proofs).toEqual([{ seq: 2, leafIndex: 1, auditPath: [LEAVES[0], LEAVES[2]] }]);
    expect(verifyProofBundle(bundle, publicKey)).toEqual({ ok: true, signatureValid: true, eventsChecked: 1, problems: [] });
  });
});
