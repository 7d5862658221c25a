// RFC 6962 / RFC 9162 Merkle tree over the ledger, with BLAKE3 instead of SHA-256.
// Leaf i (0-based) is the event with seq i + 1; its leaf data is the 32 raw bytes of that
// event's chain hash.
import { must } from '../../core/must.ts';
import { bytesEqual, fromHex, HASH_BYTES, hashBytes } from './hash.ts';

const LEAF_PREFIX = 0x00;
const NODE_PREFIX = 0x01;
/** MTH of zero leaves = BLAKE3 of the empty string (RFC 6962 §2.1). */
export const EMPTY_TREE_ROOT: Uint8Array = hashBytes(new Uint8Array(0));

/** H(0x00 || leafData). */
export function hashLeaf(leafData: Uint8Array): Uint8Array {
  const input = new Uint8Array(1 + leafData.length);
  input[0] = LEAF_PREFIX;
  input.set(leafData, 1);
  return hashBytes(input);
}

// Reused for every interior node: building a 1M-leaf tree hashes ~1M nodes.
const nodeInput = new Uint8Array(1 + 2 * HASH_BYTES);
nodeInput[0] = NODE_PREFIX;

/** H(0x01 || left || right). */
export function hashChildren(left: Uint8Array, right: Uint8Array): Uint8Array {
  nodeInput.set(left, 1);
  nodeInput.set(right, 1 + HASH_BYTES);
  return hashBytes(nodeInput);
}

/** The leaf hash of a ledger event: hashLeaf(raw bytes of its chain hash). */
export function eventLeafHash(chainHashHex: string): Uint8Array {
  return hashLeaf(fromHex(chainHashHex, HASH_BYTES));
}

/** Largest power of two strictly below n (n >= 2): the split point k of RFC 6962 §2.1. */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function isPowerOfTwo(n: number): boolean {
  return n >= 1 && 2 ** Math.round(Math.log2(n)) === n;
}

/**
 * MTH over leaf hashes in one pass with O(log n) memory. Keeps the roots of the complete
 * subtrees seen so far (sizes are the binary digits of the count), then folds them right to
 * left, which yields exactly RFC 6962's "split at the largest power of two" tree.
 */
export function merkleRoot(leafHashes: Iterable<Uint8Array>): Uint8Array {
  const completeSubtrees: Uint8Array[] = [];
  let count = 0;
  for (const leaf of leafHashes) {
    let node = leaf;
    for (let n = count; n % 2 === 1; n = (n - 1) / 2) node = hashChildren(must(completeSubtrees.pop()), node);
    completeSubtrees.push(node);
    count++;
  }
  let root = completeSubtrees.pop();
  if (root === undefined) return EMPTY_TREE_ROOT;
  for (let i = completeSubtrees.length - 1; i >= 0; i--) root = hashChildren(must(completeSubtrees[i]), root);
  return root;
}

/** Append-only list of 32-byte hashes in one flat buffer (a million small arrays cost ~100 MB). */
class HashList {
  private bytes = new Uint8Array(HASH_BYTES * 64);
  count = 0;

  push(hash: Uint8Array): void {
    if ((this.count + 1) * HASH_BYTES > this.bytes.length) this.grow();
    this.bytes.set(hash, this.count * HASH_BYTES);
    this.count++;
  }

  get(index: number): Uint8Array {
    return this.bytes.slice(index * HASH_BYTES, (index + 1) * HASH_BYTES);
  }

  /** Hash of the last two entries as siblings; they sit side by side in the buffer. */
  hashLastPair(): Uint8Array {
    const end = this.count * HASH_BYTES;
    nodeInput.set(this.bytes.subarray(end - 2 * HASH_BYTES, end), 1);
    return hashBytes(nodeInput);
  }

  private grow(): void {
    const bigger = new Uint8Array(this.bytes.length * 2);
    bigger.set(this.bytes);
    this.bytes = bigger;
  }
}

/**
 * An append-only Merkle tree that stores the root of every complete (power-of-two) subtree:
 * about 2n hashes, amortised O(1) hashing per append. Roots and proofs for any tree size up to
 * `size` are then O(log n) (partial right-edge subtrees are recomputed, at most log n hashes).
 */
export class MerkleTree {
  // levels[h] holds the roots of the complete subtrees of 2^h leaves, left to right.
  private readonly levels: HashList[] = [new HashList()];

  static fromLeafHashes(leafHashes: Iterable<Uint8Array>): MerkleTree {
    const tree = new MerkleTree();
    for (const leaf of leafHashes) tree.append(leaf);
    return tree;
  }

  /** Builds the tree of a ledger from its events' chain hashes, in seq order. */
  static fromEventHashes(chainHashesHex: Iterable<string>): MerkleTree {
    const tree = new MerkleTree();
    for (const hex of chainHashesHex) tree.append(eventLeafHash(hex));
    return tree;
  }

  get size(): number {
    return must(this.levels[0]).count;
  }

  append(leafHash: Uint8Array): void {
    if (leafHash.length !== HASH_BYTES) throw new RangeError('a leaf hash is 32 bytes');
    must(this.levels[0]).push(leafHash);
    // Each time a level gains an even count, its last two entries complete a subtree above.
    for (let h = 0; must(this.levels[h]).count % 2 === 0; h++) {
      const parent = must(this.levels[h]).hashLastPair();
      if (this.levels[h + 1] === undefined) this.levels.push(new HashList());
      must(this.levels[h + 1]).push(parent);
    }
  }

  /** MTH of the first `treeSize` leaves. */
  root(treeSize: number = this.size): Uint8Array {
    this.checkSize(treeSize, 0);
    return treeSize === 0 ? EMPTY_TREE_ROOT : this.subtreeRoot(0, treeSize);
  }

  /** RFC 6962 §2.1.1 PATH(leafIndex, D[0:treeSize]), deepest sibling first. */
  inclusionProof(leafIndex: number, treeSize: number = this.size): Uint8Array[] {
    this.checkSize(treeSize, 1);
    if (!Number.isSafeInteger(leafIndex) || leafIndex < 0 || leafIndex >= treeSize) {
      throw new RangeError(`leaf index ${leafIndex} is outside a tree of ${treeSize}`);
    }
    const path: Uint8Array[] = [];
    this.collectPath(leafIndex, 0, treeSize, path);
    return path;
  }

  /** RFC 9162 §2.1.4.1 PROOF(oldSize, D[0:newSize]); empty when oldSize is 0 or newSize. */
  consistencyProof(oldSize: number, newSize: number = this.size): Uint8Array[] {
    this.checkSize(newSize, 0);
    if (!Number.isSafeInteger(oldSize) || oldSize < 0 || oldSize > newSize) {
      throw new RangeError(`old size ${oldSize} must be within 0..${newSize}`);
    }
    const proof: Uint8Array[] = [];
    if (oldSize > 0 && oldSize < newSize) this.collectSubproof(oldSize, 0, newSize, true, proof);
    return proof;
  }

  private collectPath(leafIndex: number, start: number, end: number, path: Uint8Array[]): void {
    if (end - start === 1) return;
    const mid = start + splitPoint(end - start);
    if (leafIndex < mid) {
      this.collectPath(leafIndex, start, mid, path);
      path.push(this.subtreeRoot(mid, end));
    } else {
      this.collectPath(leafIndex, mid, end, path);
      path.push(this.subtreeRoot(start, mid));
    }
  }

  // SUBPROOF(m, D[start:end], startFromOldRoot) of RFC 9162 §2.1.4.1.
  private collectSubproof(m: number, start: number, end: number, startFromOldRoot: boolean, proof: Uint8Array[]): void {
    const n = end - start;
    if (m === n) {
      if (!startFromOldRoot) proof.push(this.subtreeRoot(start, end));
      return;
    }
    const k = splitPoint(n);
    if (m <= k) {
      this.collectSubproof(m, start, start + k, startFromOldRoot, proof);
      proof.push(this.subtreeRoot(start + k, end));
    } else {
      this.collectSubproof(m - k, start + k, end, false, proof);
      proof.push(this.subtreeRoot(start, start + k));
    }
  }

  // MTH(D[start:end]) for a range that is a node of some RFC 6962 tree: complete subtrees are
  // stored; a partial right edge is split as MTH prescribes.
  private subtreeRoot(start: number, end: number): Uint8Array {
    const width = end - start;
    if (isPowerOfTwo(width)) return must(this.levels[Math.log2(width)]).get(start / width);
    const mid = start + splitPoint(width);
    return hashChildren(this.subtreeRoot(start, mid), this.subtreeRoot(mid, end));
  }

  private checkSize(treeSize: number, min: number): void {
    if (!Number.isSafeInteger(treeSize) || treeSize < min || treeSize > this.size) {
      throw new RangeError(`tree size ${treeSize} must be within ${min}..${this.size}`);
    }
  }
}

function isHash(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array && value.length === HASH_BYTES;
}

function areHashes(values: unknown): values is Uint8Array[] {
  return Array.isArray(values) && values.every(isHash);
}

export interface InclusionClaim {
  leafIndex: number;
  treeSize: number;
  leafHash: Uint8Array;
  auditPath: readonly Uint8Array[];
  rootHash: Uint8Array;
}

/** RFC 9162 §2.1.3.2. Returns false (never throws) on any malformed input. */
export function verifyInclusion(claim: InclusionClaim): boolean {
  const { leafIndex, treeSize, leafHash, auditPath, rootHash } = claim;
  if (!Number.isSafeInteger(leafIndex) || !Number.isSafeInteger(treeSize)) return false;
  if (leafIndex < 0 || leafIndex >= treeSize) return false;
  if (!isHash(leafHash) || !isHash(rootHash) || !areHashes(auditPath)) return false;
  // fn: our node's index at the current level; sn: the last node's index at that level.
  let fn = leafIndex;
  let sn = treeSize - 1;
  let r = leafHash;
  for (const p of auditPath) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = hashChildren(p, r);
      // A last node without a right sibling is promoted unchanged: skip those levels.
      while (fn % 2 === 0 && fn !== 0) [fn, sn] = [fn / 2, Math.floor(sn / 2)];
    } else {
      r = hashChildren(r, p);
    }
    [fn, sn] = [Math.floor(fn / 2), Math.floor(sn / 2)];
  }
  return sn === 0 && bytesEqual(r, rootHash);
}

export interface ConsistencyClaim {
  oldSize: number;
  newSize: number;
  oldRoot: Uint8Array;
  newRoot: Uint8Array;
  proof: readonly Uint8Array[];
}

/**
 * RFC 9162 §2.1.4.2, plus the two trivial cases it leaves to the caller: equal sizes need an
 * empty proof and equal roots; size 0 needs an empty proof and the empty-tree root.
 * Returns false (never throws) on any malformed input.
 */
export function verifyConsistency(claim: ConsistencyClaim): boolean {
  const { oldSize, newSize, oldRoot, newRoot, proof } = claim;
  if (!Number.isSafeInteger(oldSize) || !Number.isSafeInteger(newSize)) return false;
  if (oldSize < 0 || oldSize > newSize) return false;
  if (!isHash(oldRoot) || !isHash(newRoot) || !areHashes(proof)) return false;
  if (oldSize === 0) return proof.length === 0 && bytesEqual(oldRoot, EMPTY_TREE_ROOT);
  if (oldSize === newSize) return proof.length === 0 && bytesEqual(oldRoot, newRoot);
  if (proof.length === 0) return false;

  // When the old tree is a complete subtree, its root is the implicit first proof node.
  const path = isPowerOfTwo(oldSize) ? [oldRoot, ...proof] : [...proof];
  let fn = oldSize - 1;
  let sn = newSize - 1;
  while (fn % 2 === 1) [fn, sn] = [(fn - 1) / 2, Math.floor(sn / 2)];
  let fr = must(path[0]);
  let sr = must(path[0]);
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = hashChildren(c, fr);
      sr = hashChildren(c, sr);
      while (fn % 2 === 0 && fn !== 0) [fn, sn] = [fn / 2, Math.floor(sn / 2)];
    } else {
      sr = hashChildren(sr, c);
    }
    [fn, sn] = [Math.floor(fn / 2), Math.floor(sn / 2)];
  }
  return sn === 0 && bytesEqual(fr, oldRoot) && bytesEqual(sr, newRoot);
}

/**
 * The root of a growing list of leaves in O(log n) memory: for checking signed roots at many
 * sizes while streaming events once (verifyLedger), where a MerkleTree would keep 2n hashes.
 */
export class MerkleAccumulator {
  private readonly completeSubtrees: Uint8Array[] = [];
  size = 0;

  append(leafHash: Uint8Array): void {
    let node = leafHash;
    for (let n = this.size; n % 2 === 1; n = (n - 1) / 2) {
      const left = this.completeSubtrees.pop();
      if (!left) throw new Error('unreachable: a set bit has a subtree');
      node = hashChildren(left, node);
    }
    this.completeSubtrees.push(node);
    this.size++;
  }

  /** MTH of the leaves appended so far. */
  root(): Uint8Array {
    let root = this.completeSubtrees.at(-1);
    if (root === undefined) return EMPTY_TREE_ROOT;
    for (let i = this.completeSubtrees.length - 2; i >= 0; i--) root = hashChildren(this.completeSubtrees[i] as Uint8Array, root);
    return root;
  }
}
