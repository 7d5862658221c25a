// Server-side verification of a stored range (docs/LEDGER.md §7.5): the chain; every step row the
// events cover (recomputed from the row, and its content_hash column compared); the other rows
// events hash (row-checks.ts); every signed checkpoint within the range (signature, head hash,
// root); and, from seq 1, a cut-off tail and step rows no event covers. Rows stay UTF-8 bytes
// (verify-read.ts): the chain is checked from them (verify-chain.ts), falling back to verifyChain
// on the parsed events for its verdict and report whenever that fast check is in doubt. A page's
// step rows are checked on a worker thread (step-checker.ts) while this thread checks its chain,
// and the next page is read meanwhile: PostgreSQL, this thread and the worker each keep a core busy.
import type pg from 'pg';
import type { LedgerEventsRow } from '../db/rows.ts';
import { Params, queryRows } from '../db/sql.ts';
import { listCheckpoints } from './checkpoints.ts';
import { type ByteRows, rowCount } from './copy-rows.ts';
import { type Covered, type EventFacts, eventFacts } from './event-facts.ts';
import { fromHex, GENESIS_HASH, HASH_BYTES, hasherReady, toHex } from './hash.ts';
import { hashLeaf, MerkleAccumulator } from './merkle.ts';
import { checkRows } from './row-checks.ts';
import { RowClaims } from './row-claims.ts';
import { type SignedTreeHead, verifyTreeHead } from './signed-head.ts';
import type { StepBatch, StepProblem } from './step-check.ts';
import { checkSteps } from './step-checker.ts';
import { type StoredSteps, stepRowOf } from './step-runs.ts';
import { type ChainReport, type LedgerProblem, verifyChain } from './verify.ts';
import { type ChainStart, chainOfRows, indexOfEvents, type PageIndex } from './verify-chain.ts';
import { eventAt, readEventPage, readStepRows } from './verify-read.ts';

const PAGE = 5_000;

export interface RangeReport extends ChainReport {
  stepsChecked: number;
  rowsChecked: number;
  checkpointsChecked: number;
  /** The latest signed checkpoint's size (null when none). */
  checkpointTreeSize: number | null;
}

interface Failure {
  seq: number;
  problem: LedgerProblem;
  reason: string;
}

async function prevHashBefore(pool: pg.Pool, tenantId: string, fromSeq: number): Promise<string> {
  if (fromSeq <= 1) return GENESIS_HASH;
  const p = new Params();
  const sql = `SELECT hash FROM ledger_events WHERE tenant_id = ${p.add(tenantId)} AND seq = ${p.add(fromSeq - 1)}`;
  const [row] = await queryRows<Pick<LedgerEventsRow, 'hash'>>(pool, sql, p);
  return row?.hash ?? GENESIS_HASH;
}

/** The page's step entries in logged order with where each one's row lies (step-check.ts). */
function stepBatch(covered: Covered[], steps: StoredSteps): StepBatch {
  const batch: StepBatch = {
    bytes: steps.bytes,
    starts: new Int32Array(covered.length),
    ends: new Int32Array(covered.length),
    hashes: covered.map((c) => c.hash),
  };
  covered.forEach(({ n }, k) => {
    const row = stepRowOf(steps, k, n);
    batch.starts[k] = row < 0 ? -1 : (steps.starts[row] as number);
    batch.ends[k] = row < 0 ? -1 : (steps.ends[row] as number);
  });
  return batch;
}

const STEP_REASONS: Record<StepProblem, (step: string) => [LedgerProblem, string]> = {
  'step-missing': (step) => ['step-missing', `${step} is missing`],
  'content-differs': (step) => ['step-mismatch', `${step} differs from what was logged`],
  'column-differs': (step) => ['step-mismatch', `${step}: its content_hash column differs from the logged hash`],
};

/**
 * Each step entry's row: recomputed (§3.2) and its stored content_hash column, both equal to the
 * entry. Checked off this thread when it can be (step-checker.ts), while this one checks the chain.
 */
async function checkPageSteps(covered: Covered[], steps: StoredSteps, firstSeq: number): Promise<{ checked: number; bad?: Failure }> {
  const { checked, bad } = await checkSteps(stepBatch(covered, steps));
  if (!bad) return { checked };
  const { event, episodeId, n } = covered[bad.entry] as Covered;
  const [problem, reason] = STEP_REASONS[bad.problem](`step ${n} of episode ${episodeId}`);
  return { checked, bad: { seq: firstSeq + event, problem, reason } };
}

/** Marks a read started ahead as handled, so that one abandoned after a failure cannot crash the process. */
function ahead<T>(read: Promise<T>): Promise<T> {
  read.catch(() => undefined);
  return read;
}

interface Page {
  rows: ByteRows;
  facts: EventFacts;
  stepRows: StoredSteps;
}

/** The first PAGE events after seq `after` (up to toSeq), then the step rows they cover: one query at a time. */
async function readPage(pool: pg.Pool, tenantId: string, after: number, toSeq: number | null): Promise<Page> {
  const rows = await readEventPage(pool, tenantId, after, toSeq, PAGE);
  const found = eventFacts(rows);
  return { rows, facts: found, stepRows: await readStepRows(pool, tenantId, found.covered) };
}

/**
 * The range's pages of PAGE events, the next page read while the caller checks this one: the
 * database prints rows while this process hashes. One query at a time, so a verification holds
 * one pooled connection (VERIFY_LEDGER_TOTAL_CONCURRENCY counts on it). Ends at a short page.
 */
async function* pages(pool: pg.Pool, tenantId: string, fromSeq: number, toSeq: number | null): AsyncGenerator<Page> {
  let next = ahead(readPage(pool, tenantId, fromSeq - 1, toSeq));
  for (;;) {
    const page = await next;
    const count = rowCount(page.rows);
    if (count === 0) return;
    if (count === PAGE) next = ahead(readPage(pool, tenantId, eventAt(page.rows, count - 1).seq, toSeq));
    yield page;
    if (count < PAGE) return;
  }
}

/** Checks the signed checkpoints whose size the page reaches, as the accumulator passes each size. */
class CheckpointWalk {
  checked = 0;
  private next = 0;

  constructor(
    private readonly heads: SignedTreeHead[],
    private readonly publicKey: Uint8Array,
    private readonly fromStart: boolean,
    private readonly fromSeq: number,
  ) {}

  /** Feeds the page's events; returns the first checkpoint failure. */
  feed(page: PageIndex, tree: MerkleAccumulator): Failure | undefined {
    for (let i = 0; i < page.count; i++) {
      const seq = page.firstSeq + i;
      const hash = page.hashes.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES);
      if (this.fromStart) tree.append(hashLeaf(hash));
      for (let head = this.heads[this.next]; head && head.treeSize <= seq; head = this.heads[++this.next]) {
        if (head.treeSize < this.fromSeq) continue;
        const failure = this.check(head, toHex(hash), tree);
        if (failure) return failure;
        this.checked++;
      }
    }
    return undefined;
  }

  private check(head: SignedTreeHead, hash: string, tree: MerkleAccumulator): Failure | undefined {
    if (!verifyTreeHead(head, this.publicKey))
      return { seq: head.treeSize, problem: 'signature', reason: `checkpoint ${head.treeSize} does not verify with the server's key` };
    if (hash !== head.headHash)
      return {
        seq: head.treeSize,
        problem: 'head-hash-mismatch',
        reason: `event ${head.treeSize} is not the one checkpoint ${head.treeSize} signed: history was rewritten`,
      };
    if (this.fromStart && toHex(tree.root()) !== head.rootHash)
      return { seq: head.treeSize, problem: 'root-mismatch', reason: `events 1..${head.treeSize} do not produce the signed root` };
    return undefined;
  }
}

/** The page's chain from `start`: the fast check of the rows, else verifyChain's verdict on the parsed events. */
function chainOf(rows: ByteRows, start: ChainStart): { index: PageIndex } | { report: ChainReport } {
  const index = chainOfRows(rows, start);
  if (index) return { index };
  const events = Array.from({ length: rowCount(rows) }, (_, i) => eventAt(rows, i));
  const report = verifyChain(events, { expectedPrevHash: start.prevHash, expectedFirstSeq: start.seq, tenantId: start.tenantId });
  return report.ok ? { index: indexOfEvents(events, start.seq) } : { report };
}

async function allCheckpoints(pool: pg.Pool, tenantId: string): Promise<SignedTreeHead[]> {
  const heads: SignedTreeHead[] = [];
  for (;;) {
    const page = await listCheckpoints(pool, tenantId, heads.at(-1)?.treeSize ?? 0, 10_000);
    heads.push(...page);
    if (page.length < 10_000) return heads;
  }
}

export async function verifyStoredRange(
  pool: pg.Pool,
  tenantId: string,
  range: { fromSeq: number; toSeq: number | null },
  publicKeyHex: string,
): Promise<RangeReport> {
  const { fromSeq, toSeq } = range;
  await hasherReady;
  const heads = await allCheckpoints(pool, tenantId);
  const latest = heads.at(-1) ?? null;
  const counts = { checked: 0, stepsChecked: 0, rowsChecked: 0, checkpointsChecked: 0 };
  const walk = new CheckpointWalk(heads, fromHex(publicKeyHex, 32), fromSeq === 1, fromSeq);
  // §7.5: `checked` counts the events verified before the first failing one, whichever check failed.
  const report = (failure?: Failure): RangeReport => ({
    ok: !failure,
    ...counts,
    checked: failure ? Math.max(0, Math.min(counts.checked, failure.seq - fromSeq)) : counts.checked,
    checkpointsChecked: walk.checked,
    checkpointTreeSize: latest?.treeSize ?? null,
    ...(failure ? { firstBadSeq: failure.seq, problem: failure.problem, reason: failure.reason } : {}),
  });
  const tree = new MerkleAccumulator();
  const claims = new RowClaims();
  let expectedPrevHash = await prevHashBefore(pool, tenantId, fromSeq);
  let expectedFirstSeq = fromSeq;
  for await (const { rows, facts: found, stepRows } of pages(pool, tenantId, fromSeq, toSeq)) {
    // The steps are checked (off this thread) while the chain is; the chain's verdict comes first.
    const steps = ahead(checkPageSteps(found.covered, stepRows, expectedFirstSeq));
    const chain = chainOf(rows, { seq: expectedFirstSeq, prevHash: expectedPrevHash, tenantId });
    if ('report' in chain) {
      const { checked, firstBadSeq, problem, reason } = chain.report;
      counts.checked += checked;
      return report({ seq: firstBadSeq ?? expectedFirstSeq, problem: problem ?? 'malformed', reason: reason ?? '' });
    }
    const { index } = chain;
    counts.checked += index.count;
    const { checked, bad } = await steps;
    counts.stepsChecked += checked;
    if (bad) return report(bad);
    const checkpoint = walk.feed(index, tree);
    if (checkpoint) return report(checkpoint);
    // steps.logged events claim no row: row-claims.ts reads nothing of theirs.
    if (toSeq === null) for (let i = 0; i < index.count; i++) if (!found.stepsLogged[i]) claims.add(eventAt(rows, i));
    expectedPrevHash = toHex(index.hashes.subarray((index.count - 1) * HASH_BYTES));
    expectedFirstSeq = index.firstSeq + index.count;
  }
  if (toSeq === null) {
    const rows = await checkRows(pool, tenantId, claims);
    counts.rowsChecked = rows.checked;
    const [bad] = rows.failures;
    if (bad) return report({ seq: bad.seq, problem: 'row-mismatch', reason: bad.reason });
  }
  const end = expectedFirstSeq - 1;
  const beyond = heads.find((h) => h.treeSize > end);
  if (beyond && (toSeq === null || toSeq >= beyond.treeSize)) {
    return report({ seq: end + 1, problem: 'missing-tail', reason: `checkpoint ${beyond.treeSize} is signed but the ledger ends at seq ${end}` });
  }
  if (fromSeq === 1 && toSeq === null) {
    const p = new Params();
    const [count] = await queryRows<{ n: string }>(pool, `SELECT count(*)::bigint AS n FROM steps WHERE tenant_id = ${p.add(tenantId)}`, p);
    const stored = Number(count?.n ?? 0);
    if (stored > counts.stepsChecked)
      return report({ seq: end + 1, problem: 'step-uncovered', reason: `${stored - counts.stepsChecked} step rows are covered by no steps.logged event` });
  }
  return report();
}
