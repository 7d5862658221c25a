// The worker thread of index-workers.ts: says 'ready', then computes the index rows of each batch
// of episodes it is sent (term-documents.ts) and answers with them, or with what it threw.
import { parentPort } from 'node:worker_threads';
import { type DocumentSource, indexDocuments } from './term-documents.ts';

const port = parentPort;
if (port) {
  port.on('message', ({ id, job: sources }: { id: number; job: DocumentSource[] }) => {
    try {
      port.postMessage({ id, result: indexDocuments(sources) });
    } catch (error) {
      port.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
    }
  });
  port.postMessage('ready');
}
