// Server-side verification of a stored range (docs/LEDGER.md §7.5): the chain; every step row the
// events cover (recomputed from the row, and its content_hash column compared); the other rows
// events hash (row-checks.ts); every signed checkpoint within the range (signature, head hash,
// root); and, from seq 1, a cut-off tail and step rows no event covers.
import type pg from 'pg';
import { must } from '../core/must.ts';
import type { LedgerEventsRow } from '../db/rows.ts';
import { Params, queryRows } from '../db/sql.ts';
import { listCheckpoints } from './checkpoints.ts';
import { canonicalTextHashIs, fromHex, GENESIS_HASH, hasherReady, type StoredLedgerEvent, toHex } from './hash.ts';
import { eventLeafHash, MerkleAccumulator } from './merkle.ts';
import { checkRows } from './row-checks.ts';
import { RowClaims } from './row-claims.ts';
import { type SignedTreeHead, verifyTreeHead } from './signed-head.ts';
import { type ChainReport, type LedgerProblem, verifyChain } from './verify.ts';
import { readEventPage, readStepRows, type StepKey, type StoredStep, storedStepText } from './verify-read.ts';

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

type StepEntry = { n: number; hash: unknown };

interface Covered extends StepKey {
  seq: number;
  hash: unknown;
}

/** The step entries the page's steps.logged events carry, in event order. */
function coveredSteps(events: StoredLedgerEvent[]): Covered[] {
  const covered: Covered[] = [];
  for (const e of events) {
    if (e.type !== 'steps.logged' || !e.episodeId) continue;
    for (const entry of (e.payload as { steps?: StepEntry[] }).steps ?? []) covered.push({ seq: e.seq, episodeId: e.episodeId, n: entry.n, hash: entry.hash });
  }
  return covered;
}

/** Steps checked between two turns of the event loop. */
const STEP_SLICE = 1_000;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Each step entry's row: recomputed (§3.2) and its stored content_hash column, both equal to the
 * entry. Yields to the event loop every STEP_SLICE steps, so that the next page's reads proceed
 * meanwhile: its step query goes out as soon as its events arrive, and rows are taken off the
 * socket as PostgreSQL sends them instead of waiting in a full buffer.
 */
async function checkSteps(covered: Covered[], rows: Map<string, Map<number, StoredStep>>): Promise<{ checked: number; bad?: Failure }> {
  let checked = 0;
  for (const { seq, episodeId, n, hash } of covered) {
    if (checked % STEP_SLICE === STEP_SLICE - 1) await nextTurn();
    const row = rows.get(episodeId)?.get(n);
    if (!row) return { checked, bad: { seq, problem: 'step-missing', reason: `step ${n} of episode ${episodeId} is missing` } };
    const step = storedStepText(row);
    if (!canonicalTextHashIs(step.canonical, hash))
      return { checked, bad: { seq, problem: 'step-mismatch', reason: `step ${n} of episode ${episodeId} differs from what was logged` } };
    if (step.contentHash !== hash) {
      const reason = `step ${n} of episode ${episodeId}: its content_hash column differs from the logged hash`;
      return { checked, bad: { seq, problem: 'step-mismatch', reason } };
    }
    checked += 1;
  }
  return { checked };
}

/** Marks a read started ahead as handled, so that one abandoned after a failure cannot crash the process. */
function ahead<T>(read: Promise<T>): Promise<T> {
  read.catch(() => undefined);
  return read;
}

interface Page {
  events: StoredLedgerEvent[];
  covered: Covered[];
  stepRows: Map<string, Map<number, StoredStep>>;
}

/** The first PAGE events after seq `after` (up to toSeq), then the step rows they cover: one query at a time. */
async function readPage(pool: pg.Pool, tenantId: string, after: number, toSeq: number | null): Promise<Page> {
  const events = await readEventPage(pool, tenantId, after, toSeq, PAGE);
  const covered = coveredSteps(events);
  return { events, covered, stepRows: await readStepRows(pool, tenantId, covered) };
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
    const last = page.events.at(-1);
    if (!last) return;
    if (page.events.length === PAGE) next = ahead(readPage(pool, tenantId, last.seq, toSeq));
    yield page;
    if (page.events.length < PAGE) return;
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
  feed(events: StoredLedgerEvent[], tree: MerkleAccumulator): Failure | undefined {
    for (const e of events) {
      if (this.fromStart) tree.append(eventLeafHash(e.hash));
      for (let head = this.heads[this.next]; head && head.treeSize <= e.seq; head = this.heads[++this.next]) {
        if (head.treeSize < this.fromSeq) continue;
        const failure = this.check(head, e, tree);
        if (failure) return failure;
        this.checked++;
      }
    }
    return undefined;
  }

  private check(head: SignedTreeHead, e: StoredLedgerEvent, tree: MerkleAccumulator): Failure | undefined {
    if (!verifyTreeHead(head, this.publicKey))
      return { seq: head.treeSize, problem: 'signature', reason: `checkpoint ${head.treeSize} does not verify with the server's key` };
    if (e.hash !== head.headHash)
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
  for await (const { events: page, covered, stepRows } of pages(pool, tenantId, fromSeq, toSeq)) {
    const chain = verifyChain(page, { expectedPrevHash, expectedFirstSeq, tenantId });
    counts.checked += chain.checked;
    if (!chain.ok) return report({ seq: chain.firstBadSeq ?? expectedFirstSeq, problem: chain.problem ?? 'malformed', reason: chain.reason ?? '' });
    const steps = await checkSteps(covered, stepRows);
    counts.stepsChecked += steps.checked;
    if (steps.bad) return report(steps.bad);
    const checkpoint = walk.feed(page, tree);
    if (checkpoint) return report(checkpoint);
    if (toSeq === null) for (const e of page) claims.add(e);
    const last = must(page.at(-1));
    expectedPrevHash = last.hash;
    expectedFirstSeq = last.seq + 1;
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
