import { describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { chainHash, GENESIS_HASH, type StoredLedgerEvent, toHex } from '../../src/ledger/format/hash.ts';
import { EMPTY_TREE_ROOT, MerkleTree } from '../../src/ledger/format/merkle.ts';
import { generateSigningKey, publicKeyFromPrivate, type SignedTreeHead, signTreeHead } from '../../src/ledger/format/signed-head.ts';
import { buildProofBundle, type ProofBundle, verifyProofBundle } from '../../src/ledger/proofs/bundle.ts';
import { verifyAgainstCheckpoint, verifyChain } from '../../src/ledger/proofs/verify.ts';
import { buildChain, EPISODES, entryAt, link, TENANT } from './fixtures.ts';

const chain = buildChain(40);
const tree = MerkleTree.fromEventHashes(chain.map((e) => e.hash));
const privateKey = generateSigningKey();
const publicKey = publicKeyFromPrivate(privateKey);

function headAt(treeSize: number): SignedTreeHead {
  const rootHash = toHex(tree.root(treeSize));
  const headHash = treeSize === 0 ? GENESIS_HASH : must(chain[treeSize - 1]).hash;
  return signTreeHead({ tenantId: TENANT, treeSize, rootHash, headHash, issuedAt: '2026-11-21T21:00:00.000Z' }, privateKey);
}

const at = (seq: number) => must(chain[seq - 1]);
const replace = (events: StoredLedgerEvent[], seq: number, event: StoredLedgerEvent) => events.map((e) => (e.seq === seq ? event : e));

describe('verifyChain', () => {
  it('accepts an intact chain, an empty range and a JSON round trip', () => {
    expect(verifyChain(chain)).toEqual({ ok: true, checked: 40 });
    expect(verifyChain([])).toEqual({ ok: true, checked: 0 });
    expect(verifyChain(JSON.parse(JSON.stringify(chain)) as StoredLedgerEvent[]).ok).toBe(true);
  });

  it('accepts a range anchored on the hash before it', () => {
    const range = chain.slice(10, 20);
    expect(verifyChain(range, { expectedFirstSeq: 11, expectedPrevHash: at(10).hash })).toEqual({ ok: true, checked: 10 });
  });

  it('reports a changed payload at its seq', () => {
    const tampered = replace(chain, 7, { ...at(7), payload: { tokens: 1 } });
    expect(verifyChain(tampered)).toMatchObject({ ok: false, checked: 6, firstBadSeq: 7, problem: 'hash-mismatch' });
  });

  it('reports a re-hashed change where the next link breaks', () => {
    const changed = { ...at(7), payload: { tokens: 1 } };
    const tampered = replace(chain, 7, { ...changed, hash: chainHash(changed.prevHash, changed) });
    expect(verifyChain(tampered)).toMatchObject({ ok: false, firstBadSeq: 8, problem: 'prev-hash-mismatch' });
  });

  it('reports a deleted event as a gap', () => {
    const deleted = chain.filter((e) => e.seq !== 12);
    expect(verifyChain(deleted)).toMatchObject({ ok: false, checked: 11, firstBadSeq: 12, problem: 'seq-gap' });
  });

  it('reports a swapped pair as out of order', () => {
    const swapped = [...chain];
    [swapped[4], swapped[5]] = [must(swapped[5]), must(swapped[4])];
    expect(verifyChain(swapped)).toMatchObject({ ok: false, firstBadSeq: 5, problem: 'seq-order' });
  });

  it('reports a duplicated event as out of order', () => {
    const duplicated = [...chain.slice(0, 9), at(9), ...chain.slice(9)];
    expect(verifyChain(duplicated)).toMatchObject({ ok: false, firstBadSeq: 10, problem: 'seq-order' });
  });

  it('reports a broken prevHash link', () => {
    const broken = replace(chain, 3, { ...at(3), prevHash: 'cd'.repeat(32) });
    expect(verifyChain(broken)).toMatchObject({ ok: false, firstBadSeq: 3, problem: 'prev-hash-mismatch' });
  });

  it('reports a missing first event against the expected anchor', () => {
    expect(verifyChain(chain.slice(1), { expectedFirstSeq: 1 })).toMatchObject({ ok: false, firstBadSeq: 1, problem: 'seq-gap' });
    const range = chain.slice(10, 20);
    expect(verifyChain(range, { expectedFirstSeq: 11, expectedPrevHash: at(9).hash })).toMatchObject({
      firstBadSeq: 11,
      problem: 'prev-hash-mismatch',
    });
  });

  it('reports an event from another tenant', () => {
    const foreign = link(chain.map((e) => ({ ...e, tenantId: e.seq === 4 ? must(EPISODES[0]) : e.tenantId })));
    expect(verifyChain(foreign)).toMatchObject({ ok: false, firstBadSeq: 4, problem: 'tenant-mismatch' });
  });

  it('reports malformed events instead of throwing', () => {
    const cases: unknown[] = [
      { ...at(2), hash: 'XYZ' },
      { ...at(2), seq: '2' },
      { ...at(2), episodeId: undefined },
      { ...at(2), payload: { text: '\ud800' } }, // lone surrogate: no canonical JSON
      null,
    ];
    for (const bad of cases) {
      const events = [at(1), bad, at(3)] as StoredLedgerEvent[];
      expect(verifyChain(events)).toMatchObject({ ok: false, checked: 1, firstBadSeq: 2, problem: 'malformed' });
    }
    expect(verifyChain('nope' as unknown as StoredLedgerEvent[])).toMatchObject({ ok: false, problem: 'malformed' });
  });
});

describe('verifyAgainstCheckpoint', () => {
  it('accepts a chain at or beyond a genuine checkpoint', () => {
    expect(verifyAgainstCheckpoint(chain, headAt(40), publicKey)).toEqual({ ok: true, checked: 40 });
    expect(verifyAgainstCheckpoint(chain, headAt(25), publicKey)).toEqual({ ok: true, checked: 40 });
    expect(verifyAgainstCheckpoint([], headAt(0), publicKey)).toEqual({ ok: true, checked: 0 });
    expect(headAt(0).rootHash).toBe(toHex(EMPTY_TREE_ROOT));
  });

  it('reports a cut-off tail at the first missing seq', () => {
    expect(verifyAgainstCheckpoint(chain.slice(0, 31), headAt(35), publicKey)).toMatchObject({
      ok: false,
      checked: 31,
      firstBadSeq: 32,
      problem: 'missing-tail',
    });
    expect(verifyAgainstCheckpoint([], headAt(1))).toMatchObject({ firstBadSeq: 1, problem: 'missing-tail' });
  });

  it('reports a consistently rewritten history', () => {
    const rewritten = link(chain.map((e) => (e.seq === 20 ? { ...e, payload: 'rewritten' } : e)));
    expect(verifyChain(rewritten).ok).toBe(true);
    expect(verifyAgainstCheckpoint(rewritten, headAt(30), publicKey)).toMatchObject({ ok: false, problem: 'head-hash-mismatch' });
  });

  it('reports a root that does not match the events', () => {
    const head = headAt(30);
    const forged = signTreeHead({ ...head, rootHash: toHex(tree.root(29)) }, privateKey);
    expect(verifyAgainstCheckpoint(chain, forged, publicKey)).toMatchObject({ ok: false, problem: 'root-mismatch' });
  });

  it('reports chain damage before the checkpoint', () => {
    const damaged = replace(chain, 9, { ...at(9), type: 'episode.cancelled' });
    expect(verifyAgainstCheckpoint(damaged, headAt(30))).toMatchObject({ firstBadSeq: 9, problem: 'hash-mismatch' });
  });

  it('reports a bad signature and a malformed head', () => {
    const other = publicKeyFromPrivate(generateSigningKey());
    expect(verifyAgainstCheckpoint(chain, headAt(30), other)).toMatchObject({ ok: false, problem: 'signature' });
    expect(verifyAgainstCheckpoint(chain, { ...headAt(30), treeSize: -3 })).toMatchObject({ ok: false, problem: 'malformed' });
  });
});

describe('verifyProofBundle', () => {
  const head = headAt(36);
  const episodeEvents = chain.filter((e) => e.episodeId === EPISODES[0] && e.seq <= 36);
  const make = (events: StoredLedgerEvent[], t = tree, h = head) =>
    buildProofBundle({ episodeId: must(EPISODES[0]), publicKey: toHex(publicKey), events, steps: [], rows: [] }, t, h);
  const bundle = make(episodeEvents);
  // Adjacent events of one episode too, so links inside the bundle are checked.
  const oneEpisode = link(Array.from({ length: 8 }, (_, i) => ({ ...entryAt(i + 1), episodeId: must(EPISODES[0]) })));
  const oneTree = MerkleTree.fromEventHashes(oneEpisode.map((e) => e.hash));
  const oneHead = signTreeHead(
    { tenantId: TENANT, treeSize: 8, rootHash: toHex(oneTree.root()), headHash: must(oneEpisode[7]).hash, issuedAt: '2026-11-21T21:00:00.000Z' },
    privateKey,
  );
  const adjacent = make(oneEpisode.slice(2, 7), oneTree, oneHead);

  const problemsOf = (b: ProofBundle) => verifyProofBundle(b, publicKey).problems.map((p) => [p.seq, p.problem]);

  it('accepts a genuine bundle, also after a JSON round trip', () => {
    expect(verifyProofBundle(bundle, publicKey)).toEqual({
      ok: true,
      signatureValid: true,
      eventsChecked: episodeEvents.length,
      stepsChecked: 0,
      stepsForgotten: 0,
      rowsChecked: 0,
      rowsForgotten: 0,
      problems: [],
    });
    expect(verifyProofBundle(JSON.parse(JSON.stringify(bundle)) as ProofBundle, publicKey).ok).toBe(true);
    expect(verifyProofBundle(adjacent, publicKey).ok).toBe(true);
    expect(verifyProofBundle(make([at(36)]), publicKey).ok).toBe(true);
  });

  it('reports a tampered event', () => {
    const victim = must(episodeEvents[3]);
    const tampered = { ...bundle, events: replace(bundle.events, victim.seq, { ...victim, payload: null }) };
    expect(problemsOf(tampered)).toEqual([[victim.seq, 'hash-mismatch']]);
  });

  it('reports a re-hashed event whose proof no longer leads to the root', () => {
    const victim = { ...must(episodeEvents[2]), payload: 'forged' };
    const rehashed = { ...victim, hash: chainHash(victim.prevHash, victim) };
    expect(problemsOf({ ...bundle, events: replace(bundle.events, victim.seq, rehashed) })).toEqual([[victim.seq, 'proof-invalid']]);
  });

  it('reports a broken link between adjacent bundled events', () => {
    const victim = { ...must(adjacent.events[2]), prevHash: 'ee'.repeat(32) };
    const rehashed = { ...victim, hash: chainHash(victim.prevHash, victim) };
    const seqs = problemsOf({ ...adjacent, events: replace(adjacent.events, victim.seq, rehashed) });
    expect(seqs[0]).toEqual([victim.seq, 'prev-hash-mismatch']);
  });

  it('reports a flipped byte in an audit path', () => {
    const proofs = bundle.proofs.map((p, i) =>
      i === 1 ? { ...p, auditPath: p.auditPath.map((h, j) => (j === 0 ? (h[0] === '0' ? '1' : '0') + h.slice(1) : h)) } : p,
    );
    expect(problemsOf({ ...bundle, proofs })).toEqual([[must(bundle.proofs[1]).seq, 'proof-invalid']]);
  });

  it('reports missing, misplaced, orphan and duplicate proofs', () => {
    const [first, second, ...rest] = bundle.proofs;
    expect(problemsOf({ ...bundle, proofs: [must(second), ...rest] })).toEqual([[must(first).seq, 'proof-missing']]);
    expect(problemsOf({ ...bundle, proofs: [{ ...must(first), leafIndex: must(first).seq }, must(second), ...rest] })).toEqual([
      [must(first).seq, 'proof-invalid'],
    ]);
    expect(problemsOf({ ...bundle, events: bundle.events.slice(1) })).toEqual([[must(first).seq, 'malformed']]);
    expect(problemsOf({ ...bundle, proofs: [must(first), ...bundle.proofs] })).toEqual([[must(first).seq, 'malformed']]);
  });

  it('reports events beyond the tree head', () => {
    const later = make([at(30)]);
    const beyond = { ...later, events: [...later.events, at(38)] };
    expect(problemsOf(beyond)).toEqual([[38, 'proof-invalid']]);
  });

  it('reports a wrong key, a forged head and a foreign tenant', () => {
    const other = publicKeyFromPrivate(generateSigningKey());
    expect(verifyProofBundle(bundle, other)).toMatchObject({ ok: false, signatureValid: false, eventsChecked: episodeEvents.length });
    const forgedHead = { ...head, rootHash: toHex(tree.root(35)) };
    const report = verifyProofBundle({ ...bundle, treeHead: forgedHead }, publicKey);
    expect(report.signatureValid).toBe(false);
    expect(report.problems.map((p) => p.problem)).toContain('proof-invalid');
    expect(problemsOf({ ...bundle, tenantId: must(EPISODES[1]) })[0]).toEqual([undefined, 'tenant-mismatch']);
  });

  it('reports a malformed bundle instead of throwing', () => {
    for (const bad of [null, {}, { ...bundle, treeHead: null }, { ...bundle, events: 'x' }]) {
      expect(verifyProofBundle(bad as unknown as ProofBundle, publicKey)).toMatchObject({ ok: false, problems: [{ problem: 'malformed' }] });
    }
    const badPath = bundle.proofs.map((p, i) => (i === 0 ? { ...p, auditPath: ['zz'] } : p));
    expect(problemsOf({ ...bundle, proofs: badPath })).toEqual([
      [undefined, 'malformed'],
      [must(bundle.proofs[0]).seq, 'proof-missing'],
    ]);
    expect(problemsOf({ ...bundle, events: [null as unknown as StoredLedgerEvent, ...bundle.events] })).toEqual([[undefined, 'malformed']]);
  });
});
