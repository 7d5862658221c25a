// Admission control under a bounded attack (docs/SECURITY.md, "Audit"). One server, three tenants:
// a victim key measures the p99 of a simple query (`{ viewer { id } }`, one at a time) first with no
// other traffic (the baseline, same run), then
//   A. while 512 connections hold half-sent POSTs and one read key opens 256 SSE subscriptions;
//   B. while one read key asks for verifyLedger on a ledger of about 3,000 events, both as 30
//      aliases in one document and as 30 concurrent single requests, again and again;
//   C. while one read key asks, one request at a time, for 30 aliased blob(hash) of a ~16 MB blob
//      (the re-audit's byte amplification), with the server's RSS sampled through the phase;
//   D. while one read key opens 1,000 graphql-ws subscriptions on 20 sockets and 128 SSE
//      subscriptions at once (MAX_STREAMS_PER_KEY must hold across both transports).
// Prints each p99 and its ratio to the baseline, and what the attacker got (refusals by code).
// Bounded: every load runs for PHASE_MS and stops by itself; traffic stays on 127.0.0.1.
//   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench:admission
import net from 'node:net';
import WebSocket from 'ws';
import { createApiKey, createTenant } from '../src/auth/store.ts';
import { type BenchServer, fmt, openBenchDatabase, startBenchServer, summarize } from './support.ts';

const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 8_000);
const PROBE_CONCURRENCY = 1;
const HALF_SENT = 512;
const SSE_STREAMS = 256;
const ALIASES = 30;
const LEDGER_EVENTS = 3_000;
const BLOB_BYTES = 15.5 * 1024 * 1024;
// One request at a time, again and again, as the audit sent it: the phase weighs bytes, not a request flood
// (the bench runs without the rate limit, so 8 loops of refused requests measured the flood: 5.2x).
const BLOB_CONCURRENCY = 1;
const WS_SOCKETS = 20;
const WS_PER_SOCKET = 50;
const MIXED_SSE = 128;

interface Answer {
  data?: Record<string, unknown> | null;
  errors?: Array<{ extensions?: { code?: string } }>;
}

async function post(url: string, token: string, query: string, variables: Record<string, unknown> = {}): Promise<Answer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as Answer;
}

/** The victim's simple query, PROBE_CONCURRENCY at a time, for PHASE_MS: latencies and failures. */
async function probe(url: string, token: string): Promise<{ p50: number; p99: number; n: number; failed: number }> {
  const latencies: number[] = [];
  let failed = 0;
  const until = Date.now() + PHASE_MS;
  await Promise.all(
    Array.from({ length: PROBE_CONCURRENCY }, async () => {
      while (Date.now() < until) {
        const started = performance.now();
        const body = await post(url, token, '{ viewer { id } }').catch(() => null);
        latencies.push(performance.now() - started);
        if (!(body?.data?.viewer as { id?: string } | undefined)?.id) failed += 1;
      }
    }),
  );
  return { ...summarize(latencies), n: latencies.length, failed };
}

function halfSent(url: string): Promise<net.Socket> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(u.port), u.hostname, () => {
      socket.write(`POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n{"query":"{ vi`);
      resolve(socket);
    });
    socket.on('error', () => undefined);
  });
}

async function keyOf(db: Awaited<ReturnType<typeof openBenchDatabase>>, name: string, scopes: Array<'read' | 'write'>) {
  const tenant = await createTenant(db.db.prisma, name);
  return { tenantId: tenant.id, token: (await createApiKey(db.db.prisma, { tenantId: tenant.id, name, scopes })).token };
}

/** About LEDGER_EVENTS events with steps for the verifying tenant (each logSteps is one event). */
async function seedLedger(url: string, token: string): Promise<void> {
  const perEpisode = 30;
  for (let e = 0; e < LEDGER_EVENTS / perEpisode; e++) {
    const started = await post(
      url,
      token,
      'mutation { startEpisode(input: { taskDescription: "seed", taskType: "bench" }) { ... on StartEpisodePayload { episode { id } } } }',
    );
    const id = (started.data as { startEpisode: { episode: { id: string } } }).startEpisode.episode.id;
    for (let i = 0; i < perEpisode - 1; i++)
      await post(url, token, 'mutation($e: ID!) { logSteps(episodeId: $e, steps: [{ tool: "t", action: "a" }, { tool: "u" }]) { __typename } }', { e: id });
  }
}

function countCodes(into: Map<string, number>, body: Answer): void {
  const code = body?.errors?.[0]?.extensions?.code ?? (body?.data ? 'OK' : 'NO_ANSWER');
  into.set(code, (into.get(code) ?? 0) + 1);
}

async function phaseA(server: BenchServer, victim: string, attacker: string) {
  const sockets = await Promise.all(Array.from({ length: HALF_SENT }, () => halfSent(server.url)));
  const abort = new AbortController();
  const streams = new Map<string, number>();
  await Promise.all(
    Array.from({ length: SSE_STREAMS }, async () => {
      const res = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${attacker}` },
        body: JSON.stringify({ query: 'subscription { ledgerEvents(afterSeq: 0) { seq } }' }),
        signal: abort.signal,
      });
      // An open stream sends nothing yet (the ledger is empty); a refused one answers at once.
      const reader = res.body?.getReader();
      const first = await Promise.race([reader?.read(), new Promise((r) => setTimeout(() => r(null), 500))]);
      const text = first && typeof first === 'object' && 'value' in first ? new TextDecoder().decode(first.value as Uint8Array) : '';
      const code = /"code":"([A-Z_]+)"/.exec(text)?.[1] ?? 'OPEN';
      streams.set(code, (streams.get(code) ?? 0) + 1);
    }),
  );
  const result = await probe(server.url, victim);
  abort.abort();
  for (const s of sockets) s.destroy();
  return { result, streams: Object.fromEntries(streams), halfSent: sockets.length };
}

async function phaseB(server: BenchServer, victim: string, attacker: string) {
  const codes = new Map<string, number>();
  const until = Date.now() + PHASE_MS;
  const aliased = `{ ${Array.from({ length: ALIASES }, (_, i) => `v${i}: verifyLedger { __typename }`).join(' ')} }`;
  const attack = (async () => {
    while (Date.now() < until) {
      const bodies = await Promise.all([
        post(server.url, attacker, aliased),
        ...Array.from({ length: ALIASES }, () => post(server.url, attacker, '{ verifyLedger { ... on LedgerVerification { ok checked } } }')),
      ]);
      for (const b of bodies) countCodes(codes, b);
    }
  })();
  const result = await probe(server.url, victim);
  await attack;
  return { result, attacker: Object.fromEntries(codes) };
}

/** Samples this process's RSS (the server runs in it) every 100 ms until stopped: the peak, in MiB. */
function rssPeak(): { stop(): number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss) / 1024 / 1024;
    },
  };
}

async function phaseC(server: BenchServer, victim: string, writer: string, reader: string) {
  const started = await post(
    server.url,
    writer,
    'mutation { startEpisode(input: { taskDescription: "big", taskType: "bench" }) { ... on StartEpisodePayload { episode { id } } } }',
  );
  const episodeId = (started.data as { startEpisode: { episode: { id: string } } }).startEpisode.episode.id;
  const output = 'b'.repeat(BLOB_BYTES);
  await post(
    server.url,
    writer,
    'mutation($e: ID!, $o: String!) { logSteps(episodeId: $e, steps: [{ tool: "t", result: { kind: SUCCESS, output: $o } }], options: { largeContent: BLOB }) { __typename ... on LogStepsPayload { accepted } } }',
    { e: episodeId, o: output },
  );
  const { blobHash } = await import('../src/steps/large-content.ts');
  const hash = blobHash(output);
  const aliased = `{ ${Array.from({ length: ALIASES }, (_, i) => `b${i}: blob(hash: "${hash}") { ... on Blob { content } }`).join(' ')} }`;
  const rssBefore = process.memoryUsage().rss / 1024 / 1024;
  const sampler = rssPeak();
  const codes = new Map<string, number>();
  const until = Date.now() + PHASE_MS;
  const attack = Promise.all(
    Array.from({ length: BLOB_CONCURRENCY }, async () => {
      while (Date.now() < until) countCodes(codes, await post(server.url, reader, aliased));
    }),
  );
  const result = await probe(server.url, victim);
  await attack;
  // The streamed download of the same blob, for comparison: bytes and time of one GET.
  const t0 = performance.now();
  const res = await fetch(server.url.replace('/graphql', `/blobs/${hash}`), { headers: { authorization: `Bearer ${reader}` } });
  const bytes = (await res.arrayBuffer()).byteLength;
  const downloadMs = performance.now() - t0;
  return { result, attacker: Object.fromEntries(codes), rssBefore, rssPeak: sampler.stop(), download: { status: res.status, bytes, ms: downloadMs } };
}

/** One graphql-ws socket sending `count` ledgerEvents subscriptions; counts the TOO_MANY_STREAMS refusals. */
function wsSubscriber(url: string, token: string, count: number, refused: { n: number }): Promise<WebSocket> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url.replace(/^http/, 'ws'), 'graphql-transport-ws');
    socket.on('error', () => undefined);
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } })));
    socket.on('message', (data) => {
      const m = JSON.parse(String(data));
      if (m.type === 'connection_ack') {
        for (let i = 0; i < count; i++)
          socket.send(JSON.stringify({ id: String(i), type: 'subscribe', payload: { query: 'subscription { ledgerEvents { seq } }' } }));
        resolve(socket);
      } else if (m.type === 'next' && m.payload?.errors?.[0]?.extensions?.code === 'TOO_MANY_STREAMS') refused.n += 1;
    });
  });
}

async function phaseD(server: BenchServer, victim: string, attacker: string) {
  const refused = { n: 0 };
  const abort = new AbortController();
  const sseCodes = new Map<string, number>();
  const [sockets] = await Promise.all([
    Promise.all(Array.from({ length: WS_SOCKETS }, () => wsSubscriber(server.url, attacker, WS_PER_SOCKET, refused))),
    Promise.all(
      Array.from({ length: MIXED_SSE }, async () => {
        const res = await fetch(server.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${attacker}` },
          body: JSON.stringify({ query: 'subscription { ledgerEvents { seq } }' }),
          signal: abort.signal,
        });
        const reader = res.body?.getReader();
        const first = await Promise.race([reader?.read(), new Promise((r) => setTimeout(() => r(null), 1_000))]);
        const text = first && typeof first === 'object' && 'value' in first ? new TextDecoder().decode(first.value as Uint8Array) : '';
        const code = /"code":"([A-Z_]+)"/.exec(text)?.[1] ?? 'OPEN';
        sseCodes.set(code, (sseCodes.get(code) ?? 0) + 1);
      }),
    ),
  ]);
  const result = await probe(server.url, victim);
  const attempted = WS_SOCKETS * WS_PER_SOCKET + MIXED_SSE;
  const sseRefused = sseCodes.get('TOO_MANY_STREAMS') ?? 0;
  abort.abort();
  for (const s of sockets) s.close();
  return { result, attempted, open: attempted - refused.n - sseRefused, wsRefused: refused.n, sse: Object.fromEntries(sseCodes) };
}

async function main() {
  const database = await openBenchDatabase();
  const server = await startBenchServer(database.url, { RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'error' });
  try {
    const victim = await keyOf(database, 'victim', ['read']);
    const streamer = await keyOf(database, 'streamer', ['read']);
    const verifier = await keyOf(database, 'verifier', ['write']);
    const blobber = await keyOf(database, 'blobber', ['write']);
    const blobReader = (await createApiKey(database.db.prisma, { tenantId: blobber.tenantId, name: 'blob reader', scopes: ['read'] })).token;
    const mixed = await keyOf(database, 'mixed streams', ['read']);
    console.log(`seeding ~${LEDGER_EVENTS} ledger events for the verifying tenant ...`);
    await seedLedger(server.url, verifier.token);
    const baseline = await probe(server.url, victim.token);
    const a = await phaseA(server, victim.token, streamer.token);
    const b = await phaseB(server, victim.token, verifier.token);
    const c = await phaseC(server, victim.token, blobber.token, blobReader);
    const d = await phaseD(server, victim.token, mixed.token);
    const line = (name: string, r: typeof baseline) =>
      `${name.padEnd(44)} p50 ${fmt(r.p50, 1).padStart(6)} ms  p99 ${fmt(r.p99, 1).padStart(6)} ms  (${fmt(r.p99 / baseline.p99, 2)}x baseline)  n=${r.n} failed=${r.failed}`;
    console.log(`\nvictim's { viewer { id } }, ${PROBE_CONCURRENCY} at a time, ${PHASE_MS / 1000} s per phase`);
    console.log(line('baseline (no other traffic)', baseline));
    console.log(line(`A: ${HALF_SENT} half-sent + ${SSE_STREAMS} SSE of one key`, a.result));
    console.log(`   SSE subscriptions of the attacking key: ${JSON.stringify(a.streams)}`);
    console.log(line(`B: ${ALIASES}x verifyLedger, aliased and concurrent`, b.result));
    console.log(`   attacker's answers by code: ${JSON.stringify(b.attacker)}`);
    console.log(line(`C: ${BLOB_CONCURRENCY}x ${ALIASES} aliased blob(hash) of ${fmt(BLOB_BYTES / 1024 / 1024, 1)} MiB`, c.result));
    console.log(`   attacker's answers by code: ${JSON.stringify(c.attacker)}`);
    console.log(`   server RSS: ${fmt(c.rssBefore, 0)} MiB before, peak ${fmt(c.rssPeak, 0)} MiB during the phase`);
    console.log(`   GET /blobs/<hash> of the same blob: ${c.download.status}, ${c.download.bytes} bytes in ${fmt(c.download.ms, 0)} ms`);
    console.log(line(`D: ${WS_SOCKETS * WS_PER_SOCKET} graphql-ws + ${MIXED_SSE} SSE of one key`, d.result));
    console.log(`   streams of the attacking key: ${d.attempted} asked, ${d.open} open, ${d.wsRefused} refused over graphql-ws, SSE ${JSON.stringify(d.sse)}`);
    const phases = [a.result, b.result, c.result, d.result];
    const ok = phases.every((r) => r.p99 < 100 && !r.failed);
    console.log(`\ntarget p99 < 100 ms with no failed victim query: ${ok ? 'met' : 'NOT met'}`);
  } finally {
    await server.stop();
    await database.close();
  }
}

await main();
