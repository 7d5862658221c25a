// Verifies ledger events one at a time as they arrive, with src/ledger's verifyChain: each event
// must follow the last verified one (seq + 1, prevHash = its hash) and hash to its own hash.
// A filtered stream skips seqs, so there only events that happen to be adjacent are linked; every
// event's own hash is still checked. Events at or below the last verified seq are duplicates.
import { GENESIS_HASH } from '../ledger/hash.ts';
import { type ChainReport, verifyChain } from '../ledger/verify.ts';
import type { LedgerEvent } from './types.ts';

export interface StreamVerifierOptions {
  /** The stream starts after this seq (0 = from the genesis). */
  afterSeq?: number;
  /** Hash of event afterSeq, to link the first event; unknown: the first event's prevHash is taken on trust. */
  prevHash?: string | null;
  /** Events are filtered (by episode, work item or type): seqs are not contiguous. */
  filtered?: boolean;
  tenantId?: string;
}

export type StreamCheck = { ok: true; duplicate: boolean; linked: boolean } | { ok: false; report: ChainReport };

export class LedgerStreamVerifier {
  lastSeq: number;
  lastHash: string | null;
  private tenantId: string | undefined;
  private readonly filtered: boolean;

  constructor(options: StreamVerifierOptions = {}) {
    this.lastSeq = options.afterSeq ?? 0;
    this.lastHash = options.prevHash ?? (this.lastSeq === 0 ? GENESIS_HASH : null);
    this.filtered = options.filtered ?? false;
    this.tenantId = options.tenantId;
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
    return { ok: true, duplicate: false, linked: anchored };
  }
}
