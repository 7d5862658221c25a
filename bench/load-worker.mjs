// Runs benchmark clients in a worker thread, so the server's event loop is not shared with them.
// Plain JavaScript: worker threads on Node 20 do not inherit the TypeScript loader.
// node:http with one kept-alive connection per client: fetch (undici) cost several times more CPU
// per call, and that CPU is taken from the same 2 cores the server and PostgreSQL run on.
// workerData: { url, token, query, clients: [[variables, ...], ...], check: { path: [...], equals } }
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';

const job = workerData;
const target = new URL(job.url);
const agent = new Agent({ keepAlive: true, maxSockets: job.clients.length });

function post(body) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${job.token}` },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function send(variables) {
  const t0 = performance.now();
  const text = await post(JSON.stringify({ query: job.query, variables }));
  const body = JSON.parse(text);
  const got = job.check.path.reduce((v, k) => v?.[k], body.data);
  if (got !== job.check.equals) throw new Error(`unexpected answer: ${text.slice(0, 500)}`);
  return performance.now() - t0;
}

async function run() {
  const started = performance.now();
  const perClient = await Promise.all(
    job.clients.map(async (calls) => {
      const lat = [];
      for (const v of calls) lat.push(await send(v));
      return lat;
    }),
  );
  return { seconds: (performance.now() - started) / 1000, latencies: perClient.flat() };
}

run().then(
  (r) => parentPort.postMessage(r),
  (err) => parentPort.postMessage({ error: String(err) }),
);
