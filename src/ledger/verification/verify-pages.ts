// The pages of a stored-range verification (verify-range.ts), read and checked as a pipeline so
// that PostgreSQL and the two verification workers keep both cores busy: a page's events are read
// (verify-read.ts), and the next page's read starts at once, while a worker checks their chain
// from the rows (verify-chain.ts); then the step rows they cover are read and sent to a worker
// (verify-workers.ts). This thread only reads and hands over. Reads run one at a time
// (one-query.ts).
import type pg from 'pg';
import type { ForgottenSteps } from '../format/forgotten.ts';
import { fromHex, toHex } from '../format/hash.ts';
import type { LedgerProblem } from '../proofs/verify.ts';
import { type FieldRows, releaseBytes, rowCount } from './copy-rows.ts';
import type { EventFacts } from './event-facts.ts';
import type { OneQueryAtATime } from './one-query.ts';
import { FORGOTTEN, FORGOTTEN_KEPT, type StepBatch, type StepProblem } from './step-check.ts';
import { type StoredSteps, stepRowOf } from './step-runs.ts';
import type { PageChain } from './verify-chain.ts';
import { readEventPage, readStepRows, seqAt } from './verify-read.ts';
import { checkChain, checkSteps } from './verify-workers.ts';

export const PAGE = 5_000;
/** Event pages read ahead of the one the caller checks. */
const PAGES_AHEAD = 3;

export interface Failure {
  seq: number;
  problem: LedgerProblem;
  reason: string;
}

export interface StepsVerdict {
  /** Entries that verified, forgotten ones included. */
  checked: number;
  /** Of them, entries a steps.forgotten event names with their logged hash (§3.4). */
  forgotten: number;
  bad?: Failure;
}

export interface Page {
  rows: FieldRows;
  /** The seq the page was read from (the one after the previous page's last). */
  firstSeq: number;
  /** The page's chain when its rows passed on their own (verify-chain.ts). */
  chain: PageChain | undefined;
  facts: EventFacts;
  /** The check of the step rows its events cover, under way. */
  steps: Promise<StepsVerdict>;
}

interface EventRows {
  rows: FieldRows;
  firstSeq: number;
  count: number;
  last: number;
}

export interface Range {
  tenantId: string;
  fromSeq: number;
  toSeq: number | null;
  /** The tenant's forgotten steps (forgotten.ts): their entries are accepted without content. */
  forgotten: ForgottenSteps;
}

/**
 * The entries of forgotten steps marked FORGOTTEN (FORGOTTEN_KEPT with their keptHash in `kept`,
 * where their event hashed what the row keeps) in a copy of `logged` (the facts' own stays as
 * logged); how many.
 */
function markForgotten(facts: EventFacts, forgotten: ForgottenSteps): { logged: Uint8Array; kept?: Uint8Array; count: number } {
  if (forgotten.size === 0) return { logged: facts.logged, count: 0 };
  const logged = facts.logged.slice();
  const kept = new Uint8Array(facts.count * 32);
  let count = 0;
  for (let k = 0; k < facts.count; k++) {
    const episode = facts.episodes[facts.episodeOf[k] as number] as string;
    if (logged[k] !== 1 || !forgotten.has(episode)) continue;
    const named = forgotten.get(episode)?.get(facts.ns[k] as number);
    if (named?.hash !== toHex(facts.hashes.subarray(k * 32, k * 32 + 32))) continue;
    logged[k] = named.keptHash === undefined ? FORGOTTEN : FORGOTTEN_KEPT;
    if (named.keptHash !== undefined) kept.set(fromHex(named.keptHash), k * 32);
    count++;
  }
  return { logged, kept, count };
}

/** The page's step entries in logged order with where each one's row lies (step-check.ts). */
function stepBatch(facts: EventFacts, steps: StoredSteps, marked: { logged: Uint8Array; kept?: Uint8Array }): StepBatch {
  const batch: StepBatch = {
    bytes: steps.bytes,
    starts: new Int32Array(facts.count),
    ends: new Int32Array(facts.count),
    hashes: facts.hashes,
    logged: marked.logged,
    ...(marked.kept ? { kept: marked.kept } : {}),
  };
  for (let k = 0; k < facts.count; k++) {
    const row = stepRowOf(steps, k, facts.ns[k] as number);
    batch.starts[k] = row < 0 ? -1 : (steps.starts[row] as number);
    batch.ends[k] = row < 0 ? -1 : (steps.ends[row] as number);
  }
  return batch;
}

const STEP_REASONS: Record<StepProblem, (step: string) => [LedgerProblem, string]> = {
  'step-missing': (step) => ['step-missing', `${step} is missing`],
  'content-differs': (step) => ['step-mismatch', `${step} differs from what was logged`],
  'column-differs': (step) => ['step-mismatch', `${step}: its content_hash column differs from the logged hash`],
  'kept-differs': (step) => [
    'step-mismatch',
    `${step} was forgotten, but what it keeps (kind, result kind, latency, tokens, cost, side-effect key, times) differs from its steps.forgotten event's keptHash`,
  ],
};

/**
 * Each step entry's row: recomputed (§3.2) and its stored content_hash column, both equal to the
 * entry. Checked off this thread when it can be (verify-workers.ts).
 */
async function checkPageSteps(facts: EventFacts, steps: StoredSteps, firstSeq: number, forgottenSteps: ForgottenSteps): Promise<StepsVerdict> {
  const marked = markForgotten(facts, forgottenSteps);
  const { logged, count } = marked;
  const batch = stepBatch(facts, steps, marked);
  const { checked, bad } = await checkSteps(batch);
  releaseBytes(batch.bytes);
  if (!bad) return { checked, forgotten: count };
  const k = bad.entry;
  let forgotten = 0;
  for (let i = 0; i < k; i++) if (logged[i] === FORGOTTEN || logged[i] === FORGOTTEN_KEPT) forgotten++;
  const [problem, reason] = STEP_REASONS[bad.problem](`step ${facts.ns[k]} of episode ${facts.episodes[facts.episodeOf[k] as number]}`);
  return { checked, forgotten, bad: { seq: firstSeq + (facts.events[k] as number), problem, reason } };
}

/** Marks work started ahead as handled, so that what is abandoned after a failure cannot crash the process. */
export function ahead<T>(work: Promise<T>): Promise<T> {
  work.catch(() => undefined);
  return work;
}

/** The range's reads, through the verification's one connection. */
class Reads {
  constructor(
    private readonly pool: pg.Pool,
    private readonly range: Range,
    private readonly queries: OneQueryAtATime,
  ) {}

  /** The PAGE events after seq `after`, once the reads asked before have finished; `last` is the last one's seq. */
  events(after: number): Promise<EventRows | null> {
    const { tenantId, toSeq } = this.range;
    return this.queries.run(async () => {
      const rows = await readEventPage(this.pool, tenantId, after, toSeq, PAGE);
      const count = rowCount(rows);
      return { rows, firstSeq: after + 1, count, last: count > 0 ? seqAt(rows, count - 1) : after };
    });
  }

  /** The page of these event rows: their chain checked (on the chain worker), then their steps read and their check started. */
  async page({ rows: read, firstSeq }: EventRows): Promise<Page> {
    const { rows, chain, facts } = await checkChain(read, firstSeq, this.range.tenantId);
    const stepRows = await this.queries.run(() => readStepRows(this.pool, this.range.tenantId, facts));
    return {
      rows,
      firstSeq,
      chain,
      facts,
      steps: ahead(stepRows ? checkPageSteps(facts, stepRows, firstSeq, this.range.forgotten) : Promise.resolve({ checked: 0, forgotten: 0 })),
    };
  }
}

/**
 * The range's pages of PAGE events in order. Each page's events are read as soon as the previous
 * page's are in (PAGES_AHEAD at most), and its steps once its chain is checked. Ends at a short page.
 */
export async function* pages(pool: pg.Pool, range: Range, queries: OneQueryAtATime): AsyncGenerator<Page> {
  const reads = new Reads(pool, range, queries);
  const events: Promise<EventRows | null>[] = [];
  const pending: Promise<Page | null>[] = [];
  const next = (previous: Promise<EventRows | null> | undefined): Promise<EventRows | null> => {
    if (!previous) return ahead(reads.events(range.fromSeq - 1));
    return ahead(previous.then((read) => (read && read.count === PAGE ? reads.events(read.last) : null)));
  };
  for (;;) {
    while (events.length <= PAGES_AHEAD) {
      const read = next(events.at(-1));
      events.push(read);
      pending.push(ahead(read.then((r) => (r && r.count > 0 ? reads.page(r) : null))));
    }
    events.shift();
    const page = await pending.shift();
    if (!page) return;
    yield page;
    if (rowCount(page.rows) < PAGE) return;
  }
}
