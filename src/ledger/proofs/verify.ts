// The offline verifier: needs only exported events, proofs and a signed head, never the
// database. Every function returns a structured report and never throws on bad data, because
// its input is by definition untrusted.

import { must } from '../../core/must.ts';
import { chainHash, chainHashIs, GENESIS_HASH, isHashHex, type StoredLedgerEvent, toHex } from '../format/hash.ts';
import { eventLeafHash, merkleRoot } from '../format/merkle.ts';
import { hasOnly, isCreatedAt, isUuid } from '../format/shape.ts';
import { isTreeHead, type SignedTreeHead, type TreeHead, verifyTreeHead } from '../format/signed-head.ts';

/** Every problem code a verifier reports (docs/LEDGER.md §7.4 lists them with their meaning). */
export const LEDGER_PROBLEMS = [
  'malformed',
  'unsupported-version',
  'tenant-mismatch',
  'seq-gap',
  'seq-order',
  'prev-hash-mismatch',
  'hash-mismatch',
  'signature',
  'proof-missing',
  'proof-invalid',
  'missing-tail',
  'head-hash-mismatch',
  'root-mismatch',
  'step-missing',
  'step-mismatch',
  'step-uncovered',
  'row-mismatch',
  'checkpoint-missing',
] as const;

export type LedgerProblem =
  | 'malformed' // an event, proof or head lacks a field, has the wrong type or an unknown member
  | 'unsupported-version' // a `v` member other than 1, or a bundle/export format other than v1
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
  | 'root-mismatch'
  | 'step-missing' // a steps.logged entry names a step row the bundle or database lacks
  | 'step-mismatch' // a step row does not hash to what its steps.logged entry carries
  | 'step-uncovered' // a step row no steps.logged entry covers
  | 'row-mismatch' // a stored row (checkpoint state, critique, outcome, ...) differs from its event's hash
  | 'checkpoint-missing'; // a checkpoint the server signed (or a verifier's state names) is gone

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

export interface Failure {
  problem: LedgerProblem;
  reason: string;
}

const EVENT_MEMBERS = ['tenantId', 'seq', 'type', 'episodeId', 'workItemId', 'payload', 'createdAt', 'prevHash', 'hash'];
const EVENT_TYPE = /^[a-z_]+(?:\.[a-z_]+)+$/;

/** Exactly the nine members of §2 (and optionally `v`: 1), each well-formed. */
function isStoredEvent(value: unknown): value is StoredLedgerEvent {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const e = value as Record<string, unknown>;
  return (
    hasOnly(e, EVENT_MEMBERS, ['v']) &&
    (e.v === undefined || e.v === 1) &&
    isUuid(e.tenantId) &&
    Number.isSafeInteger(e.seq) &&
    (e.seq as number) >= 1 &&
    typeof e.type === 'string' &&
    EVENT_TYPE.test(e.type) &&
    (isUuid(e.episodeId) || e.episodeId === null) &&
    (isUuid(e.workItemId) || e.workItemId === null) &&
    isCreatedAt(e.createdAt) &&
    isHashHex(e.prevHash) &&
    isHashHex(e.hash)
  );
}

/** Why an item is not a stored event: an unknown version, or malformed. */
export function eventShapeFailure(value: unknown, where: string): Failure | undefined {
  if (isStoredEvent(value)) return undefined;
  const v = typeof value === 'object' && value !== null ? (value as Record<string, unknown>).v : undefined;
  if (v !== undefined && v !== 1) return { problem: 'unsupported-version', reason: `${where} has "v": ${JSON.stringify(v)}; only version 1 is known` };
  return { problem: 'malformed', reason: `${where} is malformed (members and types of docs/LEDGER.md §2)` };
}

/** Recomputes an event's hash from its own prevHash and content. */
export function contentFailure(e: StoredLedgerEvent): Failure | undefined {
  try {
    if (chainHashIs(e.prevHash, e, e.hash)) return undefined;
    return { problem: 'hash-mismatch', reason: `seq ${e.seq}: content hashes to ${chainHash(e.prevHash, e)}, stored hash is ${e.hash}` };
  } catch (error) {
    return { problem: 'malformed', reason: `seq ${e.seq}: payload is not canonical JSON (${String(error)})` };
  }
}

function seqFailure(events: readonly unknown[], index: number, expectedSeq: number): Failure {
  const found = (events[index] as StoredLedgerEvent).seq;
  // Distinguishes a reordering (an earlier seq, or the expected one showing up later) from a deletion.
  const reordered = found < expectedSeq || events.slice(index + 1).some((e) => isStoredEvent(e) && e.seq === expectedSeq);
  return reordered
    ? { problem: 'seq-order', reason: `expected seq ${expectedSeq} but found ${found}; seq ${expectedSeq} appears later` }
    : { problem: 'seq-gap', reason: `expected seq ${expectedSeq} but found ${found}; seq ${expectedSeq} is missing` };
}

function eventFailure(events: readonly unknown[], index: number, expected: { seq: number; prevHash: string; tenantId: string }): Failure | undefined {
  const e = events[index];
  const shape = eventShapeFailure(e, `event at position ${index}`);
  if (shape || !isStoredEvent(e)) return shape;
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
    expected.prevHash = must(events[i]).hash;
    expected.seq++;
  }
  return { ok: true, checked: events.length };
}

function* leafHashesOf(events: readonly StoredLedgerEvent[], count: number): Generator<Uint8Array> {
  for (let i = 0; i < count; i++) yield eventLeafHash(must(events[i]).hash);
}

/**
 * Verifies a full chain (from seq 1) against a checkpoint: the chain itself, then that it
 * still covers treeSize events (a cut-off tail reports the first missing seq), that event
 * treeSize is the head's headHash and that the first treeSize events give its rootHash.
 * With a public key the head's signature is checked first.
 */
export function verifyAgainstCheckpoint(events: readonly StoredLedgerEvent[], head: TreeHead | SignedTreeHead, publicKey?: Uint8Array): ChainReport {
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
  const headHash = treeSize === 0 ? GENESIS_HASH : must(events[treeSize - 1]).hash;
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
