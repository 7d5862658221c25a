// Fair under load (issue 50): one server (in this process, production mode), a victim read key of
// its own tenant asking `{ viewer { id } }` one request at a time, with no other traffic (the
// baseline, taken again right before each attack: on a shared machine the load moves within a
// minute, and a ratio against a baseline taken minutes earlier measured the machine), then during each attack, run by another tenant's key from a separate process
// (bench/fairness-attack.ts) so the attacker's CPU is not the server's event loop:
//   clients600      one write key's 600 clients posting startEpisode + logSteps (25 steps)
//   aliased_inline  30 aliased episode(id){ steps(first: 333){ edges{ node{ result } } } } of one ~9.9 MB inline episode
//   blob64          64 concurrent blob(hash) reads of a ~7.9 MB blob by one read key
//   otlp16          16 OTLP exporters of one key, 500-span requests
//   mcp8            8 MCP POSTs, each a JSON-RPC batch of 100 relevant_episodes calls
//   aliased_relevant8  the same over GraphQL: 8 clients, each request 30 aliased relevantEpisodes (MAX_ALIASES)
// Prints, for scripts: `fairness attack=<name> victim_p99_ms=<n> baseline_p99_ms=<n> ratio=<r>` per
// attack, `fairness rss idle_mib=<n> peak_mib=<n> ratio=<r>` for the server's RSS, and
// `fairness verdict max_ratio=<r> rss_ratio=<r> met=<true|false>` against issue 50's bounds (2, 1.5).
//   npm run bench:fairness    (BENCH_PHASE_MS per phase, default 8000; BENCH_DATABASE_URL to use a server;
//   BENCH_ATTACKS=clients600,blob64 runs only those; BENCH_SERVER_ENV='{"MAX_REQUESTS_PER_KEY":"8"}' sets server config;
//   the victim's client runs in a process of its own, bench/fairness-victim.ts; BENCH_VICTIM_IN_PROCESS=1 runs it here, as before;
//   BENCH_RETRY_MS: how long a refused attacker client waits, 25 by default; BENCH_ALONE=1 first runs each
//   attack for a phase with no victim and prints its answers: what one key gets of an idle server)
import { spawn } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import { loadavg } from 'node:os';
import { type EventLoopUtilization, monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { createApiKey, createTenant } from '../src/auth/store.ts';
import { type AdmissionPhase, admissionPhases } from '../src/http/admission.ts';
import { blobHash } from '../src/steps/large-content.ts';
import type { Json } from '../test/support/json.ts';
import { cpuMeterAt } from './cpu-meter.ts';
import { fmt, openBenchDatabase, startBenchServer, summarize } from './support.ts';

const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 8_000);
const ONLY_ATTACKS = process.env.BENCH_ATTACKS?.split(',').filter(Boolean);
/** The victim's client in the server's process, as before 2026-12-03 (its figures then counted the loop's delay on both sides). */
const VICTIM_IN_PROCESS = process.env.BENCH_VICTIM_IN_PROCESS === '1';
/** When the victim starts after its process is spawned (node with tsx loads in about a second; 500 ms in process, as before). */
const VICTIM_START_MS = VICTIM_IN_PROCESS ? 500 : 2_000;
const ALONE = process.env.BENCH_ALONE === '1';
const SERVER_ENV = JSON.parse(process.env.BENCH_SERVER_ENV ?? '{}') as Record<string, string>;
const INLINE_STEPS = 333;
const INLINE_OUTPUT_CHARS = 29_700; // 333 x 29,700 = 9.9 MB
const BLOB_CHARS = 7.9 * 1024 * 1024;
/** Issue 50's bounds: each victim p99 within 2x of its baseline, the server's RSS within 1.5x of idle. */
const MAX_VICTIM_RATIO = 2;
const MAX_RSS_RATIO = 1.5;

async function post(url: string, token: string, query: string, variables: Record<string, unknown> = {}): Promise<Json> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as Json;
}

/** The victim's query, one at a time, for PHASE_MS, here (BENCH_VICTIM_IN_PROCESS=1, as before) or from its own process: its p99 and how many failed. */
async function probe(url: string, token: string, startAt: number): Promise<{ p99: number; n: number; failed: number }> {
  const latencies: number[] = [];
  let failed = 0;
  if (!VICTIM_IN_PROCESS) {
    const out = JSON.parse(await child('bench/fairness-victim.ts', [url, token, String(startAt), String(startAt + PHASE_MS)])) as {
      latencies: number[];
      failed: number;
    };
    return { p99: summarize(out.latencies).p99, n: out.latencies.length, failed: out.failed };
  }
  await new Promise((r) => setTimeout(r, startAt - Date.now()));
  for (const until = Date.now() + PHASE_MS; Date.now() < until; ) {
    const started = performance.now();
    const body = await post(url, token, '{ viewer { id } }').catch(() => null);
    latencies.push(performance.now() - started);
    if (!body?.data?.viewer?.id) failed += 1;
  }
  return { p99: summarize(latencies).p99, n: latencies.length, failed };
}

/** Samples this process's RSS (the server runs in it) every 100 ms: the peak in MiB. */
function rssPeak(): { stop(): number; sincePhase(): number } {
  let peak = process.memoryUsage().rss;
  let phasePeak = peak;
  const timer = setInterval(() => {
    const rss = process.memoryUsage().rss;
    peak = Math.max(peak, rss);
    phasePeak = Math.max(phasePeak, rss);
  }, 100);
  return {
    /** The peak since the last call (MiB): which attack raised the RSS. */
    sincePhase() {
      const rss = process.memoryUsage().rss;
      const phase = Math.max(phasePeak, rss);
      phasePeak = rss;
      return phase / 1024 / 1024;
    },
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss) / 1024 / 1024;
    },
  };
}

/** Runs `script` with `args` in its own node process: what it printed. */
function child(script: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.once('error', reject);
    proc.once('exit', () => resolve(out.trim()));
  });
}

function attack(name: string, base: string, token: string, args: Record<string, string>, ms: number): Promise<string> {
  return child('bench/fairness-attack.ts', [name, base, token, String(ms), JSON.stringify(args)]);
}

async function seed(url: string, writer: string): Promise<{ episodeId: string; hash: string }> {
  const start = 'mutation { startEpisode(input: { taskDescription: "big", taskType: "bench" }) { ... on StartEpisodePayload { episode { id } } } }';
  const episodeId = (await post(url, writer, start)).data.startEpisode.episode.id as string;
  const steps = Array.from({ length: INLINE_STEPS }, (_, i) => ({
    tool: 'sh',
    result: { kind: 'SUCCESS', output: String(i % 10).repeat(INLINE_OUTPUT_CHARS) },
  }));
  const log =
    'mutation($e: ID!, $s: [StepInput!]!, $o: LogStepsOptions) { logSteps(episodeId: $e, steps: $s, options: $o) { __typename ... on LogStepsPayload { accepted } } }';
  for (let i = 0; i < steps.length; i += 111) await post(url, writer, log, { e: episodeId, s: steps.slice(i, i + 111) });
  const other = (await post(url, writer, start)).data.startEpisode.episode.id as string;
  const output = 'b'.repeat(BLOB_CHARS);
  await post(url, writer, log, { e: other, s: [{ tool: 't', result: { kind: 'SUCCESS', output } }], o: { largeContent: 'BLOB' } });
  // Past runs for relevant_episodes to rank.
  for (let i = 0; i < 20; i++) {
    const id = (await post(url, writer, start)).data.startEpisode.episode.id as string;
    await post(url, writer, `mutation($e: ID!) { completeEpisode(episodeId: $e, outcome: { kind: SUCCESS, reason: "fixed the parser" }) { __typename } }`, {
      e: id,
    });
  }
  const hash = blobHash(output);
  // What the attacks will read, checked: the inline episode's steps and the blob as stored.
  const stored = await post(
    url,
    writer,
    `{ episode(id: "${episodeId}") { ... on Episode { stepCount } } blob(hash: "${hash}") { __typename ... on Blob { sizeBytes } } }`,
  );
  console.error(`  seeded: inline episode ${JSON.stringify(stored.data?.episode)}, blob ${JSON.stringify(stored.data?.blob)}`);
  if (stored.data?.episode?.stepCount !== INLINE_STEPS || stored.data?.blob?.__typename !== 'Blob')
    throw new Error('the seeding did not store what the attacks read');
  return { episodeId, hash };
}

async function tenantKey(db: Awaited<ReturnType<typeof openBenchDatabase>>, name: string, scopes: Array<'read' | 'write'>) {
  const tenant = await createTenant(db.db.prisma, `${name}-${Date.now()}`);
  return { tenantId: tenant.id, token: (await createApiKey(db.db.prisma, { tenantId: tenant.id, name, scopes })).token };
}

/** The segments of a victim's request in the server, in order (the admission phases, src/http/admission.ts). */
const SEGMENTS = ['read+parse', 'checks', 'admission', 'execute', 'answer'] as const;

/**
 * The server's own time for the victim's requests (request read to response finished), by
 * diagnostics_channel: what of the victim's latency the server spends; and where it went, by the
 * admission phases the server publishes: from the request's start to its body parsed, to every
 * check before admission done, to its slot, to its execution's end, to its answer written.
 */
function serverTimes(token: string): { take(): { times: number[]; segments: number[][] } } {
  const started = new WeakMap<object, number>();
  const phases = new Map<string, Partial<Record<AdmissionPhase, number>>>();
  let times: number[] = [];
  let segments: number[][] = [];
  diagnostics.subscribe('http.server.request.start', (m) => {
    const { request, response } = m as { request: { headers: Record<string, string> }; response: { getHeader(name: string): unknown } };
    if (request.headers.authorization !== `Bearer ${token}`) return;
    started.set(response, performance.now());
    // The listener sets x-request-id right after this event: read it once the request is under way.
    queueMicrotask(() => phases.set(String(response.getHeader('x-request-id')), {}));
  });
  admissionPhases.subscribe((m) => {
    const { requestId, phase, at } = m as { requestId?: string; phase: AdmissionPhase; at: number };
    const seen = requestId ? phases.get(requestId) : undefined;
    if (seen) seen[phase] = at;
  });
  diagnostics.subscribe('http.server.response.finish', (m) => {
    const { response } = m as { response: { getHeader(name: string): unknown } };
    const at = started.get(response);
    if (at === undefined) return;
    const end = performance.now();
    times.push(end - at);
    const id = String(response.getHeader('x-request-id'));
    const p = phases.get(id);
    phases.delete(id);
    if (p?.parsed !== undefined && p.asked !== undefined && p.granted !== undefined && p.done !== undefined)
      segments.push([p.parsed - at, p.asked - p.parsed, p.granted - p.asked, p.done - p.granted, end - p.done]);
  });
  return {
    take() {
      const out = { times, segments };
      times = [];
      segments = [];
      return out;
    },
  };
}

/** The mean of each segment over the slowest tenth of the requests (by their time in the server), in ms. */
function slowestSplit(segments: number[][]): string {
  if (!segments.length) return 'no phases';
  const total = (s: number[]) => s.reduce((a, b) => a + b, 0);
  const slow = [...segments].sort((a, b) => total(b) - total(a)).slice(0, Math.max(1, Math.ceil(segments.length / 10)));
  return SEGMENTS.map((name, i) => `${name} ${fmt(slow.reduce((a, s) => a + (s[i] ?? 0), 0) / slow.length, 1)}`).join(', ');
}

async function main() {
  const database = await openBenchDatabase();
  const server = await startBenchServer(database.url, { LOG_LEVEL: 'error', ...SERVER_ENV });
  const base = server.url.replace(/\/graphql$/, '');
  try {
    const victim = await tenantKey(database, 'victim', ['read']);
    const attacker = await tenantKey(database, 'attacker', ['write']);
    const reader = (await createApiKey(database.db.prisma, { tenantId: attacker.tenantId, name: 'attacker reader', scopes: ['read'] })).token;
    const { episodeId, hash } = await seed(server.url, attacker.token);
    const victimServerTimes = serverTimes(victim.token);
    global.gc?.();
    const idle = process.memoryUsage().rss / 1024 / 1024;
    const sampler = rssPeak();
    const attacks: Array<[string, string, Record<string, string>]> = [
      ['clients600', attacker.token, { clients: '600' }],
      ['aliased_inline', reader, { episodeId }],
      ['blob64', reader, { hash }],
      ['otlp16', attacker.token, {}],
      ['mcp8', reader, {}],
      ['aliased_relevant8', reader, {}],
    ];
    const ratios: number[] = [];
    for (const [name, token, args] of attacks.filter(([name]) => !ONLY_ATTACKS || ONLY_ATTACKS.includes(name))) {
      if (ALONE) {
        console.error(`  ${name} alone (no victim, ${PHASE_MS / 1000} s): attacker answers ${await attack(name, base, token, args, PHASE_MS)}`);
        await new Promise((r) => setTimeout(r, 2_000)); // its work drained, and the key no longer counts as active
      }
      const baselineAt = Date.now() + VICTIM_START_MS;
      const baselineCpu = cpuMeterAt(database.db.pool, baselineAt);
      const baseline = await probe(server.url, victim.token, baselineAt);
      const baselineUsed = await baselineCpu.stop();
      const baselineTaken = victimServerTimes.take();
      const baselineServer = summarize(baselineTaken.times);
      // The attack runs from its process's start (about a second after this) until past the victim's last request.
      const running = attack(name, base, token, args, PHASE_MS + VICTIM_START_MS + 1_000);
      const startAt = Date.now() + VICTIM_START_MS; // the attack is under way
      // Where the victim's time goes: the server's event-loop delay during the attack (it runs in this process).
      const loopDelay = monitorEventLoopDelay({ resolution: 10 });
      let busyFrom: EventLoopUtilization | undefined;
      const monitoring = setTimeout(() => {
        loopDelay.enable();
        busyFrom = performance.eventLoopUtilization();
      }, startAt - Date.now());
      const cpu = cpuMeterAt(database.db.pool, startAt);
      const during = await probe(server.url, victim.token, startAt);
      const used = await cpu.stop();
      clearTimeout(monitoring);
      loopDelay.disable();
      // How busy the server's loop was while the victim asked (time running callbacks, not waiting for I/O).
      const loopBusy = busyFrom ? performance.eventLoopUtilization(busyFrom).utilization : Number.NaN;
      const duringTaken = victimServerTimes.take();
      const duringServer = summarize(duringTaken.times);
      const answers = await running;
      const line = `fairness attack=${name} victim_p99_ms=${fmt(during.p99, 1)} baseline_p99_ms=${fmt(baseline.p99, 1)} ratio=${fmt(during.p99 / baseline.p99, 2)}`;
      console.log(line);
      const load = loadavg()
        .map((l) => l.toFixed(1))
        .join(' ');
      console.error(
        `  victim n=${during.n} failed=${during.failed}; baseline n=${baseline.n} failed=${baseline.failed}; attacker answers ${answers}; load ${load}; event-loop utilization ${fmt(loopBusy, 2)}, delay p99 ${fmt(loopDelay.percentile(99) / 1e6, 1)} ms max ${fmt(loopDelay.max / 1e6, 1)} ms; RSS peak ${fmt(sampler.sincePhase())} MiB; victim's time in the server p50 / p99 ${fmt(duringServer.p50, 1)} / ${fmt(duringServer.p99, 1)} ms (baseline ${fmt(baselineServer.p50, 1)} / ${fmt(baselineServer.p99, 1)}); the slowest tenth's ms: ${slowestSplit(duringTaken.segments)} (baseline ${slowestSplit(baselineTaken.segments)}); CPU ms/s server ${fmt(used.server)} postgres ${fmt(used.postgres ?? Number.NaN)} (baseline ${fmt(baselineUsed.server)} / ${fmt(baselineUsed.postgres ?? Number.NaN)})`,
      );
      ratios.push(during.p99 / baseline.p99);
      await new Promise((r) => setTimeout(r, 1_000)); // let the last attack's work drain
    }
    const peak = sampler.stop();
    console.log(`fairness rss idle_mib=${fmt(idle)} peak_mib=${fmt(peak)} ratio=${fmt(peak / idle, 2)}`);
    const met = ratios.every((r) => r <= MAX_VICTIM_RATIO) && peak / idle <= MAX_RSS_RATIO;
    console.log(`fairness verdict max_ratio=${fmt(Math.max(...ratios), 2)} rss_ratio=${fmt(peak / idle, 2)} met=${met}`);
    console.error(`  ${PHASE_MS / 1000} s per phase`);
  } finally {
    await server.stop();
    await database.close();
  }
}

await main();
