// Where a verification's page jobs run (verify-jobs.ts): on two worker threads shared by the
// process, each job on the one with fewer jobs out, so that this thread only reads rows and joins
// the verdicts while both cores hash (a verification was bound by the main thread's CPU: it checked
// the chain, and while it did it left PostgreSQL's rows unread). Until a worker has said it is
// ready, and for small jobs (the check of a ledger's tail), inline: a verification never waits for
// a worker to start. If a worker cannot start or dies, jobs go to the other, or run inline when
// neither runs (the jobs it held fail: the arrays moved to it went with it). Inline step checks
// yield to the event loop every SLICE entries.

import { nextTurn } from '../../core/delay.ts';
import { JobWorker, workerSource } from '../../core/job-worker.ts';
import type { FieldRows } from './copy-rows.ts';
import { checkStepBatch, type StepBatch, type StepVerdict } from './step-check.ts';
import { type ChainResult, chainJob, type Job, type StepsResult, transferOf } from './verify-jobs.ts';

/** Jobs smaller than this run inline: less than a message round trip costs. */
const INLINE_BELOW = 2_000;
/** Entries checked inline between two turns of the event loop. */
const SLICE = 1_000;

type VerifyWorker = JobWorker<Job, ChainResult | StepsResult>;

const newWorker = (): VerifyWorker => new JobWorker(workerSource(import.meta.url, 'verify-worker'), 'the verification worker');

/** Two workers: both cores hash while this thread reads. */
const WORKERS = 2;
const shared: VerifyWorker[] = [];

/** The shared workers, started if they are not running (none where worker threads cannot start). */
function started(): VerifyWorker[] {
  try {
    while (shared.length < WORKERS) shared.push(newWorker());
  } catch {
    // no worker threads here: inline
  }
  return shared;
}

/** The ready worker with the fewest jobs out (each job goes where it waits least), if any. */
function worker(): VerifyWorker | undefined {
  let best: VerifyWorker | undefined;
  for (const w of started()) if (w.ready && !w.failed && (!best || w.jobsOut < best.jobsOut)) best = w;
  return best;
}

/** Starts the shared workers that are not running; true once all are ready, false if one cannot run. */
export async function verifyWorkersReady(): Promise<boolean> {
  const workers = started();
  const ready = await Promise.all(workers.map((w) => w.started));
  return workers.length === WORKERS && ready.every((ok) => ok);
}

/** Checks the batch inline, yielding every SLICE entries so that reads and other requests proceed. */
async function checkInline(batch: StepBatch): Promise<StepVerdict> {
  let checked = 0;
  for (let from = 0; from < batch.logged.length; from += SLICE) {
    if (from > 0) await nextTurn();
    const part = checkStepBatch(batch, from, Math.min(from + SLICE, batch.logged.length));
    checked += part.checked;
    if (part.bad) return { checked, bad: part.bad };
  }
  return { checked };
}

/**
 * The verdict on the batch (step-check.ts), from a worker when one is ready and the batch is
 * large; the batch's row bytes are its own again once the verdict is in (batch.bytes).
 */
export async function checkSteps(batch: StepBatch): Promise<StepVerdict> {
  const off = batch.logged.length >= INLINE_BELOW ? worker() : undefined;
  if (!off) return checkInline(batch);
  const job: Job = { kind: 'steps', batch };
  const { verdict, bytes } = (await off.run(job, transferOf(job))) as StepsResult;
  batch.bytes = bytes;
  return verdict;
}

/** The page's chain and facts (verify-jobs.ts), from a worker when one is ready and the page is large. */
export async function checkChain(rows: FieldRows, firstSeq: number, tenantId: string): Promise<ChainResult> {
  const off = rows.starts.length >= INLINE_BELOW ? worker() : undefined;
  const job: Job = { kind: 'chain', rows, firstSeq, tenantId };
  return off ? ((await off.run(job, transferOf(job))) as ChainResult) : chainJob(job);
}
