// One worker thread that answers jobs by id, shared by the process (verification's page checks,
// the term index's documents). It is unreferenced while no job is out, so an idle worker never
// keeps the process alive; until it says 'ready' the caller runs its jobs inline, and when it fails
// or exits every job out is rejected (the caller runs them inline then). The worker's module
// answers { id, result } or { id, error } to each { id, job } it is posted.
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Transferable, Worker } from 'node:worker_threads';

/**
 * The source that loads the worker module `name` beside the caller's module (`base`: its
 * import.meta.url): the built .js beside a built module; run as TypeScript (tsx), tsx is registered first.
 */
export function workerSource(base: string, name: string): string {
  const ext = extname(new URL(base).pathname);
  const worker = new URL(`./${name}${ext}`, base).href;
  if (ext !== '.ts') return `import(${JSON.stringify(worker)})`;
  const api = new URL('./index.mjs', pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api'))).href;
  return `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(worker)}); })`;
}

type Reply<R> = { id: number; result?: R; error?: string };

export class JobWorker<J, R> {
  ready = false;
  failed = false;
  /** True once the worker is ready, false if it failed first. */
  readonly started: Promise<boolean>;
  private onStart: (ok: boolean) => void = () => undefined;
  private readonly worker: Worker;
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (v: R) => void; reject: (e: Error) => void }>();

  /** `source`: workerSource's; `name`: what a failure says exited. */
  constructor(source: string, name: string) {
    this.started = new Promise((resolve) => void (this.onStart = resolve));
    this.worker = new Worker(source, { eval: true });
    this.worker.unref(); // held only while a job is out (run)
    this.worker.on('message', (reply: Reply<R> | 'ready') => (reply === 'ready' ? this.start() : this.settle(reply)));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', () => this.fail(new Error(`${name} exited`)));
  }

  get jobsOut(): number {
    return this.waiting.size;
  }

  /** The job's result from the worker; what `transfer` lists is moved there, not copied. */
  run(job: J, transfer: readonly Transferable[] = []): Promise<R> {
    const id = this.next++;
    if (this.waiting.size === 0) this.worker.ref();
    const result = new Promise<R>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    this.worker.postMessage({ id, job }, [...transfer]);
    return result;
  }

  private start(): void {
    this.ready = true;
    this.onStart(true);
  }

  private settle({ id, result, error }: Reply<R>): void {
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
