// The worker thread of step-checker.ts: says 'ready' once hash-wasm is loaded, then checks the step
// batches it is sent (step-check.ts) and answers each with its verdict, or with the message of
// what it threw.
import { parentPort } from 'node:worker_threads';
import { hasherReady } from './hash.ts';
import { checkStepBatch, type StepBatch } from './step-check.ts';

const port = parentPort;
if (port) {
  await hasherReady;
  port.on('message', ({ id, batch }: { id: number; batch: StepBatch }) => {
    try {
      port.postMessage({ id, verdict: checkStepBatch(batch) });
    } catch (error) {
      port.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
    }
  });
  port.postMessage('ready');
}
