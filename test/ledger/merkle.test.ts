import { blake3 } from '@noble/hashes/blake3.js';
import { describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { toHex } from '../../src/ledger/format/hash.ts';
import {
  EMPTY_TREE_ROOT,
  eventLeafHash,
  hashChildren,
  hashLeaf,
  MerkleTree,
  merkleRoot,
  verifyConsistency,
  verifyInclusion,
} from '../../src/ledger/format/merkle.ts';

// Test-local hashing straight from BLAKE3, independent of the code under test.
function H(...parts: Uint8Array[]): Uint8Array {
  const input = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    input.set(p, offset);
    offset += p.length;
  }
  return blake3(input);
}
const L = (data: Uint8Array) => H(Uint8Array.of(0x00), data);
const N = (left: Uint8Array, right: Uint8Array) => H(Uint8Array.of(0x01), left, right);

// Leaf data shaped like ledger leaves: 32 bytes each (a chain hash).
const data = Array.from({ length: 64 }, (_, i) => blake3(Uint8Array.of(i)));
const leaves = data.map(L);
const leaf = (i: number) => must(leaves[i]);

// Reference RFC 6962 §2.1 definitions, written as plainly as the RFC states them.
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}
function refRoot(d: Uint8Array[]): Uint8Array {
  if (d.length === 0) return H();
  if (d.length === 1) return must(d[0]);
  const k = split(d.length);
  return N(refRoot(d.slice(0, k)), refRoot(d.slice(k)));
}
function refPath(m: number, d: Uint8Array[]): Uint8Array[] {
  if (d.length <= 1) return [];
  const k = split(d.length);
  return m < k ? [...refPath(m, d.slice(0, k)), refRoot(d.slice(k))] : [...refPath(m - k, d.slice(k)), refRoot(d.slice(0, k))];
}
function refSubproof(m: number, d: Uint8Array[], b: boolean): Uint8Array[] {
  if (m === d.length) return b ? [] : [refRoot(d)];
  const k = split(d.length);
  return m <= k ? [...refSubproof(m, d.slice(0, k), b), refRoot(d.slice(k))] : [...refSubproof(m - k, d.slice(k), false), refRoot(d.slice(0, k))];
}

function flipByte(path: Uint8Array[], element: number, byte: number): Uint8Array[] {
  return path.map((p, i) => {
    if (i !== element) return p;
    const copy = p.slice();
    copy[byte] = must(copy[byte]) ^ 0x01;
    return copy;
  });
}

const hex = (bytes: Uint8Array) => toHex(bytes);
const hexes = (list: Uint8Array[]) => list.map(hex);

describe('leaf and node hashing', () => {
  it('prefixes 0x00 for leaves and 0x01 for nodes', () => {
    expect(hex(hashLeaf(must(data[0])))).toBe(hex(L(must(data[0]))));
    expect(hex(hashChildren(leaf(0), leaf(1)))).toBe(hex(N(leaf(0), leaf(1))));
    expect(hex(eventLeafHash(hex(must(data[3]))))).toBe(hex(leaf(3)));
  });

  it('gives the empty tree the hash of the empty string', () => {
    expect(hex(EMPTY_TREE_ROOT)).toBe(hex(H()));
    expect(hex(merkleRoot([]))).toBe(hex(H()));
    expect(hex(new MerkleTree().root())).toBe(hex(H()));
  });
});

describe('roots of hand-computed trees', () => {
  const n01 = N(leaf(0), leaf(1));
  const n23 = N(leaf(2), leaf(3));
  const n45 = N(leaf(4), leaf(5));
  const n67 = N(leaf(6), leaf(7));
  const expected: Record<number, Uint8Array> = {
    1: leaf(0),
    2: n01,
    3: N(n01, leaf(2)),
    4: N(n01, n23),
    5: N(N(n01, n23), leaf(4)),
    7: N(N(n01, n23), N(n45, leaf(6))),
    8: N(N(n01, n23), N(n45, n67)),
  };
  for (const [size, root] of Object.entries(expected)) {
    it(`n = ${size}`, () => {
      const n = Number(size);
      expect(hex(merkleRoot(leaves.slice(0, n)))).toBe(hex(root));
      expect(hex(MerkleTree.fromLeafHashes(leaves.slice(0, n)).root())).toBe(hex(root));
      expect(hex(MerkleTree.fromLeafHashes(leaves).root(n))).toBe(hex(root));
      expect(hex(MerkleTree.fromEventHashes(data.slice(0, n).map(hex)).root())).toBe(hex(root));
    });
  }

  it('agree with the recursive RFC definition for every n <= 64', () => {
    const tree = MerkleTree.fromLeafHashes(leaves);
    for (let n = 0; n <= leaves.length; n++) {
      const want = hex(refRoot(leaves.slice(0, n)));
      expect(hex(merkleRoot(leaves.slice(0, n))), `n=${n}`).toBe(want);
      expect(hex(tree.root(n)), `n=${n}`).toBe(want);
    }
  });
});

describe('RFC 6962 §2.1.3 example tree of 7 leaves', () => {
  // Names as in the RFC: a..f, j are leaves; g, h, i, k, l are interior nodes.
  const [a, b, c, d, e, f, j] = leaves.slice(0, 7) as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array];
  const g = N(a, b);
  const h = N(c, d);
  const i = N(e, f);
  const k = N(g, h);
  const l = N(i, j);
  const tree = MerkleTree.fromLeafHashes(leaves.slice(0, 7));

  it('has the RFC audit paths', () => {
    expect(hexes(tree.inclusionProof(0))).toEqual(hexes([b, h, l]));
    expect(hexes(tree.inclusionProof(3))).toEqual(hexes([c, g, l]));
    expect(hexes(tree.inclusionProof(4))).toEqual(hexes([f, j, k]));
    expect(hexes(tree.inclusionProof(6))).toEqual(hexes([i, k]));
  });

  it('has the RFC consistency proofs', () => {
    expect(hexes(tree.consistencyProof(3))).toEqual(hexes([c, d, g, l]));
    expect(hexes(tree.consistencyProof(4))).toEqual(hexes([l]));
    expect(hexes(tree.consistencyProof(6))).toEqual(hexes([i, j, k]));
  });
});

describe('inclusion proofs, every (m, n) with n <= 20', () => {
  const big = MerkleTree.fromLeafHashes(leaves.slice(0, 20));
  for (let n = 1; n <= 20; n++) {
    it(`n = ${n}`, () => {
      const own = MerkleTree.fromLeafHashes(leaves.slice(0, n));
      const rootHash = own.root();
      for (let m = 0; m < n; m++) {
        const auditPath = own.inclusionProof(m);
        expect(hexes(auditPath)).toEqual(hexes(refPath(m, leaves.slice(0, n))));
        expect(hexes(big.inclusionProof(m, n))).toEqual(hexes(auditPath));
        const claim = { leafIndex: m, treeSize: n, leafHash: leaf(m), auditPath, rootHash };
        expect(verifyInclusion(claim)).toBe(true);

        for (let element = 0; element < auditPath.length; element++) {
          for (const byte of [0, 17, 31]) {
            expect(verifyInclusion({ ...claim, auditPath: flipByte(auditPath, element, byte) })).toBe(false);
          }
        }
        expect(verifyInclusion({ ...claim, leafHash: leaf(m + 1) })).toBe(false);
        expect(verifyInclusion({ ...claim, rootHash: N(rootHash, rootHash) })).toBe(false);
        expect(verifyInclusion({ ...claim, leafIndex: n })).toBe(false);
        expect(verifyInclusion({ ...claim, auditPath: [...auditPath, leaf(0)] })).toBe(false);
        if (auditPath.length > 0) expect(verifyInclusion({ ...claim, auditPath: auditPath.slice(1) })).toBe(false);
        if (m + 1 < n) expect(verifyInclusion({ ...claim, leafIndex: m + 1 })).toBe(false);
      }
    });
  }
});

describe('consistency proofs, every (m, n) with 1 <= m <= n <= 20', () => {
  const big = MerkleTree.fromLeafHashes(leaves.slice(0, 20));
  for (let n = 1; n <= 20; n++) {
    it(`n = ${n}`, () => {
      const newRoot = big.root(n);
      for (let m = 1; m <= n; m++) {
        const oldRoot = big.root(m);
        const proof = big.consistencyProof(m, n);
        const expected = m === n ? [] : refSubproof(m, leaves.slice(0, n), true);
        expect(hexes(proof)).toEqual(hexes(expected));
        expect(hexes(MerkleTree.fromLeafHashes(leaves.slice(0, n)).consistencyProof(m))).toEqual(hexes(proof));
        const claim = { oldSize: m, newSize: n, oldRoot, newRoot, proof };
        expect(verifyConsistency(claim), `m=${m}`).toBe(true);

        for (let element = 0; element < proof.length; element++) {
          for (const byte of [0, 13, 31]) {
            expect(verifyConsistency({ ...claim, proof: flipByte(proof, element, byte) }), `m=${m} e=${element}`).toBe(false);
          }
        }
        expect(verifyConsistency({ ...claim, oldRoot: N(oldRoot, oldRoot) })).toBe(false);
        expect(verifyConsistency({ ...claim, newRoot: N(newRoot, newRoot) })).toBe(false);
        expect(verifyConsistency({ ...claim, proof: [...proof, leaf(0)] })).toBe(false);
        if (proof.length > 0) expect(verifyConsistency({ ...claim, proof: proof.slice(0, -1) })).toBe(false);
        if (m > 1 && m < n) expect(verifyConsistency({ ...claim, oldSize: m - 1 })).toBe(false);
      }
    });
  }

  it('treat size 0 as consistent with anything, given the empty root and no proof', () => {
    const newRoot = big.root();
    expect(big.consistencyProof(0)).toEqual([]);
    expect(verifyConsistency({ oldSize: 0, newSize: 20, oldRoot: EMPTY_TREE_ROOT, newRoot, proof: [] })).toBe(true);
    expect(verifyConsistency({ oldSize: 0, newSize: 20, oldRoot: leaf(0), newRoot, proof: [] })).toBe(false);
    expect(verifyConsistency({ oldSize: 0, newSize: 20, oldRoot: EMPTY_TREE_ROOT, newRoot, proof: [leaf(0)] })).toBe(false);
  });
});

describe('malformed input', () => {
  const tree = MerkleTree.fromLeafHashes(leaves.slice(0, 5));

  it('proof generation refuses out-of-range sizes and indices', () => {
    expect(() => tree.inclusionProof(5)).toThrow(RangeError);
    expect(() => tree.inclusionProof(0, 6)).toThrow(RangeError);
    expect(() => tree.inclusionProof(-1)).toThrow(RangeError);
    expect(() => tree.consistencyProof(6)).toThrow(RangeError);
    expect(() => tree.root(6)).toThrow(RangeError);
    expect(() => tree.append(new Uint8Array(31))).toThrow(RangeError);
  });

  it('verification returns false instead of throwing', () => {
    const rootHash = tree.root();
    const auditPath = tree.inclusionProof(2);
    const claim = { leafIndex: 2, treeSize: 5, leafHash: leaf(2), auditPath, rootHash };
    const bad = [
      { ...claim, leafIndex: 1.5 },
      { ...claim, treeSize: Number.NaN },
      { ...claim, leafIndex: -1 },
      { ...claim, leafHash: new Uint8Array(31) },
      { ...claim, auditPath: [new Uint8Array(33)] },
      { ...claim, auditPath: 'nope' as unknown as Uint8Array[] },
    ];
    for (const c of bad) expect(verifyInclusion(c)).toBe(false);
    expect(verifyConsistency({ oldSize: 3, newSize: 2, oldRoot: rootHash, newRoot: rootHash, proof: [] })).toBe(false);
    expect(verifyConsistency({ oldSize: 2, newSize: 5, oldRoot: rootHash, newRoot: rootHash, proof: [] })).toBe(false);
  });
});

describe('larger trees', () => {
  it('serve valid proofs for random leaves and historic sizes of a 3,000-leaf tree', () => {
    const many = Array.from({ length: 3000 }, (_, i) => L(blake3(Uint8Array.of(i & 0xff, i >> 8))));
    const tree = MerkleTree.fromLeafHashes(many);
    expect(hex(tree.root())).toBe(hex(merkleRoot(many)));
    for (let trial = 0; trial < 200; trial++) {
      const treeSize = 1 + Math.floor(Math.random() * many.length);
      const leafIndex = Math.floor(Math.random() * treeSize);
      const rootHash = tree.root(treeSize);
      const auditPath = tree.inclusionProof(leafIndex, treeSize);
      expect(verifyInclusion({ leafIndex, treeSize, leafHash: must(many[leafIndex]), auditPath, rootHash })).toBe(true);
      const oldSize = 1 + Math.floor(Math.random() * treeSize);
      const proof = tree.consistencyProof(oldSize, treeSize);
      expect(verifyConsistency({ oldSize, newSize: treeSize, oldRoot: tree.root(oldSize), newRoot: rootHash, proof })).toBe(true);
    }
  });
});
