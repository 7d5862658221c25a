// Ledger exports (docs/LEDGER.md §6.2): JSON lines of a header, every signed checkpoint, then the
// events. Verified offline against a trusted key: the chain, every checkpoint's signature, and
// each checkpoint the events reach (head hash, and from seq 1 the root); a checkpoint beyond the
// last event is a cut-off tail. Never throws on bad data.

import { EXPORT_FORMAT, EXPORT_FORMATS } from '../format/export-format.ts';
import { forgottenStepsOf } from '../format/forgotten.ts';
import { fromHex, GENESIS_HASH, isHashHex, type StoredLedgerEvent, toHex } from '../format/hash.ts';
import { checkHashedRows, collectClaims, forgottenClaimList, type HashedRow, isHashedRow, rowClaimsOf } from '../format/hashed-rows.ts';
import { eventLeafHash, MerkleAccumulator, verifyConsistency } from '../format/merkle.ts';
import { hasExactly, hasOnly, isUuid } from '../format/shape.ts';
import { isSignedTreeHead, type SignedTreeHead, verifyTreeHead } from '../format/signed-head.ts';
import { type LedgerProblem, verifyChain } from './verify.ts';

export { EXPORT_FORMAT, EXPORT_FORMATS };

export interface ExportHeader {
  format: string;
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
  /** Hashed values (outcomes, critiques, ..., checkpoint states, retrieval results) recomputed from the file's row lines. */
  rowsChecked: number;
  /** Steps the file's verified steps.forgotten events name: their content is gone from the server (§3.4). */
  stepsForgotten: number;
  /** Hashed values the file's episode.forgotten events name with their latest claim's hash: gone from the server, no row line (§3.4). */
  rowsForgotten: number;
  /** The newest checkpoint that verified: compare it with a fresh one from the server (§7.3). */
  latestCheckpoint: { treeSize: number; issuedAt: string } | null;
  /** What a later incremental check starts from (§7.3.1): set when the newest checkpoint's root was verified. */
  state?: VerifierState;
  firstBadSeq?: number;
  problem?: LedgerProblem;
  reason?: string;
}

type Line = Record<string, unknown>;

function headerFailure(line: unknown): { problem: LedgerProblem; reason: string } | undefined {
  if (typeof line !== 'object' || line === null || Array.isArray(line)) return { problem: 'malformed', reason: 'line 1 must be the export header' };
  const h = line as Line;
  if (typeof h.format !== 'string' || !EXPORT_FORMATS.includes(h.format)) {
    return typeof h.format === 'string'
      ? { problem: 'unsupported-version', reason: `format "${h.format}" is not ${EXPORT_FORMATS.join(' or ')}` }
      : { problem: 'malformed', reason: `line 1 must be the header {"format":"${EXPORT_FORMAT}",...}` };
  }
  const sizeOk = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
  if (!hasOnly(h, ['format', 'tenantId', 'afterSeq', 'toSeq'], []) || !isUuid(h.tenantId) || !sizeOk(h.afterSeq) || !(h.toSeq === null || sizeOk(h.toSeq))) {
    return { problem: 'malformed', reason: 'the header has exactly format, tenantId, afterSeq (integer) and toSeq (integer or null)' };
  }
  return undefined;
}

/** A verified signed checkpoint, kept by a verifier to check only what is new next time (§7.3.1). */
export interface VerifierState {
  format: typeof STATE_FORMAT;
  tenantId: string;
  treeSize: number;
  rootHash: string;
  headHash: string;
}

export const STATE_FORMAT = 'episodic.verifier-state.v1';

export function isVerifierState(value: unknown): value is VerifierState {
  if (typeof value !== 'object' || value === null || !hasExactly(value, ['format', 'tenantId', 'treeSize', 'rootHash', 'headHash'])) return false;
  const s = value as Line;
  return (
    s.format === STATE_FORMAT &&
    isUuid(s.tenantId) &&
    Number.isSafeInteger(s.treeSize) &&
    (s.treeSize as number) >= 0 &&
    isHashHex(s.rootHash) &&
    isHashHex(s.headHash)
  );
}

/** The consistency proof an incremental export carries: from the verifier's old size to the newest checkpoint. */
interface ConsistencyLine {
  fromSize: number;
  toSize: number;
  proof: string[];
}

function isConsistencyLine(value: unknown): value is ConsistencyLine {
  if (typeof value !== 'object' || value === null || !hasExactly(value, ['fromSize', 'toSize', 'proof'])) return false;
  const c = value as Line;
  return Number.isSafeInteger(c.fromSize) && Number.isSafeInteger(c.toSize) && Array.isArray(c.proof) && c.proof.every(isHashHex);
}

/** Splits the lines after the header into checkpoints ({"checkpoint": head}), consistency proofs and events. */
function split(lines: unknown[]): { checkpoints: unknown[]; consistency: unknown[]; rows: unknown[]; events: unknown[] } {
  const checkpoints: unknown[] = [];
  const consistency: unknown[] = [];
  const rows: unknown[] = [];
  const events: unknown[] = [];
  for (const line of lines) {
    const only = (member: string) => typeof line === 'object' && line !== null && hasExactly(line, [member]);
    if (only('checkpoint')) checkpoints.push((line as Line).checkpoint);
    else if (only('consistency')) consistency.push((line as Line).consistency);
    else if (only('row')) rows.push((line as Line).row);
    else events.push(line);
  }
  return { checkpoints, consistency, rows, events };
}

/**
 * §6.2: a v2 or later export to the head carries every value its events hash (v4: with the served copies), each hashing to the latest
 * claim; a file whose row lines were stripped fails at the first claim it lacks, never as "0 checked".
 */
function rowsFailure(rows: unknown[], events: StoredLedgerEvent[], header: ExportHeader, report: ExportReport, fail: Fail): ExportReport | undefined {
  const carriesRows = header.format !== 'episodic.export.v1' && header.toSeq === null;
  if (!carriesRows && !rows.length) return undefined;
  if (!carriesRows) return fail('malformed', 'only a v2 export to the head (toSeq null) carries row lines');
  const bad = rows.findIndex((r) => !isHashedRow(r));
  if (bad >= 0) return fail('malformed', `row ${bad + 1} is not {kind, id, value} of a known kind`);
  const check = checkHashedRows(rowClaimsOf(events, header.format === EXPORT_FORMAT), rows as HashedRow[]);
  report.rowsChecked = check.checked;
  return check.failure ? fail(check.failure.problem, check.failure.reason, check.failure.seq) : undefined;
}

type Fail = (problem: LedgerProblem, reason: string, firstBadSeq?: number) => ExportReport;

/** §7.3.1: the file continues the verified state: its tenant, its size, and the signed head at that size unchanged. */
function stateFailure(state: VerifierState, header: ExportHeader, heads: SignedTreeHead[], fail: Fail): ExportReport | undefined {
  if (header.tenantId !== state.tenantId) return fail('tenant-mismatch', `the state is for tenant ${state.tenantId}`);
  // Checkpoints are kept forever: a ledger whose newest checkpoint is older than the state was cut back.
  const newest = heads.at(-1)?.treeSize ?? -1;
  if (newest < state.treeSize)
    return fail(
      'missing-tail',
      `the state holds checkpoint ${state.treeSize}, the file's newest is ${newest < 0 ? 'none' : newest}: the ledger was rolled back`,
      Math.max(newest, 0) + 1,
    );
  if (header.afterSeq !== state.treeSize)
    return fail(
      'malformed',
      `the state ends at seq ${state.treeSize}: check an export made with --after ${state.treeSize} (this one starts after ${header.afterSeq})`,
    );
  const same = heads.find((h) => h.treeSize === state.treeSize);
  if (same && (same.rootHash !== state.rootHash || same.headHash !== state.headHash))
    return fail('root-mismatch', `checkpoint ${state.treeSize} is not the one verified before: history was rewritten`, state.treeSize);
  return undefined;
}

/** The newest checkpoint the events reach must be consistent with the state's (RFC 9162 §2.1.4). */
function consistencyFailure(state: VerifierState, newest: SignedTreeHead, lines: unknown[], fail: Fail): ExportReport | undefined {
  const line = lines.find((c) => isConsistencyLine(c) && c.fromSize === state.treeSize && c.toSize === newest.treeSize) as ConsistencyLine | undefined;
  if (!line) return fail('proof-missing', `no consistency proof from size ${state.treeSize} to checkpoint ${newest.treeSize}`, newest.treeSize);
  const consistent = verifyConsistency({
    oldSize: state.treeSize,
    newSize: newest.treeSize,
    oldRoot: fromHex(state.rootHash, 32),
    newRoot: fromHex(newest.rootHash, 32),
    proof: line.proof.map((hex) => fromHex(hex, 32)),
  });
  if (!consistent)
    return fail(
      'proof-invalid',
      `checkpoint ${newest.treeSize} is not an extension of the verified tree of size ${state.treeSize}: history was rewritten`,
      newest.treeSize,
    );
  return undefined;
}

const stateOf = (head: SignedTreeHead): VerifierState => ({
  format: STATE_FORMAT,
  tenantId: head.tenantId,
  treeSize: head.treeSize,
  rootHash: head.rootHash,
  headHash: head.headHash,
});

/**
 * Verifies an export against a trusted key. With `state` (a checkpoint verified earlier), only
 * what is new: the events after it, chained from its head hash, and the newest checkpoint they
 * reach, through the consistency proof the file carries from the state's tree to it.
 */
export function verifyExport(lines: unknown[], publicKey: Uint8Array, state?: VerifierState): ExportReport {
  const report: ExportReport = {
    ok: false,
    eventsChecked: 0,
    checkpointsChecked: 0,
    rowsChecked: 0,
    stepsForgotten: 0,
    rowsForgotten: 0,
    latestCheckpoint: null,
  };
  const fail: Fail = (problem, reason, firstBadSeq) => ({
    ...report,
    ok: false,
    problem,
    reason,
    ...(firstBadSeq === undefined ? {} : { firstBadSeq }),
  });
  const headerProblem = headerFailure(lines[0]);
  if (headerProblem) return fail(headerProblem.problem, headerProblem.reason);
  const header = lines[0] as ExportHeader;
  const { checkpoints, consistency, rows, events } = split(lines.slice(1));
  if ((consistency.length || rows.length) && header.format === 'episodic.export.v1') return fail('malformed', 'a v1 export carries no consistency or row line');

  const heads: SignedTreeHead[] = [];
  for (const [i, head] of checkpoints.entries()) {
    if (!isSignedTreeHead(head)) return fail('malformed', `checkpoint ${i + 1} is not a signed tree head (§5)`);
    if (head.tenantId !== header.tenantId) return fail('tenant-mismatch', `checkpoint ${head.treeSize} is for tenant ${head.tenantId}`);
    if (!verifyTreeHead(head, publicKey)) return fail('signature', `checkpoint ${head.treeSize} does not verify with the trusted key`, head.treeSize);
    if (heads.length && (heads.at(-1)?.treeSize ?? 0) >= head.treeSize) return fail('malformed', 'checkpoints must be in increasing treeSize order');
    heads.push(head);
  }
  if (state) {
    const failure = stateFailure(state, header, heads, fail);
    if (failure) return failure;
  }

  const firstSeq = header.afterSeq + 1;
  const first = events[0] as Partial<StoredLedgerEvent> | undefined;
  // From seq 1 the first link is the genesis hash, after a verified state its head hash; a later
  // start without a state can only trust the event's own prevHash.
  const untrustedPrev = typeof first?.prevHash === 'string' ? first.prevHash : '';
  const expectedPrevHash = header.afterSeq === 0 ? GENESIS_HASH : (state?.headHash ?? untrustedPrev);
  const chain = verifyChain(events as StoredLedgerEvent[], { expectedFirstSeq: firstSeq, expectedPrevHash, tenantId: header.tenantId });
  report.eventsChecked = chain.checked;
  if (!chain.ok) return fail(chain.problem ?? 'malformed', chain.reason ?? '', chain.firstBadSeq);
  const stored = events as StoredLedgerEvent[];
  for (const steps of forgottenStepsOf(stored).values()) report.stepsForgotten += steps.size;
  report.rowsForgotten = forgottenClaimList(collectClaims(stored)).length;
  const lastSeq = header.afterSeq + stored.length;
  if (header.toSeq !== null && lastSeq < header.toSeq)
    return fail('missing-tail', `the header says events up to ${header.toSeq}, the file ends at ${lastSeq}`, lastSeq + 1);

  const walked = walkCheckpoints(stored, heads, header.afterSeq, report, fail);
  if (walked) return walked;
  const end = header.toSeq ?? Number.MAX_SAFE_INTEGER;
  const beyond = heads.find((h) => h.treeSize > lastSeq && h.treeSize <= end);
  if (beyond) return fail('missing-tail', `checkpoint ${beyond.treeSize} is signed but the events end at seq ${lastSeq}`, lastSeq + 1);

  const rowProblem = rowsFailure(rows, stored, header, report, fail);
  if (rowProblem) return rowProblem;

  const newest = heads.filter((h) => h.treeSize >= firstSeq && h.treeSize <= lastSeq).at(-1);
  if (state && newest) {
    const failure = consistencyFailure(state, newest, consistency, fail);
    if (failure) return failure;
  }
  // A root is trusted when recomputed from seq 1, or proved consistent with a trusted state.
  const trusted = newest && (header.afterSeq === 0 || state) ? stateOf(newest) : header.afterSeq === 0 ? undefined : state;
  return { ...report, ok: true, ...(trusted ? { state: trusted } : {}) };
}

/** Each checkpoint the events reach: its head hash, and from seq 1 its root. */
function walkCheckpoints(stored: StoredLedgerEvent[], heads: SignedTreeHead[], afterSeq: number, report: ExportReport, fail: Fail): ExportReport | undefined {
  const tree = new MerkleAccumulator();
  let next = 0;
  for (const e of stored) {
    if (afterSeq === 0) tree.append(eventLeafHash(e.hash));
    for (let head = heads[next]; head && head.treeSize <= e.seq; head = heads[++next]) {
      if (head.treeSize <= afterSeq) continue;
      if (head.headHash !== e.hash)
        return fail('head-hash-mismatch', `event ${e.seq} is not the one checkpoint ${head.treeSize} signed: history was rewritten`, e.seq);
      if (afterSeq === 0 && toHex(tree.root()) !== head.rootHash) return fail('root-mismatch', `events 1..${e.seq} do not produce the signed root`, e.seq);
      report.checkpointsChecked++;
      report.latestCheckpoint = { treeSize: head.treeSize, issuedAt: head.issuedAt };
    }
  }
  return undefined;
}
