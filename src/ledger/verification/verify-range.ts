// Server-side verification of a stored range (docs/LEDGER.md §7.5): the chain; every step row the
// events cover (recomputed from the row, and its content_hash column compared); the other rows
// events hash (row-checks.ts); every signed checkpoint within the range (signature, head hash,
// root); and, from seq 1, a cut-off tail and step rows no event covers. Pages are read and checked
// as a pipeline (verify-pages.ts): each page's chain from its rows (verify-chain.ts), its step rows
// on a worker thread. Here each page is joined to the one before, falling back to verifyChain on
// the parsed events for its verdict and report whenever the fast check is in doubt; verdicts are
// taken in page order, so the first failure reported is the earliest.
import type pg from 'pg';
import type { LedgerEventsRow } from '../../db/rows.ts';
import { Params, queryRows } from '../../db/sql.ts';
import { EPISODE_FORGOTTEN, type ForgottenRows, type ForgottenSteps, forgottenRowsOf, forgottenStepsOf, STEPS_FORGOTTEN } from '../format/forgotten.ts';
import { chainHashIs, fromHex, GENESIS_HASH, HASH_BYTES, hasherReady, toHex } from '../format/hash.ts';
import { hashLeaf, MerkleAccumulator } from '../format/merkle.ts';
import { RowClaims } from '../format/row-claims.ts';
import { type SignedTreeHead, verifyTreeHead } from '../format/signed-head.ts';
import { type ChainReport, verifyChain } from '../proofs/verify.ts';
import { listCheckpoints } from '../store/checkpoints.ts';
import { EVENT_COLUMNS, type LedgerEventSqlRow, toEvent } from '../store/read.ts';
import { checkBlobs } from './blob-check.ts';
import { releaseBytes, rowCount } from './copy-rows.ts';
import { OneQueryAtATime } from './one-query.ts';
import { RowCheck } from './row-checks.ts';
import { type ChainStart, indexOfEvents, type PageIndex } from './verify-chain.ts';
import { type Failure, type Page, pages, type StepsVerdict } from './verify-pages.ts';
import { eventAt } from './verify-read.ts';

export interface RangeReport extends ChainReport {
  stepsChecked: number;
  /** Of the steps checked, those whose content a steps.forgotten event names as forgotten (§3.4). */
  stepsForgotten: number;
  rowsChecked: number;
  /** Hashed values an episode.forgotten event names with their claimed hash: gone, checked to be empty (§3.4). */
  rowsForgotten: number;
  checkpointsChecked: number;
  /** The latest signed checkpoint's size (null when none). */
  checkpointTreeSize: number | null;
}

async function prevHashBefore(pool: pg.Pool, tenantId: string, fromSeq: number): Promise<string> {
  if (fromSeq <= 1) return GENESIS_HASH;
  const p = new Params();
  const sql = `SELECT hash FROM ledger_events WHERE tenant_id = ${p.add(tenantId)} AND seq = ${p.add(fromSeq - 1)}`;
  const [row] = await queryRows<Pick<LedgerEventsRow, 'hash'>>(pool, sql, p);
  return row?.hash ?? GENESIS_HASH;
}

/**
 * The tenant's forgotten steps and rows, from its steps.forgotten and episode.forgotten events
 * (partial indexes find them). Each event's own hash is recomputed; its place in the chain is
 * checked with the rest of the range, so one outside the range is trusted as far as its own hash
 * goes (§7.5).
 */
async function forgottenOf(pool: pg.Pool, tenantId: string): Promise<{ steps: ForgottenSteps; rows: ForgottenRows }> {
  const p = new Params();
  const tenant = p.add(tenantId);
  const sql = `SELECT ${EVENT_COLUMNS} FROM ledger_events WHERE tenant_id = ${tenant} AND type = ${p.add(STEPS_FORGOTTEN)}
               UNION ALL SELECT ${EVENT_COLUMNS} FROM ledger_events WHERE tenant_id = ${tenant} AND type = ${p.add(EPISODE_FORGOTTEN)} ORDER BY seq`;
  const events = (await queryRows<LedgerEventSqlRow>(pool, sql, p)).map(toEvent).filter((e) => chainHashIs(e.prevHash, e, e.hash));
  return { steps: forgottenStepsOf(events), rows: forgottenRowsOf(events) };
}

/** Pages whose step verdicts may still be out while the next page's chain is checked. */
const PAGES_UNSETTLED = 2;

interface PageVerdicts {
  steps: Promise<StepsVerdict>;
  checkpoint: Failure | undefined;
  checkpointsBefore: number;
  checkpointsAfter: number;
}

/**
 * The verdicts that come after a page's chain (its steps', then its checkpoints'), settled in page
 * order: the first failure reported is the earliest page's, and the counts stop at it.
 */
class PendingVerdicts {
  private readonly queue: PageVerdicts[] = [];

  constructor(private readonly counts: { stepsChecked: number; stepsForgotten: number; checkpointsChecked: number }) {}

  add(page: PageVerdicts): void {
    this.queue.push(page);
  }

  /** Settles pages, oldest first, until `keep` are left; the first failure met. */
  async settle(keep: number): Promise<Failure | undefined> {
    while (this.queue.length > keep) {
      const page = this.queue.shift() as PageVerdicts;
      const { checked, forgotten, bad } = await page.steps;
      this.counts.stepsChecked += checked;
      this.counts.stepsForgotten += forgotten;
      this.counts.checkpointsChecked = bad ? page.checkpointsBefore : page.checkpointsAfter;
      if (bad || page.checkpoint) return bad ?? page.checkpoint;
    }
    return undefined;
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

/** The page's chain from `start`: its rows' own check when it joins the one before, else verifyChain's verdict on the parsed events. */
function chainOf({ rows, chain }: Page, start: ChainStart): { index: PageIndex } | { report: ChainReport } {
  if (chain && chain.index.firstSeq === start.seq && toHex(chain.firstPrev) === start.prevHash) return { index: chain.index };
  const events = Array.from({ length: rowCount(rows) }, (_, i) => eventAt(rows, i, start.tenantId));
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

/** How far the ledger reached when the verification began: the largest size signed, the head row, the step rows. */
interface Reach {
  mark: number;
  headSeq: number;
  stepRows: number;
}

/**
 * Read in one statement before the checkpoints and the events: a live server appends events,
 * steps and checkpoints while the walk runs, and counts read after it would report those as a
 * missing tail, a missing checkpoint or uncovered steps. What the walk checks reaches at least this far.
 */
async function reachOf(pool: pg.Pool, tenantId: string): Promise<Reach> {
  const p = new Params();
  const tenant = p.add(tenantId);
  const [row] = await queryRows<{ mark: string | null; head: string | null; steps: string }>(
    pool,
    `SELECT (SELECT tree_size FROM ledger_checkpoint_marks WHERE tenant_id = ${tenant}) AS mark,
            (SELECT seq FROM ledger_heads WHERE tenant_id = ${tenant}) AS head,
            (SELECT count(*) FROM steps WHERE tenant_id = ${tenant}) AS steps`,
    p,
  );
  return { mark: Number(row?.mark ?? 0), headSeq: Number(row?.head ?? 0), stepRows: Number(row?.steps ?? 0) };
}

/**
 * A tail deleted together with its checkpoints leaves a valid shorter chain: the head row and the
 * largest size ever signed still say how far the ledger reached. A newest checkpoint deleted alone
 * is reported at its size.
 */
function cutOffFailure(reach: Reach, end: number, latest: number | null): Failure | undefined {
  const { mark } = reach;
  const reached = Math.max(mark, reach.headSeq);
  if (reached > end)
    return { seq: end + 1, problem: 'missing-tail', reason: `the ledger reached seq ${reached} (head row, or a checkpoint signed) but ends at seq ${end}` };
  if (mark > (latest ?? 0)) return { seq: mark, problem: 'checkpoint-missing', reason: `checkpoint ${mark} was signed and is gone` };
  return undefined;
}

/** From seq 1 to the head: step rows no event covers, and every blob re-hashed. */
async function wholeLedgerFailure(pool: pg.Pool, tenantId: string, reach: Reach, end: number, stepsChecked: number): Promise<Failure | undefined> {
  const stored = reach.stepRows;
  if (stored > stepsChecked)
    return { seq: end + 1, problem: 'step-uncovered', reason: `${stored - stepsChecked} step rows are covered by no steps.logged event` };
  const blobs = await checkBlobs(pool, tenantId, end);
  return blobs.failure ? { ...blobs.failure, problem: 'step-mismatch' } : undefined;
}

export async function verifyStoredRange(
  pool: pg.Pool,
  tenantId: string,
  range: { fromSeq: number; toSeq: number | null },
  publicKeyHex: string,
): Promise<RangeReport> {
  const queries = new OneQueryAtATime();
  try {
    return await verifyThrough(queries, pool, tenantId, range, publicKeyHex);
  } finally {
    queries.stopped = true; // reads and checks queued behind the verdict start no query
  }
}

async function verifyThrough(
  queries: OneQueryAtATime,
  pool: pg.Pool,
  tenantId: string,
  range: { fromSeq: number; toSeq: number | null },
  publicKeyHex: string,
): Promise<RangeReport> {
  const { fromSeq, toSeq } = range;
  await hasherReady;
  const reach = await reachOf(pool, tenantId);
  const heads = await allCheckpoints(pool, tenantId);
  const latest = heads.at(-1) ?? null;
  const counts = { checked: 0, stepsChecked: 0, stepsForgotten: 0, rowsChecked: 0, rowsForgotten: 0, checkpointsChecked: 0 };
  const { steps: forgotten, rows: forgottenRows } = await forgottenOf(pool, tenantId);
  const walk = new CheckpointWalk(heads, fromHex(publicKeyHex, 32), fromSeq === 1, fromSeq);
  // §7.5: `checked` counts the events verified before the first failing one, whichever check failed.
  const report = (failure?: Failure): RangeReport => ({
    ok: !failure,
    ...counts,
    checked: failure ? Math.max(0, Math.min(counts.checked, failure.seq - fromSeq)) : counts.checked,
    checkpointTreeSize: latest?.treeSize ?? null,
    ...(failure ? { firstBadSeq: failure.seq, problem: failure.problem, reason: failure.reason } : {}),
  });
  const tree = new MerkleAccumulator();
  const claims = new RowClaims();
  const rowCheck = new RowCheck(pool, tenantId, claims, (query) => queries.run(query), forgottenRows);
  const pending = new PendingVerdicts(counts);
  let expectedPrevHash = await prevHashBefore(pool, tenantId, fromSeq);
  let expectedFirstSeq = fromSeq;
  for await (const page of pages(pool, { tenantId, fromSeq, toSeq, forgotten }, queries)) {
    const { rows, facts: found, steps } = page;
    const chain = chainOf(page, { seq: expectedFirstSeq, prevHash: expectedPrevHash, tenantId });
    if ('report' in chain) {
      const earlier = await pending.settle(0);
      if (earlier) return report(earlier);
      const { checked, firstBadSeq, problem, reason } = chain.report;
      counts.checked += checked;
      return report({ seq: firstBadSeq ?? expectedFirstSeq, problem: problem ?? 'malformed', reason: reason ?? '' });
    }
    const { index } = chain;
    counts.checked += index.count;
    const checkpointsBefore = walk.checked;
    const checkpoint = walk.feed(index, tree);
    pending.add({ steps, checkpoint, checkpointsBefore, checkpointsAfter: walk.checked });
    // steps.logged events claim no row: row-claims.ts reads nothing of theirs.
    if (toSeq === null) {
      for (let i = 0; i < index.count; i++) if (!found.stepsLogged[i]) claims.add(eventAt(rows, i, tenantId));
      rowCheck.checkAhead();
    }
    const failure = await pending.settle(checkpoint ? 0 : PAGES_UNSETTLED);
    if (failure) return report(failure);
    releaseBytes(rows.bytes); // nothing reads this page's rows any more
    expectedPrevHash = toHex(index.hashes.subarray((index.count - 1) * HASH_BYTES));
    expectedFirstSeq = index.firstSeq + index.count;
  }
  const failure = await pending.settle(0);
  if (failure) return report(failure);
  if (toSeq === null) {
    const rows = await rowCheck.finish();
    counts.rowsChecked = rows.checked;
    counts.rowsForgotten = rows.forgotten;
    const [bad] = rows.failures;
    if (bad) return report({ seq: bad.seq, problem: 'row-mismatch', reason: bad.reason });
  }
  const end = expectedFirstSeq - 1;
  const beyond = heads.find((h) => h.treeSize > end);
  if (beyond && (toSeq === null || toSeq >= beyond.treeSize)) {
    return report({ seq: end + 1, problem: 'missing-tail', reason: `checkpoint ${beyond.treeSize} is signed but the ledger ends at seq ${end}` });
  }
  if (toSeq === null) {
    const cut = cutOffFailure(reach, end, latest?.treeSize ?? null);
    if (cut) return report(cut);
  }
  if (fromSeq === 1 && toSeq === null) {
    const whole = await wholeLedgerFailure(pool, tenantId, reach, end, counts.stepsChecked);
    if (whole) return report(whole);
  }
  return report();
}
