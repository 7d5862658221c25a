// The worker thread of verify-workers.ts: says 'ready' once hash-wasm is loaded, then does the jobs
// it is sent (a page's chain from its event rows, verify-chain.ts; a batch of step rows,
// step-check.ts) and answers each with its result, its buffers moved back, or with the message of
// what it threw.
import { parentPort } from 'node:worker_threads';
import { hasherReady } from '../format/hash.ts';
import { checkStepBatch } from './step-check.ts';
import { chainJob, type Job, transferOf } from './verify-jobs.ts';

const port = parentPort;
if (port) {
  await hasherReady;
  port.on('message', ({ id, job }: { id: number; job: Job }) => {
    try {
      const result = job.kind === 'steps' ? { verdict: checkStepBatch(job.batch), bytes: job.batch.bytes } : chainJob(job);
      port.postMessage({ id, result }, transferOf(result));
    } catch (error) {
      port.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
    }
  });
  port.postMessage('ready');
}
