// graphql-ws subscribers for bench/subscribers.ts, in a worker thread so that their work does not
// share the server's event loop. Plain JavaScript: worker threads on Node 20 do not inherit the
// TypeScript loader. workerData: { url, token, count, afterSeq }
// Each subscriber has its own connection and records (seq, receive time) for every event.

import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const { url, token, count, afterSeq } = workerData;
const query = 'subscription($after: BigInt) { ledgerEvents(afterSeq: $after) { seq type episodeId hash } }';
const wallClock = () => performance.timeOrigin + performance.now();

const received = Array.from({ length: count }, () => []);
let errors = 0;
const clients = received.map((seen) => {
  const client = createClient({
    url: url.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    lazy: false,
    retryAttempts: 0,
    connectionParams: { authorization: `Bearer ${token}` },
    onNonLazyError: () => errors++,
  });
  client.subscribe(
    { query, variables: { after: String(afterSeq) } },
    {
      next: (r) => seen.push(Number(r.data.ledgerEvents.seq), wallClock()),
      error: () => errors++,
      complete: () => undefined,
    },
  );
  return client;
});

parentPort.on('message', async (m) => {
  if (m === 'progress') parentPort.postMessage({ type: 'progress', fewest: Math.min(...received.map((r) => r.length / 2)), errors });
  if (m === 'collect') parentPort.postMessage({ type: 'collect', received, errors });
  if (m === 'close') {
    await Promise.all(clients.map((c) => c.dispose()));
    parentPort.postMessage({ type: 'closed' });
  }
});
