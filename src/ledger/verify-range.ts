// Server-side verification of a stored range (docs/LEDGER.md §7.5): the chain; every step row the
// events cover (recomputed from the row, and its content_hash column compared); the other rows
// events hash (row-checks.ts); every signed checkpoint within the range (signature, head hash,
// root); and, from seq 1, a cut-off tail and step rows no event covers.
import type pg from 'pg';
import type { LedgerEventsRow, StepsRow } from '../db/rows.ts';
import { Params, queryRows } from '../db/sql.ts';
import { listCheckpoints } from './checkpoints.ts';
import { fromHex, GENESIS_HASH, hasherReady, type StoredLedgerEvent, toHex } from './hash.ts';
import { eventLeafHash, MerkleAccumulator } from './merkle.ts';
import { readEvents } from './read.ts';
import { checkRows } from './row-checks.ts';
import { RowClaims } from './row-claims.ts';
import { type SignedTreeHead, verifyTreeHead } from './signed-head.ts';
import { stepRowFromColumns, stepRowHash } from './step-hash.ts';
import { type ChainReport, type LedgerProblem, verifyChain } from './verify.ts';

const PAGE = 20_000;

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

type StepEntry = { n: number; hash: string };

interface Covered {
  seq: number;
  episodeId: string;
  entry: StepEntry;
}

/** The step entries the page's steps.logged events carry, in event order. */
function coveredSteps(events: StoredLedgerEvent[]): Covered[] {
  const covered: Covered[] = [];
  for (const e of events) {
    if (e.type !== 'steps.logged' || !e.episodeId) continue;
    for (const entry of (e.payload as { steps?: StepEntry[] }).steps ?? []) covered.push({ seq: e.seq, episodeId: e.episodeId, entry });
  }
  return covered;
}

const STEP_READ = 5_000;

/** The rows of the covered steps, read STEP_READ at a time (one round trip each, not one per event). */
async function readCoveredRows(pool: pg.Pool, tenantId: string, covered: Covered[]): Promise<Map<string, StepsRow>> {
  const rows = new Map<string, StepsRow>();
  for (let i = 0; i < covered.length; i += STEP_READ) {
    const part = covered.slice(i, i + STEP_READ);
    const p = new Params();
    const sql = `SELECT s.* FROM unnest(${p.add(part.map((c) => c.episodeId))}::uuid[], ${p.add(part.map((c) => c.entry.n))}::int[]) AS k(episode_id, step_number)
         JOIN steps s ON s.tenant_id = ${p.add(tenantId)} AND s.episode_id = k.episode_id AND s.step_number = k.step_number`;
    for (const row of await queryRows<StepsRow>(pool, sql, p)) rows.set(`${row.episode_id}:${row.step_number}`, row);
  }
  return rows;
}

/** Each step entry's row: recomputed (§3.2) and its stored content_hash column, both equal to the entry. */
async function checkSteps(pool: pg.Pool, tenantId: string, events: StoredLedgerEvent[]): Promise<{ checked: number; bad?: Failure }> {
  const covered = coveredSteps(events);
  const rows = await readCoveredRows(pool, tenantId, covered);
  let checked = 0;
  for (const { seq, episodeId, entry } of covered) {
    const row = rows.get(`${episodeId}:${entry.n}`);
    const where = `step ${entry.n} of episode ${episodeId}`;
    if (!row) return { checked, bad: { seq, problem: 'step-missing', reason: `${where} is missing` } };
    if (stepRowHash(stepRowFromColumns(row)) !== entry.hash)
      return { checked, bad: { seq, problem: 'step-mismatch', reason: `${where} differs from what was logged` } };
    if (row.content_hash !== entry.hash)
      return { checked, bad: { seq, problem: 'step-mismatch', reason: `${where}: its content_hash column differs from the logged hash` } };
    checked += 1;
  }
  return { checked };
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
  for (;;) {
    const page = await readEvents(pool, tenantId, { afterSeq: expectedFirstSeq - 1, toSeq, limit: PAGE });
    const last = page.at(-1);
    if (!last) break;
    const chain = verifyChain(page, { expectedPrevHash, expectedFirstSeq, tenantId });
    counts.checked += chain.checked;
    if (!chain.ok) return report({ seq: chain.firstBadSeq ?? expectedFirstSeq, problem: chain.problem ?? 'malformed', reason: chain.reason ?? '' });
    const steps = await checkSteps(pool, tenantId, page);
    counts.stepsChecked += steps.checked;
    if (steps.bad) return report(steps.bad);
    const checkpoint = walk.feed(page, tree);
    if (checkpoint) return report(checkpoint);
    if (toSeq === null) for (const e of page) claims.add(e);
    expectedPrevHash = last.hash;
    expectedFirstSeq = last.seq + 1;
    if (page.length < PAGE) break;
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
