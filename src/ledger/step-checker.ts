// Where a verification's step batches are checked (step-check.ts): on one worker thread shared by
// the process, so that step rows are canonicalised and hashed on the second core while this
// thread reads pages and checks the chain (a verification was bound by this thread's CPU). Until
// the worker has said it is ready, and for small batches (the check of a ledger's tail), inline:
// a verification never waits for the worker to start. If the worker cannot start or dies, every
// batch is checked inline from then on. Inline checks yield to the event loop every SLICE entries.
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { checkStepBatch, type StepBatch, type StepVerdict } from './step-check.ts';

/** Batches smaller than this are checked inline: less than a message round trip costs. */
const INLINE_BELOW = 2_000;
/** Entries checked inline between two turns of the event loop. */
const SLICE = 1_000;

type Reply = { id: number; verdict?: StepVerdict; error?: string };

/** The worker's module, and how to load it: run as TypeScript (tsx), the worker registers tsx first. */
function workerSource(): string {
  const ext = extname(new URL(import.meta.url).pathname);
  const worker = new URL(`./step-worker${ext}`, import.meta.url).href;
  if (ext !== '.ts') return `import(${JSON.stringify(worker)})`;
  const api = new URL('./index.mjs', pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api'))).href;
  return `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(worker)}); })`;
}

class StepWorker {
  ready = false;
  failed = false;
  /** True once the worker is ready, false if it failed first. */
  readonly started: Promise<boolean>;
  private readonly worker: Worker;
  private onStart: (ok: boolean) => void = () => undefined;
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (v: StepVerdict) => void; reject: (e: Error) => void }>();

  constructor() {
    this.started = new Promise((resolve) => void (this.onStart = resolve));
    this.worker = new Worker(workerSource(), { eval: true });
    this.worker.unref(); // held only while a batch is out (check)
    this.worker.on('message', (reply: Reply | 'ready') => (reply === 'ready' ? this.start() : this.settle(reply)));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', () => this.fail(new Error('the step worker exited')));
  }

  /** The batch's verdict from the worker; its bytes are moved there, not copied. */
  check(batch: StepBatch): Promise<StepVerdict> {
    const id = this.next++;
    if (this.waiting.size === 0) this.worker.ref();
    const verdict = new Promise<StepVerdict>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    this.worker.postMessage({ id, batch }, [batch.bytes.buffer as ArrayBuffer]);
    return verdict;
  }

  private start(): void {
    this.ready = true;
    this.onStart(true);
  }

  private settle({ id, verdict, error }: Reply): void {
    const waiter = this.waiting.get(id);
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.worker.unref();
    if (verdict) waiter?.resolve(verdict);
    else waiter?.reject(new Error(error));
  }

  private fail(error: Error): void {
    this.failed = true;
    this.onStart(false);
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }
}

let shared: StepWorker | undefined;

function started(): StepWorker | undefined {
  try {
    shared ??= new StepWorker();
  } catch {
    return undefined; // no worker threads here: inline
  }
  return shared;
}

function worker(): StepWorker | undefined {
  const w = started();
  return w?.ready && !w.failed ? w : undefined;
}

/** Starts the shared worker if it is not running; true once it is ready, false if it cannot run. */
export async function stepWorkerReady(): Promise<boolean> {
  return (await started()?.started) === true;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Checks the batch inline, yielding every SLICE entries so that reads and other requests proceed. */
async function checkInline(batch: StepBatch): Promise<StepVerdict> {
  let checked = 0;
  for (let from = 0; from < batch.hashes.length; from += SLICE) {
    if (from > 0) await nextTurn();
    const part = checkStepBatch(batch, from, Math.min(from + SLICE, batch.hashes.length));
    checked += part.checked;
    if (part.bad) return { checked, bad: part.bad };
  }
  return { checked };
}

/** The verdict on the batch (step-check.ts), from the worker when it is ready and the batch is large. */
export function checkSteps(batch: StepBatch): Promise<StepVerdict> {
  const off = batch.hashes.length >= INLINE_BELOW ? worker() : undefined;
  return off ? off.check(batch) : checkInline(batch);
}
