// The load generator of bench:http, in its own process (forked): `clients` keep-alive connections
// (node:http), each sending its next request as soon as the last is answered, for `seconds`.
// Requests cycle through `bodies`; an answer with errors or without data fails the run.
// Plain JavaScript so it starts without the TypeScript loader.
// Message in: { url, token, bodies: [string], clients, seconds }; out: { count, seconds, latencies } or { error }.
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

function post(agent, target, token, body) {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    if (token) headers.authorization = `Bearer ${token}`;
    const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function check(text) {
  const body = JSON.parse(text);
  if (body.errors || !body.data) throw new Error(`unexpected answer: ${text.slice(0, 500)}`);
  const first = Object.values(body.data)[0];
  if (String(first?.__typename ?? '').endsWith('Error')) throw new Error(`error member: ${text.slice(0, 500)}`);
}

async function run(job) {
  const target = new URL(job.url);
  const agent = new Agent({ keepAlive: true, maxSockets: job.clients });
  let next = 0;
  const latencies = [];
  const started = performance.now();
  const until = started + job.seconds * 1000;
  await Promise.all(
    Array.from({ length: job.clients }, async () => {
      while (performance.now() < until) {
        const body = job.bodies[next++ % job.bodies.length];
        const t0 = performance.now();
        check(await post(agent, target, job.token, body));
        latencies.push(performance.now() - t0);
      }
    }),
  );
  agent.destroy();
  return { count: latencies.length, seconds: (performance.now() - started) / 1000, latencies };
}

process.once('message', (job) =>
  run(job).then(
    (r) => process.send(r, () => process.exit(0)),
    (err) => process.send({ error: String(err) }, () => process.exit(1)),
  ),
);
