// Where a verification's page jobs run (verify-jobs.ts): on two worker threads shared by the
// process, each job on the one with fewer jobs out, so that this thread only reads rows and joins
// the verdicts while both cores hash (a verification was bound by the main thread's CPU: it checked
// the chain, and while it did it left PostgreSQL's rows unread). Until a worker has said it is
// ready, and for small jobs (the check of a ledger's tail), inline: a verification never waits for
// a worker to start. If a worker cannot start or dies, jobs go to the other, or run inline when
// neither runs (the jobs it held fail: the arrays moved to it went with it). Inline step checks
// yield to the event loop every SLICE entries.
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { nextTurn } from '../../core/delay.ts';
import type { FieldRows } from './copy-rows.ts';
import { checkStepBatch, type StepBatch, type StepVerdict } from './step-check.ts';
import { type ChainResult, chainJob, type Job, type StepsResult, transferOf } from './verify-jobs.ts';

/** Jobs smaller than this run inline: less than a message round trip costs. */
const INLINE_BELOW = 2_000;
/** Entries checked inline between two turns of the event loop. */
const SLICE = 1_000;

type Reply = { id: number; result?: ChainResult | StepsResult; error?: string };

/** The worker's module, and how to load it: run as TypeScript (tsx), the worker registers tsx first. */
function workerSource(): string {
  const ext = extname(new URL(import.meta.url).pathname);
  const worker = new URL(`./verify-worker${ext}`, import.meta.url).href;
  if (ext !== '.ts') return `import(${JSON.stringify(worker)})`;
  const api = new URL('./index.mjs', pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api'))).href;
  return `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(worker)}); })`;
}

class VerifyWorker {
  ready = false;
  failed = false;
  /** True once the worker is ready, false if it failed first. */
  readonly started: Promise<boolean>;
  private readonly worker: Worker;
  private onStart: (ok: boolean) => void = () => undefined;
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  constructor() {
    this.started = new Promise((resolve) => void (this.onStart = resolve));
    this.worker = new Worker(workerSource(), { eval: true });
    this.worker.unref(); // held only while a job is out (run)
    this.worker.on('message', (reply: Reply | 'ready') => (reply === 'ready' ? this.start() : this.settle(reply)));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', () => this.fail(new Error('the verification worker exited')));
  }

  get jobsOut(): number {
    return this.waiting.size;
  }

  /** The job's result from the worker; its arrays are moved there (shared ones shared), not copied. */
  run<T>(job: Job): Promise<T> {
    const id = this.next++;
    if (this.waiting.size === 0) this.worker.ref();
    const result = new Promise<T>((resolve, reject) => this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject }));
    this.worker.postMessage({ id, job }, transferOf(job));
    return result;
  }

  private start(): void {
    this.ready = true;
    this.onStart(true);
  }

  private settle({ id, result, error }: Reply): void {
    const waiter = this.waiting.get(id);
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.worker.unref();
    if (result) waiter?.resolve(result);
    else waiter?.reject(new Error(error));
  }

  private fail(error: Error): void {
    this.failed = true;
    this.onStart(false);
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }
}

/** Two workers: both cores hash while this thread reads. */
const WORKERS = 2;
const shared: VerifyWorker[] = [];

/** The shared workers, started if they are not running (none where worker threads cannot start). */
function started(): VerifyWorker[] {
  try {
    while (shared.length < WORKERS) shared.push(new VerifyWorker());
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
  const { verdict, bytes } = await off.run<StepsResult>({ kind: 'steps', batch });
  batch.bytes = bytes;
  return verdict;
}

/** The page's chain and facts (verify-jobs.ts), from a worker when one is ready and the page is large. */
export async function checkChain(rows: FieldRows, firstSeq: number, tenantId: string): Promise<ChainResult> {
  const off = rows.starts.length >= INLINE_BELOW ? worker() : undefined;
  return off ? off.run({ kind: 'chain', rows, firstSeq, tenantId }) : chainJob({ kind: 'chain', rows, firstSeq, tenantId });
}
