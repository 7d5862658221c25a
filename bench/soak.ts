// The long fault soak (issue 7): the scenarios of test/reliability, run in rotation with varied
// parameters until the time is up, against real server processes on a real PostgreSQL, all on
// loopback. Each round checks its own promises; the soak adds up the figures and fails if any
// round broke one.
//   npm run soak                 # 300 s
//   npm run soak -- 1800         # 30 minutes
//   SOAK_ONLY=crash,overload npm run soak -- 600
// PostgreSQL: BENCH_DATABASE_URL (a server we may create databases on), else an embedded one in a
// temp folder. The PostgreSQL-restart rounds always use a dedicated embedded PostgreSQL of their
// own. Redis rounds run when a redis-server binary is on PATH (a dedicated one on a free port).
// Figures: printed, and written to test-results/reliability/soak.json. The server processes run the
// server compiled from the sources first (scripts/build.mjs --server), as the test suite's do.
import { execFileSync } from 'node:child_process';
import { must } from '../src/core/must.ts';
import {
  createScratchDatabase,
  type DedicatedPostgres,
  recordReport,
  redisAvailable,
  startDedicatedPostgres,
  withDatabase,
} from '../test/reliability/harness.ts';
import { crashDuringIngest, gracefulShutdown, overload, postgresRestart, redisOutage, type ScenarioReport } from '../test/reliability/scenarios.ts';
import type { Json } from '../test/support/json.ts';
import { benchDatabaseUrl } from './support.ts';

execFileSync(process.execPath, ['scripts/build.mjs', '--server'], { stdio: 'inherit' });

const SECONDS = Number(process.argv[2] ?? process.env.SOAK_SECONDS ?? 300);
if (!Number.isFinite(SECONDS) || SECONDS <= 0) throw new Error(`soak seconds must be a positive number, got ${process.argv[2]}`);
const ONLY = process.env.SOAK_ONLY?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);

const random = (lo: number, hi: number) => lo + Math.floor(Math.random() * (hi - lo + 1));
const pick = <T>(xs: readonly T[]): T => must(xs[Math.floor(Math.random() * xs.length)]);

type Round = { name: string; run(serverUrl: string): Promise<ScenarioReport> };

async function onScratch<T>(serverUrl: string, fn: (url: string) => Promise<T>): Promise<T> {
  const db = await createScratchDatabase(serverUrl);
  try {
    return await fn(db.url);
  } finally {
    await db.drop();
  }
}

let overloadRounds = 0;

const ALL_ROUNDS: Round[] = [
  {
    name: 'crash',
    // Several kill/restart cycles on one database, each at a different point of the stream.
    run: (url) =>
      onScratch(url, (databaseUrl) =>
        crashDuringIngest({
          databaseUrl,
          cycles: random(3, 6),
          writers: pick([8, 24, 48]),
          maxBatch: pick([5, 20, 50]),
          killAfterAcks: () => random(200, 3_000),
        }),
      ),
  },
  {
    name: 'shutdown',
    // A long group-commit window parks calls in the buffer; the default one is the realistic case.
    run: (url) =>
      onScratch(url, (databaseUrl) =>
        gracefulShutdown({ databaseUrl, writers: pick([8, 24, 48]), windowMs: pick([2, 500]), signalAfterAcks: random(200, 2_000) }),
      ),
  },
  {
    name: 'postgres-restart',
    run: () =>
      postgresRestart({
        outages: Array.from({ length: random(2, 4) }, () => pick(['fast', 'immediate'] as const)),
        downMs: random(1_000, 6_000),
        writers: pick([2, 4, 8]),
      }),
  },
  ...(redisAvailable()
    ? [
        {
          name: 'redis-outage',
          run: (url: string) => onScratch(url, (databaseUrl) => redisOutage({ databaseUrl, downMs: random(1_000, 8_000), safetyMs: 1_500 })),
        },
      ]
    : []),
  {
    name: 'overload',
    // Every other round with the V8 heap capped at 384 MB: what the server keeps alive, not what V8 has yet to collect.
    run: (url) =>
      onScratch(url, (databaseUrl) => {
        overloadRounds += 1;
        const env = overloadRounds % 2 === 0 ? { NODE_OPTIONS: '--max-old-space-size=384' } : undefined;
        return overload({ databaseUrl, clients: pick([300, 600, 1_200]), stepsPerCall: 250, durationMs: 30_000, env });
      }),
  },
];
const ROUNDS = ALL_ROUNDS.filter((r) => !ONLY || ONLY.includes(r.name));

interface Tally {
  rounds: number;
  failed: number;
  faultsInjected: number;
  ackedChecked: number;
  lost: number;
  problems: string[];
  figures: Record<string, number[]>;
}

function note(t: Tally, key: string, value: unknown) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return;
  (t.figures[key] ??= []).push(value);
}

/** The figures worth comparing between runs, per scenario. */
function collect(t: Tally, name: string, r: Json) {
  if (name === 'crash') {
    for (const k of ['cycles', 'inFlightAtKill', 'callsInDoubt', 'inDoubtCommitted', 'halfWritten', 'restartMs', 'retriedDuplicates']) note(t, k, r[k]);
  } else if (name === 'shutdown') {
    for (const k of ['inFlightAtSignal', 'answeredAfterSignal', 'unansweredInFlight', 'unreadUnanswered', 'exitAfterMs', 'exitCode']) note(t, k, r[k]);
  } else if (name === 'postgres-restart') {
    for (const o of r.outages ?? [])
      for (const k of ['unreadyAfterMs', 'readyAfterMs', 'firstWriteAfterMs', 'subscribersCaughtUpAfterMs', 'slowestRefusalMs'])
        note(t, `${o.mode}.${k}`, o[k]);
    note(t, 'events', r.events);
  } else if (name === 'redis-outage') {
    for (const k of ['notConnectedAfterMs', 'deliveryWhileDownMs', 'reconnectedAfterMs', 'deliveryAfterMs', 'writesAckedWhileDown']) note(t, k, r[k]);
  } else if (name === 'overload') {
    for (const k of ['acceptedStepsPerSecond', 'unanswered']) note(t, k, r[k]);
    note(t, 'clients', r.clients);
    note(t, r.heapCapped ? 'peakRssMiB.heap384' : 'peakRssMiB.default', r.rss?.peakMiB);
    note(
      t,
      'shedCalls',
      Object.values(r.shed ?? {}).reduce((a: number, b) => a + Number(b), 0),
    );
  }
}

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, min: s[0], median: s[Math.floor(s.length / 2)], max: s[s.length - 1] };
}

async function main() {
  let owned: DedicatedPostgres | undefined;
  let serverUrl = benchDatabaseUrl();
  if (!serverUrl) {
    owned = await startDedicatedPostgres();
    serverUrl = withDatabase(owned.url, 'postgres');
  }
  const started = Date.now();
  const deadline = started + SECONDS * 1_000;
  const tallies = new Map<string, Tally>(
    ROUNDS.map((r) => [r.name, { rounds: 0, failed: 0, faultsInjected: 0, ackedChecked: 0, lost: 0, problems: [], figures: {} }]),
  );
  console.log(`soak: ${SECONDS} s of ${ROUNDS.map((r) => r.name).join(', ')} (PostgreSQL ${owned ? 'embedded' : 'BENCH_DATABASE_URL'})`);
  try {
    for (let i = 0; Date.now() < deadline; i++) {
      const round = must(ROUNDS[i % ROUNDS.length]);
      const t = must(tallies.get(round.name));
      const roundStart = Date.now();
      let report: ScenarioReport;
      try {
        report = await round.run(serverUrl);
      } catch (err) {
        t.problems.push(`round ${i + 1} threw: ${(err as Error).stack ?? String(err)}`);
        t.failed += 1;
        t.rounds += 1;
        console.log(`  ${round.name}: THREW ${(err as Error).message}`);
        continue;
      }
      t.rounds += 1;
      t.faultsInjected += report.faultsInjected;
      t.ackedChecked += report.ackedChecked;
      t.lost += report.lost;
      if (report.problems.length) {
        t.failed += 1;
        t.problems.push(...report.problems.map((p) => `round ${i + 1}: ${p}`));
      }
      collect(t, round.name, report as Json);
      const secs = ((Date.now() - roundStart) / 1000).toFixed(1);
      const { rss, heapCapped, clients } = report as { rss?: { peakMiB: number }; heapCapped?: boolean; clients?: number };
      const extra = rss ? `, ${clients} clients, peak RSS ${rss.peakMiB} MiB${heapCapped ? ' (heap capped at 384 MB)' : ''}` : '';
      console.log(
        `  ${round.name}: ${report.problems.length ? `FAILED (${report.problems.length} problems)` : 'ok'} in ${secs} s, ${report.ackedChecked} acked writes checked, ${report.faultsInjected} faults, lost ${report.lost}${extra}`,
      );
    }
  } finally {
    await owned?.close();
  }

  const total = { seconds: Math.round((Date.now() - started) / 1000), rounds: 0, failed: 0, faultsInjected: 0, ackedChecked: 0, lost: 0 };
  const perScenario: Record<string, unknown> = {};
  for (const [name, t] of tallies) {
    total.rounds += t.rounds;
    total.failed += t.failed;
    total.faultsInjected += t.faultsInjected;
    total.ackedChecked += t.ackedChecked;
    total.lost += t.lost;
    perScenario[name] = {
      rounds: t.rounds,
      failed: t.failed,
      faultsInjected: t.faultsInjected,
      ackedChecked: t.ackedChecked,
      lost: t.lost,
      figures: Object.fromEntries(Object.entries(t.figures).map(([k, xs]) => [k, stats(xs)])),
      problems: t.problems.slice(0, 20),
    };
  }
  const report = { command: `npm run soak -- ${SECONDS}`, total, scenarios: perScenario };
  const file = await recordReport('soak', report);
  console.log(JSON.stringify(report, null, 2));
  console.log(
    `\nsoak: ${total.rounds} rounds in ${total.seconds} s, ${total.faultsInjected} faults injected, ${total.ackedChecked} acknowledged writes checked, ${total.lost} lost, ${total.failed} rounds failed (figures in ${file})`,
  );
  process.exit(total.failed || total.lost ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
