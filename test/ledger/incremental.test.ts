// Incremental export verification (docs/LEDGER.md §7.3.1): a verifier keeps the newest checkpoint
// it verified and later checks only the events after it, with the consistency proof the export
// carries from the kept tree to the newest checkpoint. A rewritten event before the kept
// checkpoint is caught even when the rewriter re-chained and re-signed everything after it.
import { describe, expect, it } from 'vitest';
import { LedgerStreamVerifier } from '../../src/client/stream-verifier.ts';
import { must } from '../../src/core/must.ts';
import { GENESIS_HASH, type StoredLedgerEvent, toHex } from '../../src/ledger/format/hash.ts';
import { MerkleTree } from '../../src/ledger/format/merkle.ts';
import { generateSigningKey, publicKeyFromPrivate, type SignedTreeHead, signTreeHead } from '../../src/ledger/format/signed-head.ts';
import { EXPORT_FORMAT, type VerifierState, verifyExport } from '../../src/ledger/proofs/export-verify.ts';
import { buildChain, entryAt, link, TENANT } from './fixtures.ts';

const privateKey = generateSigningKey();
const publicKey = publicKeyFromPrivate(privateKey);

function headsOf(chain: StoredLedgerEvent[], sizes: number[]): SignedTreeHead[] {
  const tree = MerkleTree.fromEventHashes(chain.map((e) => e.hash));
  return sizes.map((treeSize) =>
    signTreeHead(
      {
        tenantId: TENANT,
        treeSize,
        rootHash: toHex(tree.root(treeSize)),
        headHash: treeSize ? must(chain[treeSize - 1]).hash : GENESIS_HASH,
        issuedAt: '2026-11-21T21:00:00.000Z',
      },
      privateKey,
    ),
  );
}

/** An export file's lines as `episodic export [--after]` writes them. */
function exportLines(chain: StoredLedgerEvent[], heads: SignedTreeHead[], afterSeq: number): unknown[] {
  const tree = MerkleTree.fromEventHashes(chain.map((e) => e.hash));
  const newest = must(heads.at(-1)).treeSize;
  const consistency =
    afterSeq > 0 && newest > afterSeq
      ? [{ consistency: { fromSize: afterSeq, toSize: newest, proof: tree.consistencyProof(afterSeq, newest).map(toHex) } }]
      : [];
  return [
    { format: EXPORT_FORMAT, tenantId: TENANT, afterSeq, toSeq: null },
    ...heads.map((checkpoint) => ({ checkpoint })),
    ...consistency,
    ...chain.filter((e) => e.seq > afterSeq),
  ];
}

const first = buildChain(30);
const firstHeads = headsOf(first, [10, 20, 30]);
const grown = link(
  Array.from({ length: 20 }, (_, i) => entryAt(31 + i)),
  must(first.at(-1)).hash,
);
const later = [...first, ...grown];
const laterHeads = headsOf(later, [10, 20, 30, 40, 50]);

function initialState(): VerifierState {
  const report = verifyExport(exportLines(first, firstHeads, 0), publicKey);
  expect(report).toMatchObject({ ok: true, eventsChecked: 30 });
  return must(report.state);
}

describe('incremental export verification', () => {
  it('a whole check keeps the newest checkpoint as the state', () => {
    expect(initialState()).toEqual({
      format: 'episodic.verifier-state.v1',
      tenantId: TENANT,
      treeSize: 30,
      rootHash: must(firstHeads[2]).rootHash,
      headHash: must(first[29]).hash,
    });
  });

  it('then checks only the new events and moves the state to the newest checkpoint', () => {
    const report = verifyExport(exportLines(later, laterHeads, 30), publicKey, initialState());
    expect(report).toMatchObject({ ok: true, eventsChecked: 20, checkpointsChecked: 2, state: { treeSize: 50, rootHash: must(laterHeads[4]).rootHash } });
  });

  it('catches an event rewritten before the kept checkpoint, re-chained and re-signed after it', () => {
    const state = initialState();
    const rewritten = link([{ ...entryAt(5), payload: { forged: true } }, ...Array.from({ length: 45 }, (_, i) => entryAt(6 + i))], must(first[3]).hash);
    const forged = [...first.slice(0, 4), ...rewritten];
    const report = verifyExport(exportLines(forged, headsOf(forged, [10, 20, 30, 40, 50]), 30), publicKey, state);
    expect(report.ok).toBe(false);
    // The re-signed checkpoint at the kept size is not the one verified before.
    expect(report).toMatchObject({ problem: 'root-mismatch', firstBadSeq: 30 });
  });

  it('catches it without the old checkpoints in the file: the chain no longer starts at the kept head', () => {
    const state = initialState();
    const rewritten = link([{ ...entryAt(5), payload: { forged: true } }, ...Array.from({ length: 45 }, (_, i) => entryAt(6 + i))], must(first[3]).hash);
    const forged = [...first.slice(0, 4), ...rewritten];
    const lines = exportLines(forged, headsOf(forged, [40, 50]), 30);
    expect(verifyExport(lines, publicKey, state)).toMatchObject({ ok: false, problem: 'prev-hash-mismatch', firstBadSeq: 31 });
  });

  it('refuses a consistency proof that does not extend the kept tree, and its absence', () => {
    const state = initialState();
    const lines = exportLines(later, laterHeads, 30);
    const bad = lines.map((line) =>
      typeof line === 'object' && line !== null && 'consistency' in line
        ? {
            consistency: {
              fromSize: 30,
              toSize: 50,
              proof: [toHex(new Uint8Array(32)), ...(line as { consistency: { proof: string[] } }).consistency.proof.slice(1)],
            },
          }
        : line,
    );
    expect(verifyExport(bad, publicKey, state)).toMatchObject({ ok: false, problem: 'proof-invalid', firstBadSeq: 50 });
    const none = lines.filter((line) => !(typeof line === 'object' && line !== null && 'consistency' in line));
    expect(verifyExport(none, publicKey, state)).toMatchObject({ ok: false, problem: 'proof-missing' });
  });

  it('refuses an export that does not start where the state ends, or of another tenant', () => {
    const state = initialState();
    expect(verifyExport(exportLines(later, laterHeads, 20), publicKey, state)).toMatchObject({ ok: false, problem: 'malformed' });
    expect(verifyExport(exportLines(later, laterHeads, 30), publicKey, { ...state, tenantId: '00000000-0000-4000-8000-000000000000' })).toMatchObject({
      ok: false,
      problem: 'tenant-mismatch',
    });
  });
});

describe('the client stream verifier with a kept state (§7.3.1)', () => {
  const proofHex = (chain: StoredLedgerEvent[], from: number, to: number) =>
    MerkleTree.fromEventHashes(chain.map((e) => e.hash))
      .consistencyProof(from, to)
      .map(toHex);

  it('starts after the kept checkpoint, checks only the new events and moves the state with a consistency proof', () => {
    const verifier = new LedgerStreamVerifier({ state: initialState() });
    expect(verifier.lastSeq).toBe(30);
    for (const e of grown) expect(verifier.check(e)).toEqual({ ok: true, duplicate: false, linked: true });
    const advanced = verifier.advance(must(laterHeads[4]), proofHex(later, 30, 50), publicKey);
    expect(advanced).toEqual({
      ok: true,
      state: { format: 'episodic.verifier-state.v1', tenantId: TENANT, treeSize: 50, rootHash: must(laterHeads[4]).rootHash, headHash: must(later[49]).hash },
    });
    // The moved state is what the next run starts from, as `episodic verify --state` keeps it.
    expect(new LedgerStreamVerifier({ state: verifier.state }).lastSeq).toBe(50);
  });

  it('catches an event rewritten before the kept checkpoint: re-chained, the stream no longer links to the kept head', () => {
    const rewritten = link([{ ...entryAt(5), payload: { forged: true } }, ...Array.from({ length: 45 }, (_, i) => entryAt(6 + i))], must(first[3]).hash);
    const forged = [...first.slice(0, 4), ...rewritten];
    const verifier = new LedgerStreamVerifier({ state: initialState() });
    expect(verifier.check(must(forged[30]))).toMatchObject({ ok: false, report: { problem: 'prev-hash-mismatch', firstBadSeq: 31 } });
  });

  it('catches it when the new events are genuine but the new checkpoint was signed over the rewritten history', () => {
    const rewritten = link([{ ...entryAt(5), payload: { forged: true } }, ...Array.from({ length: 45 }, (_, i) => entryAt(6 + i))], must(first[3]).hash);
    const forged = [...first.slice(0, 4), ...rewritten];
    const forgedTree = MerkleTree.fromEventHashes(forged.map((e) => e.hash));
    const verifier = new LedgerStreamVerifier({ state: initialState() });
    for (const e of grown) expect(verifier.check(e).ok).toBe(true);
    // A signer that signs anything: the genuine head hash over the forged tree's root.
    const head = signTreeHead(
      { tenantId: TENANT, treeSize: 50, rootHash: toHex(forgedTree.root(50)), headHash: must(later[49]).hash, issuedAt: '2026-11-21T21:00:00.000Z' },
      privateKey,
    );
    expect(verifier.advance(head, proofHex(forged, 30, 50), publicKey)).toMatchObject({ ok: false, report: { problem: 'proof-invalid', firstBadSeq: 50 } });
    expect(verifier.state?.treeSize).toBe(30);
    // And the forged checkpoint itself, whose head hash is not the event the stream verified.
    const forgedHeads = headsOf(forged, [50]);
    expect(verifier.advance(must(forgedHeads[0]), proofHex(forged, 30, 50), publicKey)).toMatchObject({
      ok: false,
      report: { problem: 'head-hash-mismatch' },
    });
  });

  it('refuses a checkpoint with another key, beyond the events verified, or re-signed at the kept size', () => {
    const verifier = new LedgerStreamVerifier({ state: initialState() });
    for (const e of grown.slice(0, 10)) verifier.check(e);
    const otherKey = publicKeyFromPrivate(generateSigningKey());
    expect(verifier.advance(must(laterHeads[3]), proofHex(later, 30, 40), otherKey)).toMatchObject({ ok: false, report: { problem: 'signature' } });
    expect(verifier.advance(must(laterHeads[4]), proofHex(later, 30, 50), publicKey)).toMatchObject({ ok: false, report: { problem: 'missing-tail' } });
    const resigned = signTreeHead({ ...must(firstHeads[2]), rootHash: toHex(new Uint8Array(32)) }, privateKey);
    expect(verifier.advance(resigned, [], publicKey)).toMatchObject({ ok: false, report: { problem: 'root-mismatch', firstBadSeq: 30 } });
    expect(verifier.advance(must(laterHeads[3]), proofHex(later, 30, 40), publicKey)).toMatchObject({ ok: true, state: { treeSize: 40 } });
    expect(() => new LedgerStreamVerifier({ state: initialState(), filtered: true })).toThrow(TypeError);
  });
});
