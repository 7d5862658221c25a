// The offline verifier: needs only exported events, proofs and a signed head, never the
// database. Every function returns a structured report and never throws on bad data, because
// its input is by definition untrusted.
import { GENESIS_HASH, chainHash, fromHex, isHashHex, toHex, type StoredLedgerEvent } from './hash.ts';
import { eventLeafHash, merkleRoot, verifyInclusion } from './merkle.ts';
import type { MerkleTree } from './merkle.ts';
import { isTreeHead, verifyTreeHead, type SignedTreeHead, type TreeHead } from './signed-head.ts';

export type LedgerProblem =
  | 'malformed' // an event, proof or head lacks a field or has the wrong type
  | 'tenant-mismatch'
  | 'seq-gap' // an event is missing
  | 'seq-order' // an event is present but out of place
  | 'prev-hash-mismatch' // prevHash is not the previous event's hash
  | 'hash-mismatch' // the event's content does not hash to its stored hash
  | 'signature'
  | 'proof-missing'
  | 'proof-invalid'
  | 'missing-tail' // fewer events than a checkpoint covers
  | 'head-hash-mismatch'
  | 'root-mismatch';

export interface ChainReport {
  ok: boolean;
  /** Events verified before the first problem (all of them when ok). */
  checked: number;
  /** The seq at which the chain first fails: the seq expected at the failing position. */
  firstBadSeq?: number;
  problem?: LedgerProblem;
  reason?: string;
}

export interface ChainOptions {
  /** prevHash the first event must carry; defaults to GENESIS_HASH when the range starts at seq 1. */
  expectedPrevHash?: string;
  /** seq the first event must carry; defaults to the first event's own seq. */
  expectedFirstSeq?: number;
  /** tenant every event must belong to; defaults to the first event's tenant. */
  tenantId?: string;
}

interface Failure {
  problem: LedgerProblem;
  reason: string;
}

function isStoredEvent(value: unknown): value is StoredLedgerEvent {
  if (typeof value !== 'object' || value === null) return false;
  const e = value as Record<string, unknown>;
  return (
    typeof e.tenantId === 'string' &&
    Number.isSafeInteger(e.seq) &&
    (e.seq as number) >= 1 &&
    typeof e.type === 'string' &&
    (typeof e.episodeId === 'string' || e.episodeId === null) &&
    (typeof e.workItemId === 'string' || e.workItemId === null) &&
    'payload' in e &&
    typeof e.createdAt === 'string' &&
    isHashHex(e.prevHash) &&
    isHashHex(e.hash)
  );
}

/** Recomputes an event's hash from its own prevHash and content. */
function contentFailure(e: StoredLedgerEvent): Failure | undefined {
  let recomputed: string;
  try {
    recomputed = chainHash(e.prevHash, e);
  } catch (error) {
    return { problem: 'malformed', reason: `seq ${e.seq}: payload is not canonical JSON (${String(error)})` };
  }
  if (recomputed === e.hash) return undefined;
  return { problem: 'hash-mismatch', reason: `seq ${e.seq}: content hashes to ${recomputed}, stored hash is ${e.hash}` };
}

function seqFailure(events: readonly unknown[], index: number, expectedSeq: number): Failure {
  const found = (events[index] as StoredLedgerEvent).seq;
  // Distinguishes a reordering (an earlier seq, or the expected one showing up later) from a deletion.
  const reordered = found < expectedSeq || events.slice(index + 1).some((e) => isStoredEvent(e) && e.seq === expectedSeq);
  return reordered
    ? { problem: 'seq-order', reason: `expected seq ${expectedSeq} but found ${found}; seq ${expectedSeq} appears later` }
    : { problem: 'seq-gap', reason: `expected seq ${expectedSeq} but found ${found}; seq ${expectedSeq} is missing` };
}

function eventFailure(
  events: readonly unknown[],
  index: number,
  expected: { seq: number; prevHash: string; tenantId: string },
): Failure | undefined {
  const e = events[index];
  if (!isStoredEvent(e)) return { problem: 'malformed', reason: `event at position ${index} is malformed` };
  if (e.tenantId !== expected.tenantId) {
    return { problem: 'tenant-mismatch', reason: `seq ${e.seq} belongs to tenant ${e.tenantId}` };
  }
  if (e.seq !== expected.seq) return seqFailure(events, index, expected.seq);
  if (e.prevHash !== expected.prevHash) {
    return { problem: 'prev-hash-mismatch', reason: `seq ${e.seq}: prevHash ${e.prevHash}, previous hash is ${expected.prevHash}` };
  }
  return contentFailure(e);
}

/**
 * Verifies a contiguous range of one tenant's chain. Detects changed content, deleted,
 * reordered or foreign events and broken links. A cut-off tail is invisible to a chain alone:
 * use verifyAgainstCheckpoint for that.
 */
export function verifyChain(events: readonly StoredLedgerEvent[], options: ChainOptions = {}): ChainReport {
  if (!Array.isArray(events)) return { ok: false, checked: 0, problem: 'malformed', reason: 'events is not an array' };
  const first: unknown = events[0];
  if (first === undefined) return { ok: true, checked: 0 };
  const firstEvent = isStoredEvent(first) ? first : undefined;
  const firstSeq = options.expectedFirstSeq ?? firstEvent?.seq ?? 1;
  const expected = {
    seq: firstSeq,
    prevHash: options.expectedPrevHash ?? (firstSeq === 1 ? GENESIS_HASH : (firstEvent?.prevHash ?? '')),
    tenantId: options.tenantId ?? firstEvent?.tenantId ?? '',
  };

  for (let i = 0; i < events.length; i++) {
    const failure = eventFailure(events, i, expected);
    if (failure) return { ok: false, checked: i, firstBadSeq: expected.seq, ...failure };
    expected.prevHash = events[i]!.hash;
    expected.seq++;
  }
  return { ok: true, checked: events.length };
}

function* leafHashesOf(events: readonly StoredLedgerEvent[], count: number): Generator<Uint8Array> {
  for (let i = 0; i < count; i++) yield eventLeafHash(events[i]!.hash);
}

/**
 * Verifies a full chain (from seq 1) against a checkpoint: the chain itself, then that it
 * still covers treeSize events (a cut-off tail reports the first missing seq), that event
 * treeSize is the head's headHash and that the first treeSize events give its rootHash.
 * With a public key the head's signature is checked first.
 */
export function verifyAgainstCheckpoint(
  events: readonly StoredLedgerEvent[],
  head: TreeHead | SignedTreeHead,
  publicKey?: Uint8Array,
): ChainReport {
  if (!isTreeHead(head)) return { ok: false, checked: 0, problem: 'malformed', reason: 'tree head is malformed' };
  if (publicKey !== undefined && !verifyTreeHead(head as SignedTreeHead, publicKey)) {
    return { ok: false, checked: 0, problem: 'signature', reason: 'tree head signature does not verify' };
  }
  const chain = verifyChain(events, { expectedFirstSeq: 1, expectedPrevHash: GENESIS_HASH, tenantId: head.tenantId });
  if (!chain.ok) return chain;

  const { treeSize } = head;
  const checked = events.length;
  if (checked < treeSize) {
    const reason = `checkpoint covers ${treeSize} events, chain ends at seq ${checked}`;
    return { ok: false, checked, firstBadSeq: checked + 1, problem: 'missing-tail', reason };
  }
  const headHash = treeSize === 0 ? GENESIS_HASH : events[treeSize - 1]!.hash;
  if (headHash !== head.headHash) {
    const reason = `event ${treeSize} has hash ${headHash}, checkpoint says ${head.headHash}: history was rewritten`;
    return { ok: false, checked, problem: 'head-hash-mismatch', reason };
  }
  const root = toHex(merkleRoot(leafHashesOf(events, treeSize)));
  if (root !== head.rootHash) {
    return { ok: false, checked, problem: 'root-mismatch', reason: `root of ${treeSize} events is ${root}, checkpoint says ${head.rootHash}` };
  }
  return { ok: true, checked };
}

/** Inclusion proof of one event, as carried in a bundle. */
export interface EventInclusionProof {
  seq: number;
  leafIndex: number; // always seq - 1
  auditPath: string[]; // hex, deepest sibling first
}

/** Everything an auditor needs to check some events of one tenant offline. */
export interface ProofBundle {
  tenantId: string;
  events: StoredLedgerEvent[];
  proofs: EventInclusionProof[];
  treeHead: SignedTreeHead;
}

export interface BundleProblem {
  seq?: number;
  problem: LedgerProblem;
  reason: string;
}

export interface BundleReport {
  ok: boolean;
  signatureValid: boolean;
  /** Events whose hash and inclusion proof both verified. */
  eventsChecked: number;
  problems: BundleProblem[];
}

/** Assembles a bundle for events already covered by `treeHead` (producer side; throws on misuse). */
export function buildProofBundle(events: StoredLedgerEvent[], tree: MerkleTree, treeHead: SignedTreeHead): ProofBundle {
  const proofs = events.map((e) => ({
    seq: e.seq,
    leafIndex: e.seq - 1,
    auditPath: tree.inclusionProof(e.seq - 1, treeHead.treeSize).map(toHex),
  }));
  return { tenantId: treeHead.tenantId, events, proofs, treeHead };
}

function isProof(value: unknown): value is EventInclusionProof {
  if (typeof value !== 'object' || value === null) return false;
  const p = value as Record<string, unknown>;
  return Number.isSafeInteger(p.seq) && Number.isSafeInteger(p.leafIndex) && Array.isArray(p.auditPath);
}

function isBundle(value: unknown): value is ProofBundle {
  if (typeof value !== 'object' || value === null) return false;
  const b = value as Record<string, unknown>;
  return typeof b.tenantId === 'string' && Array.isArray(b.events) && Array.isArray(b.proofs) && isTreeHead(b.treeHead);
}

function decodePath(auditPath: unknown[]): Uint8Array[] | undefined {
  if (!auditPath.every(isHashHex)) return undefined;
  return auditPath.map((hex) => fromHex(hex));
}

function proofFailure(e: StoredLedgerEvent, proof: EventInclusionProof | undefined, head: TreeHead): Failure | undefined {
  if (e.seq > head.treeSize) return { problem: 'proof-invalid', reason: `seq ${e.seq} is beyond the tree head (size ${head.treeSize})` };
  if (proof === undefined) return { problem: 'proof-missing', reason: `no inclusion proof for seq ${e.seq}` };
  if (proof.leafIndex !== e.seq - 1) {
    return { problem: 'proof-invalid', reason: `proof for seq ${e.seq} names leaf ${proof.leafIndex}, expected ${e.seq - 1}` };
  }
  const auditPath = decodePath(proof.auditPath);
  const included =
    auditPath !== undefined &&
    verifyInclusion({
      leafIndex: proof.leafIndex,
      treeSize: head.treeSize,
      leafHash: eventLeafHash(e.hash),
      auditPath,
      rootHash: fromHex(head.rootHash),
    });
  if (!included) return { problem: 'proof-invalid', reason: `inclusion proof for seq ${e.seq} does not lead to the signed root` };
  if (e.seq === head.treeSize && e.hash !== head.headHash) {
    return { problem: 'head-hash-mismatch', reason: `seq ${e.seq} is the head but its hash is not the head hash` };
  }
  return undefined;
}

function bundleEventFailure(
  e: StoredLedgerEvent,
  bundle: ProofBundle,
  eventsBySeq: Map<number, StoredLedgerEvent>,
  proofsBySeq: Map<number, EventInclusionProof>,
): Failure | undefined {
  if (e.tenantId !== bundle.tenantId) return { problem: 'tenant-mismatch', reason: `seq ${e.seq} belongs to tenant ${e.tenantId}` };
  const content = contentFailure(e);
  if (content) return content;
  // Bundled events are usually scattered; where two are adjacent their link is checkable too.
  const previous = eventsBySeq.get(e.seq - 1);
  if (previous !== undefined && previous.hash !== e.prevHash) {
    return { problem: 'prev-hash-mismatch', reason: `seq ${e.seq}: prevHash is not the hash of seq ${e.seq - 1}` };
  }
  return proofFailure(e, proofsBySeq.get(e.seq), bundle.treeHead);
}

/** Indexes items by seq, reporting duplicates and malformed items as problems. */
function indexBySeq<T extends { seq: number }>(
  items: unknown[],
  isItem: (value: unknown) => value is T,
  what: string,
  problems: BundleProblem[],
): Map<number, T> {
  const bySeq = new Map<number, T>();
  items.forEach((item, index) => {
    if (!isItem(item)) problems.push({ problem: 'malformed', reason: `${what} at position ${index} is malformed` });
    else if (bySeq.has(item.seq)) problems.push({ seq: item.seq, problem: 'malformed', reason: `duplicate ${what} for seq ${item.seq}` });
    else bySeq.set(item.seq, item);
  });
  return bySeq;
}

/**
 * Verifies an episode proof bundle: the head's signature, each event's hash, each event's
 * inclusion in the signed root, and links between adjacent bundled events.
 */
export function verifyProofBundle(bundle: ProofBundle, publicKey: Uint8Array): BundleReport {
  if (!isBundle(bundle)) {
    return { ok: false, signatureValid: false, eventsChecked: 0, problems: [{ problem: 'malformed', reason: 'bundle is malformed' }] };
  }
  const problems: BundleProblem[] = [];
  const signatureValid = verifyTreeHead(bundle.treeHead, publicKey);
  if (!signatureValid) problems.push({ problem: 'signature', reason: 'tree head signature does not verify' });
  if (bundle.treeHead.tenantId !== bundle.tenantId) {
    problems.push({ problem: 'tenant-mismatch', reason: `tree head is for tenant ${bundle.treeHead.tenantId}` });
  }
  const eventsBySeq = indexBySeq(bundle.events, isStoredEvent, 'event', problems);
  const proofsBySeq = indexBySeq(bundle.proofs, isProof, 'proof', problems);

  let eventsChecked = 0;
  for (const e of eventsBySeq.values()) {
    const failure = bundleEventFailure(e, bundle, eventsBySeq, proofsBySeq);
    if (failure) problems.push({ seq: e.seq, ...failure });
    else eventsChecked++;
  }
  for (const seq of proofsBySeq.keys()) {
    if (!eventsBySeq.has(seq)) problems.push({ seq, problem: 'malformed', reason: `proof for seq ${seq} has no event` });
  }
  return { ok: problems.length === 0, signatureValid, eventsChecked, problems };
}
