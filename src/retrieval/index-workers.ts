// Where the term index's rows are computed (term-documents.ts): on one worker thread shared by the
// process for a batch of episodes (an import's), so that the server's thread goes on with the
// requests, the step batches and the statements while the other core extracts the terms; inline for
// small jobs (one ending: less than a message round trip costs) and until the worker has said it is
// ready, so an ending never waits for a worker to start. The result is the same either way (a pure
// function of the rows read); if the worker fails, or cannot start, the job runs inline.
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type DocumentSource, type IndexedDocuments, indexDocuments } from './term-documents.ts';

/** Steps below which a job runs inline: about one ending's worth. */
const INLINE_BELOW_STEPS = 200;

type Reply = { id: number; result?: IndexedDocuments; error?: string };

/** The worker's module, and how to load it: run as TypeScript (tsx), the worker registers tsx first. */
function workerSource(): string {
  const ext = extname(new URL(import.meta.url).pathname);
  const worker = new URL(`./index-worker${ext}`, import.meta.url).href;
  if (ext !== '.ts') return `import(${JSON.stringify(worker)})`;
  const api = new URL('./index.mjs', pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api'))).href;
  return `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(worker)}); })`;
}

class IndexWorker {
  ready = false;
  failed = false;
  /** True once the worker is ready, false if it failed first. */
  readonly started: Promise<boolean>;
  private onStart: (ok: boolean) => void = () => undefined;
  private readonly worker: Worker;
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (v: IndexedDocuments) => void; reject: (e: Error) => void }>();

  constructor() {
    this.started = new Promise((resolve) => void (this.onStart = resolve));
    this.worker = new Worker(workerSource(), { eval: true });
    this.worker.unref(); // held only while a job is out (run)
    this.worker.on('message', (reply: Reply | 'ready') => (reply === 'ready' ? this.start() : this.settle(reply)));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', () => this.fail(new Error('the index worker exited')));
  }

  run(sources: DocumentSource[]): Promise<IndexedDocuments> {
    const id = this.next++;
    if (this.waiting.size === 0) this.worker.ref();
    const result = new Promise<IndexedDocuments>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    this.worker.postMessage({ id, sources });
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

let shared: IndexWorker | undefined;
let unavailable = false;

/** The shared worker, started if it is not (none where worker threads cannot start). */
function startedWorker(): IndexWorker | undefined {
  if (!shared && !unavailable) {
    try {
      shared = new IndexWorker();
    } catch {
      unavailable = true; // no worker threads here: inline
    }
  }
  return shared;
}

/** The shared worker if it is ready and running. */
function worker(): IndexWorker | undefined {
  const w = startedWorker();
  return w?.ready && !w.failed ? w : undefined;
}

/** Starts the shared worker if it is not running; true once it is ready, false if it cannot run. */
export async function indexWorkerReady(): Promise<boolean> {
  const w = startedWorker();
  return w ? (await w.started) && !w.failed : false;
}

/** The index rows of the episodes (term-documents.ts indexDocuments), from the worker when the job is large and the worker ready. */
export async function indexDocumentsOffThread(sources: DocumentSource[]): Promise<IndexedDocuments> {
  let steps = 0;
  for (const s of sources) steps += s.steps.length;
  const off = steps >= INLINE_BELOW_STEPS ? worker() : undefined;
  if (!off) return indexDocuments(sources);
  // A worker that failed answers nothing more: this job, and the next ones, inline.
  return off.run(sources).catch(() => indexDocuments(sources));
}
