// Where the term index's rows are computed (term-documents.ts): on one worker thread shared by the
// process for a batch of episodes (an import's), so that the server's thread goes on with the
// requests, the step batches and the statements while the other core extracts the terms; inline for
// small jobs (one ending: less than a message round trip costs) and until the worker has said it is
// ready, so an ending never waits for a worker to start. The result is the same either way (a pure
// function of the rows read); if the worker fails, or cannot start, the job runs inline.
import { JobWorker, workerSource } from '../core/job-worker.ts';
import { type DocumentSource, type IndexedDocuments, indexDocuments } from './term-documents.ts';

/** Steps below which a job runs inline: about one ending's worth. */
const INLINE_BELOW_STEPS = 200;

type IndexWorker = JobWorker<DocumentSource[], IndexedDocuments>;

let shared: IndexWorker | undefined;
let unavailable = false;

/** The shared worker, started if it is not (none where worker threads cannot start). */
function startedWorker(): IndexWorker | undefined {
  if (!shared && !unavailable) {
    try {
      shared = new JobWorker(workerSource(import.meta.url, 'index-worker'), 'the index worker');
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
