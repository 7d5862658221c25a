// Verifies ledger events one at a time as they arrive, with src/ledger's verifyChain: each event
// must follow the last verified one (seq + 1, prevHash = its hash) and hash to its own hash.
// A filtered stream skips seqs, so there only events that happen to be adjacent are linked; every
// event's own hash is still checked. Events at or below the last verified seq are duplicates.
//
// With a kept state (docs/LEDGER.md §7.3.1: tree size, root and head hash of a signed checkpoint
// verified before, what `episodic verify --state` keeps) the stream starts after that checkpoint,
// chained from its head hash, and advance() moves the state to a newer signed checkpoint the
// stream has reached: its signature with the trusted key, its head hash is the hash of the event
// the stream verified at its size, and a consistency proof from the kept root to its root. Only
// what is new is checked; a rewritten event at or before the kept checkpoint breaks the proof.

import { fromHex, GENESIS_HASH, isHashHex } from '../ledger/format/hash.ts';
import { verifyConsistency } from '../ledger/format/merkle.ts';
import { isSignedTreeHead, type SignedTreeHead, verifyTreeHead } from '../ledger/format/signed-head.ts';
import { STATE_FORMAT, type VerifierState } from '../ledger/proofs/export-verify.ts';
import { type ChainReport, type LedgerProblem, verifyChain } from '../ledger/proofs/verify.ts';
import type { LedgerEvent } from './types.ts';

export type { VerifierState };

export interface StreamVerifierOptions {
  /** The stream starts after this seq (0 = from the genesis). */
  afterSeq?: number;
  /** Hash of event afterSeq, to link the first event; unknown: the first event's prevHash is taken on trust. */
  prevHash?: string | null;
  /** Events are filtered (by episode, work item or type): seqs are not contiguous. */
  filtered?: boolean;
  tenantId?: string;
  /** A checkpoint verified before: the stream starts after it (afterSeq and prevHash are taken from it). */
  state?: VerifierState;
}

export type StateAdvance = { ok: true; state: VerifierState } | { ok: false; report: ChainReport };

export type StreamCheck = { ok: true; duplicate: boolean; linked: boolean } | { ok: false; report: ChainReport };

export class LedgerStreamVerifier {
  lastSeq: number;
  lastHash: string | null;
  private tenantId: string | undefined;
  private readonly filtered: boolean;

  /** The newest checkpoint verified (undefined without a starting state). */
  state: VerifierState | undefined;
  /** Hashes of the events verified since the state, by seq: what a newer checkpoint must sign. */
  private readonly sinceState = new Map<number, string>();

  constructor(options: StreamVerifierOptions = {}) {
    const { state } = options;
    if (state && options.filtered) throw new TypeError('a kept state needs the whole stream, not a filtered one');
    this.state = state;
    this.lastSeq = state?.treeSize ?? options.afterSeq ?? 0;
    this.lastHash = state?.headHash ?? options.prevHash ?? (this.lastSeq === 0 ? GENESIS_HASH : null);
    this.filtered = options.filtered ?? false;
    this.tenantId = state?.tenantId ?? options.tenantId;
  }

  /**
   * Moves the state to `head`, a signed checkpoint the stream has reached, given the consistency
   * proof (hex) from the state's size to the head's: signature with the trusted key, tenant, the
   * head hash being the event verified at that size, the proof from the kept root to its root.
   */
  advance(head: SignedTreeHead, proof: readonly string[], publicKey: Uint8Array): StateAdvance {
    const state = this.state;
    const fail = (problem: LedgerProblem, reason: string, firstBadSeq?: number): StateAdvance => ({
      ok: false,
      report: { ok: false, checked: 0, problem, reason, ...(firstBadSeq === undefined ? {} : { firstBadSeq }) },
    });
    if (!state) return fail('malformed', 'the verifier has no state to advance from');
    if (!isSignedTreeHead(head)) return fail('malformed', 'the checkpoint is not a signed tree head');
    if (!verifyTreeHead(head, publicKey)) return fail('signature', `checkpoint ${head.treeSize} does not verify with the trusted key`, head.treeSize);
    if (head.tenantId !== state.tenantId) return fail('tenant-mismatch', `checkpoint ${head.treeSize} is for tenant ${head.tenantId}`);
    if (head.treeSize < state.treeSize) return fail('malformed', `checkpoint ${head.treeSize} is older than the state (${state.treeSize})`);
    if (head.treeSize === state.treeSize) {
      if (head.rootHash === state.rootHash && head.headHash === state.headHash) return { ok: true, state };
      return fail('root-mismatch', `checkpoint ${state.treeSize} is not the one verified before: history was rewritten`, state.treeSize);
    }
    if (head.treeSize > this.lastSeq) return fail('missing-tail', `checkpoint ${head.treeSize} is beyond the last event verified (${this.lastSeq})`);
    if (this.sinceState.get(head.treeSize) !== head.headHash)
      return fail('head-hash-mismatch', `event ${head.treeSize} is not the one checkpoint ${head.treeSize} signed: history was rewritten`, head.treeSize);
    if (!proof.every(isHashHex)) return fail('malformed', 'the consistency proof is not a list of 32-byte hex hashes');
    const consistent = verifyConsistency({
      oldSize: state.treeSize,
      newSize: head.treeSize,
      oldRoot: fromHex(state.rootHash, 32),
      newRoot: fromHex(head.rootHash, 32),
      proof: proof.map((hex) => fromHex(hex, 32)),
    });
    if (!consistent)
      return fail(
        'proof-invalid',
        `checkpoint ${head.treeSize} does not extend the verified tree of size ${state.treeSize}: history was rewritten`,
        head.treeSize,
      );
    this.state = { format: STATE_FORMAT, tenantId: head.tenantId, treeSize: head.treeSize, rootHash: head.rootHash, headHash: head.headHash };
    for (const seq of this.sinceState.keys()) if (seq <= head.treeSize) this.sinceState.delete(seq);
    return { ok: true, state: this.state };
  }

  /** Checks one event; on success it becomes the new anchor. */
  check(event: LedgerEvent): StreamCheck {
    if (Number.isSafeInteger(event?.seq) && event.seq <= this.lastSeq) return { ok: true, duplicate: true, linked: false };
    const linked = !this.filtered || event.seq === this.lastSeq + 1;
    const report = linked
      ? verifyChain([event], { expectedFirstSeq: this.lastSeq + 1, expectedPrevHash: this.lastHash ?? undefined, tenantId: this.tenantId })
      : verifyChain([event], { tenantId: this.tenantId });
    if (!report.ok) return { ok: false, report };
    const anchored = linked && this.lastHash !== null;
    this.lastSeq = event.seq;
    this.lastHash = event.hash;
    this.tenantId ??= event.tenantId;
    if (this.state) this.sinceState.set(event.seq, event.hash);
    return { ok: true, duplicate: false, linked: anchored };
  }
}
