// Ledger exports (docs/LEDGER.md §6.2): JSON lines of a header, every signed checkpoint, then the
// events. Verified offline against a trusted key: the chain, every checkpoint's signature, and
// each checkpoint the events reach (head hash, and from seq 1 the root); a checkpoint beyond the
// last event is a cut-off tail. Never throws on bad data.

import { EXPORT_FORMAT } from './export-format.ts';
import { GENESIS_HASH, type StoredLedgerEvent, toHex } from './hash.ts';
import { eventLeafHash, MerkleAccumulator } from './merkle.ts';
import { hasExactly, hasOnly, isUuid } from './shape.ts';
import { isSignedTreeHead, type SignedTreeHead, verifyTreeHead } from './signed-head.ts';
import { type LedgerProblem, verifyChain } from './verify.ts';

export { EXPORT_FORMAT };

export interface ExportHeader {
  format: typeof EXPORT_FORMAT;
  tenantId: string;
  /** Events start at afterSeq + 1. */
  afterSeq: number;
  /** The last seq exported, or null: to the head at export time. */
  toSeq: number | null;
}

export interface ExportReport {
  ok: boolean;
  eventsChecked: number;
  checkpointsChecked: number;
  /** The newest checkpoint that verified: compare it with a fresh one from the server (§7.3). */
  latestCheckpoint: { treeSize: number; issuedAt: string } | null;
  firstBadSeq?: number;
  problem?: LedgerProblem;
  reason?: string;
}

type Line = Record<string, unknown>;

function headerFailure(line: unknown): { problem: LedgerProblem; reason: string } | undefined {
  if (typeof line !== 'object' || line === null || Array.isArray(line)) return { problem: 'malformed', reason: 'line 1 must be the export header' };
  const h = line as Line;
  if (h.format !== EXPORT_FORMAT) {
    return typeof h.format === 'string'
      ? { problem: 'unsupported-version', reason: `format "${h.format}" is not ${EXPORT_FORMAT}` }
      : { problem: 'malformed', reason: `line 1 must be the header {"format":"${EXPORT_FORMAT}",...}` };
  }
  const sizeOk = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
  if (!hasOnly(h, ['format', 'tenantId', 'afterSeq', 'toSeq'], []) || !isUuid(h.tenantId) || !sizeOk(h.afterSeq) || !(h.toSeq === null || sizeOk(h.toSeq))) {
    return { problem: 'malformed', reason: 'the header has exactly format, tenantId, afterSeq (integer) and toSeq (integer or null)' };
  }
  return undefined;
}

/** Splits the lines after the header into checkpoints ({"checkpoint": head}) and events. */
function split(lines: unknown[]): { checkpoints: unknown[]; events: unknown[] } {
  const checkpoints: unknown[] = [];
  const events: unknown[] = [];
  for (const line of lines) {
    const isCheckpoint = typeof line === 'object' && line !== null && hasExactly(line, ['checkpoint']);
    if (isCheckpoint) checkpoints.push((line as Line).checkpoint);
    else events.push(line);
  }
  return { checkpoints, events };
}

export function verifyExport(lines: unknown[], publicKey: Uint8Array): ExportReport {
  const report: ExportReport = { ok: false, eventsChecked: 0, checkpointsChecked: 0, latestCheckpoint: null };
  const fail = (problem: LedgerProblem, reason: string, firstBadSeq?: number): ExportReport => ({
    ...report,
    ok: false,
    problem,
    reason,
    ...(firstBadSeq === undefined ? {} : { firstBadSeq }),
  });
  const headerProblem = headerFailure(lines[0]);
  if (headerProblem) return fail(headerProblem.problem, headerProblem.reason);
  const header = lines[0] as ExportHeader;
  const { checkpoints, events } = split(lines.slice(1));

  const heads: SignedTreeHead[] = [];
  for (const [i, head] of checkpoints.entries()) {
    if (!isSignedTreeHead(head)) return fail('malformed', `checkpoint ${i + 1} is not a signed tree head (§5)`);
    if (head.tenantId !== header.tenantId) return fail('tenant-mismatch', `checkpoint ${head.treeSize} is for tenant ${head.tenantId}`);
    if (!verifyTreeHead(head, publicKey)) return fail('signature', `checkpoint ${head.treeSize} does not verify with the trusted key`, head.treeSize);
    if (heads.length && (heads.at(-1)?.treeSize ?? 0) >= head.treeSize) return fail('malformed', 'checkpoints must be in increasing treeSize order');
    heads.push(head);
  }

  const firstSeq = header.afterSeq + 1;
  const first = events[0] as Partial<StoredLedgerEvent> | undefined;
  // From seq 1 the first link is the genesis hash; a later start can only trust the event's own prevHash.
  const expectedPrevHash = header.afterSeq === 0 ? GENESIS_HASH : typeof first?.prevHash === 'string' ? first.prevHash : '';
  const chain = verifyChain(events as StoredLedgerEvent[], { expectedFirstSeq: firstSeq, expectedPrevHash, tenantId: header.tenantId });
  report.eventsChecked = chain.checked;
  if (!chain.ok) return fail(chain.problem ?? 'malformed', chain.reason ?? '', chain.firstBadSeq);
  const stored = events as StoredLedgerEvent[];
  const lastSeq = header.afterSeq + stored.length;
  if (header.toSeq !== null && lastSeq < header.toSeq)
    return fail('missing-tail', `the header says events up to ${header.toSeq}, the file ends at ${lastSeq}`, lastSeq + 1);

  const tree = new MerkleAccumulator();
  let next = 0;
  for (const e of stored) {
    if (header.afterSeq === 0) tree.append(eventLeafHash(e.hash));
    for (let head = heads[next]; head && head.treeSize <= e.seq; head = heads[++next]) {
      if (head.treeSize < firstSeq) continue;
      if (head.headHash !== e.hash)
        return fail('head-hash-mismatch', `event ${e.seq} is not the one checkpoint ${head.treeSize} signed: history was rewritten`, e.seq);
      if (header.afterSeq === 0 && toHex(tree.root()) !== head.rootHash)
        return fail('root-mismatch', `events 1..${e.seq} do not produce the signed root`, e.seq);
      report.checkpointsChecked++;
      report.latestCheckpoint = { treeSize: head.treeSize, issuedAt: head.issuedAt };
    }
  }
  const end = header.toSeq ?? Number.MAX_SAFE_INTEGER;
  const beyond = heads.find((h) => h.treeSize > lastSeq && h.treeSize <= end);
  if (beyond) return fail('missing-tail', `checkpoint ${beyond.treeSize} is signed but the events end at seq ${lastSeq}`, lastSeq + 1);
  return { ...report, ok: true };
}
