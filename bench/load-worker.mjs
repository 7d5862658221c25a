// Runs benchmark clients in a worker thread, so the server's event loop is not shared with them.
// Plain JavaScript: worker threads on Node 20 do not inherit the TypeScript loader.
// workerData: { url, token, query, clients: [[variables, ...], ...], check: { path: [...], equals } }
import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';

async function send(job, variables) {
  const t0 = performance.now();
  const res = await fetch(job.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${job.token}` },
    body: JSON.stringify({ query: job.query, variables }),
  });
  const body = await res.json();
  const got = job.check.path.reduce((v, k) => v?.[k], body.data);
  if (got !== job.check.equals) throw new Error(`unexpected answer: ${JSON.stringify(body).slice(0, 500)}`);
  return performance.now() - t0;
}

async function run(job) {
  const started = performance.now();
  const perClient = await Promise.all(
    job.clients.map(async (calls) => {
      const lat = [];
      for (const v of calls) lat.push(await send(job, v));
      return lat;
    }),
  );
  return { seconds: (performance.now() - started) / 1000, latencies: perClient.flat() };
}

run(workerData).then((r) => parentPort.postMessage(r), (err) => parentPort.postMessage({ error: String(err) }));
