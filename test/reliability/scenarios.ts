// The fault scenarios. Each one drives real server processes, injects its fault, checks what it
// promises, and returns its figures (the quick tests assert on them; the soak adds them up).
// None of them asserts by itself: a scenario reports `problems`, empty when every promise held.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { must } from '../../src/core/must.ts';
import { startServerProcess } from '../support/process.ts';
import { checkIntegrity, type IntegrityReport, integrityProblems, storedLedger, streamProblems } from './checks.ts';
import {
  deathOf,
  type EpisodicServer,
  type LedgerWatchers,
  mib,
  readiness,
  recentErrors,
  rssOf,
  sampleRss,
  sleep,
  startDedicatedPostgres,
  startDedicatedRedis,
  startServer,
  tempDir,
  waitUntil,
  watchLedger,
  within,
} from './harness.ts';
import { type CallRecord, StepLoad, type StoredAt, startEpisodes } from './load.ts';

export type Log = (line: string) => void;
const quiet: Log = () => undefined;

export interface ScenarioReport {
  scenario: string;
  /** Broken promises; empty when the scenario passed. */
  problems: string[];
  faultsInjected: number;
  ackedChecked: number;
  lost: number;
  durationMs: number;
}

/** Keys of the call's steps that are stored: a call commits whole or not at all. */
async function storedKeyCounts(databaseUrl: string, calls: CallRecord[]): Promise<number[]> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const keys = calls.flatMap((c) => c.steps.map((s) => must(s.sideEffectKey)));
    const { rows } = await db.query<{ key: string }>('SELECT side_effect_key AS key FROM steps WHERE side_effect_key = ANY($1::text[])', [keys]);
    const stored = new Set(rows.map((r) => r.key));
    return calls.map((c) => c.steps.filter((s) => stored.has(must(s.sideEffectKey))).length);
  } finally {
    await db.end();
  }
}

/** The end of every scenario: stop the load, close the watchers, kill servers still running, then release the rest in order. */
async function tearDown(parts: {
  load?: StepLoad | null;
  watchers?: { close(): Promise<unknown> } | null;
  servers: EpisodicServer[];
  release: Array<() => Promise<unknown>>;
}) {
  parts.load?.stopIssuing();
  await parts.watchers?.close().catch(() => undefined);
  for (const s of parts.servers) if (s.proc.child.exitCode === null && s.proc.child.signalCode === null) await s.stop('SIGKILL').catch(() => undefined);
  for (const release of parts.release) await release();
}

// ---------------------------------------------------------------------------------------------
// 1. SIGKILL during heavy concurrent ingestion

export interface CrashOptions {
  /** An empty database; the server migrates it. */
  databaseUrl: string;
  writers?: number;
  /** New episodes per cycle. */
  episodes?: number;
  maxBatch?: number;
  /** Acknowledged steps per cycle before the kill (the soak varies it). */
  killAfterAcks?: number | (() => number);
  /** Kill/restart cycles on the same database and data folder. */
  cycles?: number;
  seed?: number;
  log?: Log;
}

export interface CrashReport extends ScenarioReport {
  cycles: number;
  ackedBeforeKill: number;
  /** Calls sent and not yet answered at the moment of each kill (summed). */
  inFlightAtKill: number;
  callsAcked: number;
  callsInDoubt: number;
  /** In-doubt calls whose steps were all committed (answer lost) / none committed. */
  inDoubtCommitted: number;
  inDoubtNotCommitted: number;
  /** In-doubt calls with only some of their steps stored (must be 0). */
  halfWritten: number;
  /** Start of each restarted process until it served: the slowest. */
  restartMs: number;
  /** Retries of the in-doubt calls (on the restarted server) that answered DUPLICATE / ACCEPTED. */
  retriedDuplicates: number;
  retriedAccepted: number;
  /** After the first restart, before any retry. */
  afterRestart: IntegrityReport;
  /** At the end, after every in-doubt call was retried. */
  afterRetry: IntegrityReport;
}

export async function crashDuringIngest(o: CrashOptions): Promise<CrashReport> {
  const log = o.log ?? quiet;
  const started = Date.now();
  const dataDir = await tempDir('episodic-rel-crash-');
  const servers: EpisodicServer[] = [];
  const cycles = o.cycles ?? 1;
  const acked = new Map<string, StoredAt>();
  const problems: string[] = [];
  const totals = {
    ackedBeforeKill: 0,
    inFlightAtKill: 0,
    callsAcked: 0,
    callsInDoubt: 0,
    inDoubtCommitted: 0,
    halfWritten: 0,
    retriedDuplicates: 0,
    retriedAccepted: 0,
    restartMs: 0,
  };
  let afterRestart: IntegrityReport | undefined;
  let afterRetry: IntegrityReport | undefined;
  let previous: StepLoad | null = null;
  try {
    for (let cycle = 0; cycle <= cycles; cycle++) {
      const restartAt = Date.now();
      const server = await startServer({ databaseUrl: o.databaseUrl, dataDir: dataDir.path });
      servers.push(server);
      if (cycle > 0) totals.restartMs = Math.max(totals.restartMs, Date.now() - restartAt);
      if (previous) {
        // Right after the restart, before anything else writes: what did the kill leave behind?
        for (const [k, v] of previous.acked) acked.set(k, v);
        const check = await checkIntegrity(o.databaseUrl, server.client, acked);
        afterRestart ??= check;
        problems.push(...integrityProblems(check).map((p) => `after restart ${cycle}: ${p}`));
        const inDoubt = previous.inDoubt();
        const storedCounts = await storedKeyCounts(o.databaseUrl, inDoubt);
        totals.callsInDoubt += inDoubt.length;
        totals.halfWritten += inDoubt.filter((c, i) => must(storedCounts[i]) > 0 && must(storedCounts[i]) < c.steps.length).length;
        totals.inDoubtCommitted += inDoubt.filter((c, i) => storedCounts[i] === c.steps.length).length;
        // Retry every in-doubt call with the same keys: committed ones answer DUPLICATE, the others ACCEPTED.
        for (let i = 0; i < inDoubt.length; i += 8) {
          const batch = inDoubt.slice(i, i + 8);
          const answers = await Promise.all(batch.map((c) => must(previous).retry(c, server.client)));
          answers.forEach((answer, j) => {
            if (answer.outcome !== 'acked')
              return void problems.push(`retry of an in-doubt call was not acknowledged: ${answer.code ?? ''} ${answer.message ?? ''}`);
            if (storedCounts[i + j] === must(batch[j]).steps.length) totals.retriedDuplicates += 1;
            else totals.retriedAccepted += 1;
          });
        }
        // The retries' answers (DUPLICATE or ACCEPTED, with their step numbers) are acknowledgements too.
        for (const [k, v] of previous.acked) acked.set(k, v);
      }
      if (cycle === cycles) {
        afterRetry = await checkIntegrity(o.databaseUrl, server.client, acked);
        problems.push(...integrityProblems(afterRetry).map((p) => `after retrying the in-doubt calls: ${p}`));
        const exitCode = await server.stop('SIGTERM');
        if (exitCode !== 0) problems.push(`the restarted server exited with ${exitCode} after SIGTERM`);
        break;
      }
      const episodeIds = await startEpisodes(server.client, o.episodes ?? 8, `crash ${cycle}`);
      const load = new StepLoad(
        { client: server.client, episodeIds, concurrency: o.writers ?? 24, maxBatch: o.maxBatch ?? 20, keyPrefix: `crash-${randomBytes(4).toString('hex')}` },
        (o.seed ?? Date.now()) + cycle,
      ).start();
      const target = typeof o.killAfterAcks === 'function' ? o.killAfterAcks() : (o.killAfterAcks ?? 1_500);
      await waitUntil(
        () => load.ackedSteps >= target,
        `${target} acknowledged steps before kill ${cycle + 1}`,
        60_000,
        () => ({ acked: load.ackedSteps, refusals: load.refusals(), server: deathOf(server) }),
      );
      const ackedBeforeKill = load.ackedSteps;
      const inFlight = load.inFlight;
      server.proc.child.kill('SIGKILL');
      load.stopIssuing();
      await within(10_000, 'the killed server to exit', server.proc.exited());
      await within(30_000, 'every call to end after the kill', load.settled());
      log(`crash ${cycle + 1}/${cycles}: SIGKILL with ${inFlight} calls in flight after ${ackedBeforeKill} acknowledged steps`);
      if (inFlight === 0) problems.push(`kill ${cycle + 1} found no call in flight (not mid-stream)`);
      if (load.count('refused')) problems.push(`calls were refused during ingestion: ${JSON.stringify(load.refusals())}`);
      totals.ackedBeforeKill += ackedBeforeKill;
      totals.inFlightAtKill += inFlight;
      totals.callsAcked += load.count('acked');
      previous = load;
    }
    if (totals.halfWritten) problems.push(`${totals.halfWritten} in-doubt calls are half-written`);
    return {
      scenario: 'sigkill-during-ingest',
      problems,
      faultsInjected: cycles,
      ackedChecked: must(afterRetry).ackedChecked,
      lost: Math.max(afterRestart?.lost ?? 0, must(afterRetry).lost),
      durationMs: Date.now() - started,
      cycles,
      ...totals,
      inDoubtNotCommitted: totals.callsInDoubt - totals.inDoubtCommitted - totals.halfWritten,
      afterRestart: must(afterRestart),
      afterRetry: must(afterRetry),
    };
  } finally {
    await tearDown({ servers, release: [() => dataDir.remove()] });
  }
}

// ---------------------------------------------------------------------------------------------
// 2. PostgreSQL restart mid-stream

export interface PostgresRestartOptions {
  /** One outage per entry: fast (SIGINT) or immediate (SIGQUIT, crash recovery on start). */
  outages?: Array<'fast' | 'immediate'>;
  /** How long PostgreSQL stays down. */
  downMs?: number;
  writers?: number;
  /** A write that takes longer than this to fail during the outage counts as a hang. */
  hangMs?: number;
  log?: Log;
}

export interface OutageFigures {
  mode: 'fast' | 'immediate';
  /** From the stop until /readyz of both servers answered 503. */
  unreadyAfterMs: number;
  /** /readyz samples taken while PostgreSQL was down, and how many said 503 (database unreachable). */
  readyzWhileDown: number;
  readyz503WhileDown: number;
  /** Calls sent while PostgreSQL was down, by how they ended. */
  refusedWhileDown: Record<string, number>;
  /** Slowest answer to a call sent while PostgreSQL was down. */
  slowestRefusalMs: number;
  /** From PostgreSQL accepting connections again until /readyz of both servers said 200. */
  readyAfterMs: number;
  /** ... until the first write sent after the restart was acknowledged. */
  firstWriteAfterMs: number;
  /** ... until the subscribers on server A had every event committed through server B up to then. */
  subscribersCaughtUpAfterMs: number;
}

export interface PostgresRestartReport extends ScenarioReport {
  outages: OutageFigures[];
  events: number;
  verifiedSubscriberEvents: number;
  rawSubscriberEvents: number;
  integrity: IntegrityReport;
}

async function ledgerHead(databaseUrl: string): Promise<number> {
  const rows = await storedLedger(databaseUrl);
  return rows.length ? must(rows[rows.length - 1]).seq : 0;
}

/**
 * Two servers on a dedicated PostgreSQL: subscribers on A, writes through B, so deliveries after
 * an outage need A's LISTEN connection (or its safety re-read) to come back, not only local wake-ups.
 */
export async function postgresRestart(o: PostgresRestartOptions = {}): Promise<PostgresRestartReport> {
  const log = o.log ?? quiet;
  const started = Date.now();
  const hangMs = o.hangMs ?? 10_000;
  const postgres = await startDedicatedPostgres();
  const dataDir = await tempDir('episodic-rel-pgrestart-');
  const servers: EpisodicServer[] = [];
  let watchers: LedgerWatchers | undefined;
  let load: StepLoad | undefined;
  try {
    const a = await startServer({ databaseUrl: postgres.url, dataDir: dataDir.path });
    servers.push(a);
    const b = await startServer({ databaseUrl: postgres.url, dataDir: dataDir.path });
    servers.push(b);
    const readyz = () => Promise.all([a, b].map(readiness));
    watchers = await watchLedger(a);
    const w = watchers;
    const episodeIds = await startEpisodes(b.client, 4, 'pg-restart');
    const moreEpisodes = async () => must((await startEpisodes(b.client, 1, 'pg-restart more'))[0]);
    load = new StepLoad({
      client: b.client,
      episodeIds,
      concurrency: o.writers ?? 4,
      maxBatch: 10,
      keyPrefix: `pgr-${randomBytes(4).toString('hex')}`,
      paceMs: 20,
      backoffMs: 100,
      moreEpisodes,
    }).start();
    const l = load;
    await waitUntil(() => l.ackedSteps >= 100, '100 acknowledged steps before the first outage', 30_000);
    const problems: string[] = [];
    const windows: Array<{
      mode: 'fast' | 'immediate';
      stoppedAt: number;
      upAt: number;
      figures: Omit<OutageFigures, 'refusedWhileDown' | 'slowestRefusalMs'>;
    }> = [];
    const caughtUp = (head: number) => w.verified.lastSeq() >= head && (w.raw.events.at(-1)?.seq ?? 0) >= head;
    const subscriberState = () => ({ verified: w.verified.lastSeq(), raw: w.raw.events.at(-1)?.seq, errors: [...w.verified.errors, ...w.raw.errors] });

    for (const mode of o.outages ?? ['fast', 'immediate']) {
      const stoppedAt = Date.now();
      await postgres.stop(mode);
      let lastReadyz: unknown;
      await waitUntil(
        async () => (lastReadyz = await readyz()) && (lastReadyz as Array<{ status: number }>).every((r) => r.status === 503),
        `/readyz to say 503 after a ${mode} stop`,
        15_000,
        () => lastReadyz,
      );
      const unreadyAfterMs = Date.now() - stoppedAt;
      let readyzWhileDown = 0;
      let readyz503WhileDown = 0;
      const downUntil = Date.now() + (o.downMs ?? 3_000);
      while (Date.now() < downUntil) {
        for (const r of await readyz()) {
          readyzWhileDown += 1;
          if (r.status === 503 && r.body.database === 'unreachable') readyz503WhileDown += 1;
        }
        await sleep(200);
      }
      await postgres.start();
      const upAt = Date.now();
      await waitUntil(
        async () => (lastReadyz = await readyz()) && (lastReadyz as Array<{ status: number }>).every((r) => r.status === 200),
        `/readyz to say 200 after PostgreSQL came back (${mode})`,
        30_000,
        () => lastReadyz,
      );
      const readyAfterMs = Date.now() - upAt;
      const ackedSinceUp = () => l.calls.filter((c) => c.sentAt >= upAt && c.outcome === 'acked' && c.endedAt > 0);
      await waitUntil(
        () => ackedSinceUp().length > 0,
        `a write acknowledged after PostgreSQL came back (${mode})`,
        30_000,
        () => ({ refusals: l.refusals(), serverB: recentErrors(b) }),
      );
      const firstWriteAfterMs = Math.min(...ackedSinceUp().map((c) => c.endedAt - upAt));
      const head = await ledgerHead(postgres.url);
      await waitUntil(() => caughtUp(head), `A's subscribers to reach seq ${head} after the ${mode} outage`, 30_000, subscriberState);
      const subscribersCaughtUpAfterMs = Date.now() - upAt;
      const figures = { mode, unreadyAfterMs, readyzWhileDown, readyz503WhileDown, readyAfterMs, firstWriteAfterMs, subscribersCaughtUpAfterMs };
      windows.push({ mode, stoppedAt, upAt, figures });
      log(`postgres ${mode} outage: ${JSON.stringify(figures)}`);
    }

    await waitUntil(() => l.ackedSteps >= 150, 'more acknowledged steps after the outages', 30_000);
    await l.stop();
    // Calls are judged once they all ended, so a call that hung past an outage is seen too.
    const outages: OutageFigures[] = windows.map(({ mode, stoppedAt, upAt, figures }) => {
      const whileDown = l.calls.filter((c) => c.sentAt >= stoppedAt && c.sentAt < upAt && c.outcome !== 'acked');
      const refusedWhileDown: Record<string, number> = {};
      for (const c of whileDown) {
        const code = c.outcome === 'refused' ? (c.code ?? '?') : `no answer: ${c.message}`;
        refusedWhileDown[code] = (refusedWhileDown[code] ?? 0) + 1;
      }
      const slowestRefusalMs = Math.max(0, ...whileDown.map((c) => c.endedAt - c.sentAt));
      if (figures.readyz503WhileDown !== figures.readyzWhileDown)
        problems.push(
          `${mode}: /readyz said ready ${figures.readyzWhileDown - figures.readyz503WhileDown} of ${figures.readyzWhileDown} times while PostgreSQL was down`,
        );
      if (Object.keys(refusedWhileDown).some((code) => code !== 'DATABASE_UNAVAILABLE'))
        problems.push(`${mode}: writes during the outage failed without the DATABASE_UNAVAILABLE error: ${JSON.stringify(refusedWhileDown)}`);
      if (!whileDown.length) problems.push(`${mode}: no write was refused while PostgreSQL was down (did the writer stall?)`);
      if (slowestRefusalMs > hangMs) problems.push(`${mode}: a write during the outage took ${slowestRefusalMs} ms to fail (a hang)`);
      return { ...figures, refusedWhileDown, slowestRefusalMs };
    });
    const stored = await storedLedger(postgres.url);
    const head = stored.at(-1)?.seq ?? 0;
    await waitUntil(() => caughtUp(head), `A's subscribers to reach the final head ${head}`, 30_000, subscriberState);
    problems.push(...w.verified.errors.map((e) => `verified subscriber: ${e}`), ...w.raw.errors.map((e) => `raw subscriber: ${e}`));
    problems.push(...streamProblems('verified subscriber', w.verified.events, stored), ...streamProblems('raw subscriber', w.raw.events, stored));
    const integrity = await checkIntegrity(postgres.url, a.client, l.acked);
    problems.push(...integrityProblems(integrity));
    if (!a.proc.output().includes('ledger listener reconnected')) problems.push('server A did not log that its ledger listener reconnected');
    await w.close();
    watchers = undefined;
    for (const s of [a, b]) {
      const code = await s.stop('SIGTERM');
      if (code !== 0) problems.push(`server ${s.port} exited with ${code} after SIGTERM`);
    }
    return {
      scenario: 'postgres-restart',
      problems,
      faultsInjected: outages.length,
      ackedChecked: integrity.ackedChecked,
      lost: integrity.lost,
      durationMs: Date.now() - started,
      outages,
      events: stored.length,
      verifiedSubscriberEvents: w.verified.events.length,
      rawSubscriberEvents: w.raw.events.length,
      integrity,
    };
  } finally {
    await tearDown({ load, watchers, servers, release: [() => postgres.close(), () => dataDir.remove()] });
  }
}

// ---------------------------------------------------------------------------------------------
// 5. Graceful shutdown (SIGTERM) during ingestion

export interface ShutdownOptions {
  databaseUrl: string;
  writers?: number;
  /** Group-commit window of the server: long enough that calls are parked in the buffer at the signal. */
  windowMs?: number;
  signalAfterAcks?: number;
  log?: Log;
}

export interface ShutdownReport extends ScenarioReport {
  exitCode: number | null;
  /** From SIGTERM until the process exited. */
  exitAfterMs: number;
  inFlightAtSignal: number;
  /** Calls sent before the signal that were answered after it (drained by the shutdown). */
  answeredAfterSignal: number;
  /** Calls the server counted as read (its in-flight gauge) just before the signal, without an answer (must be 0). */
  unansweredInFlight: number;
  /** Calls open at the signal that the server had not been seen to read: answered / not (may meet the closing port). */
  unreadAnswered: number;
  unreadUnanswered: number;
  /** Calls sent after the signal: refused connections, as expected, and how long the slowest took to fail. */
  afterSignalCalls: number;
  afterSignalAnswered: number;
  slowestAfterSignalMs: number;
  integrity: IntegrityReport;
}

/**
 * Calls the server has read and not answered, at least `wanted` of them: when no call was sent and
 * none ended while /metrics was read, the server's in-flight gauge counted open calls only, so a
 * count equal to theirs means it had read every one.
 */
async function callsReadByServer(server: EpisodicServer, load: StepLoad, wanted: number): Promise<Set<CallRecord>> {
  let read = new Set<CallRecord>();
  const allRead = async () => {
    const sent = load.calls.length;
    const open = load.calls.filter((c) => c.endedAt === 0);
    if (open.length < wanted) return false;
    const counted = await server.metric('episodic_graphql_requests_in_flight');
    read = new Set(open);
    return counted === open.length && load.calls.length === sent && open.every((c) => c.endedAt === 0);
  };
  await waitUntil(allRead, `the server to count ${wanted} or more calls read and unanswered`, 20_000, () => ({ inFlight: load.inFlight }));
  return read;
}

export async function gracefulShutdown(o: ShutdownOptions): Promise<ShutdownReport> {
  const log = o.log ?? quiet;
  const started = Date.now();
  const dataDir = await tempDir('episodic-rel-shutdown-');
  const servers: EpisodicServer[] = [];
  let load: StepLoad | undefined;
  try {
    const env = { GROUP_COMMIT_WINDOW_MS: String(o.windowMs ?? 500), SHUTDOWN_TIMEOUT_MS: '20000' };
    const first = await startServer({ databaseUrl: o.databaseUrl, dataDir: dataDir.path, env });
    servers.push(first);
    const episodeIds = await startEpisodes(first.client, 8, 'shutdown');
    const moreEpisodes = async () => must((await startEpisodes(first.client, 1, 'shutdown more'))[0]);
    load = new StepLoad({
      client: first.client,
      episodeIds,
      concurrency: o.writers ?? 24,
      maxBatch: 20,
      keyPrefix: `term-${randomBytes(4).toString('hex')}`,
      backoffMs: 50,
      moreEpisodes,
    }).start();
    const l = load;
    const target = o.signalAfterAcks ?? 500;
    await waitUntil(
      () => l.ackedSteps >= target,
      `${target} acknowledged steps before SIGTERM`,
      60_000,
      () => ({ acked: l.ackedSteps, refusals: l.refusals() }),
    );
    // Signal while every writer has a call that the server itself counts as read and unanswered
    // (its in-flight gauge): with a long group-commit window they wait in the buffer. A client's own
    // send time proves nothing on a busy machine, where its bytes can leave a second later.
    // With a short window (the default 2 ms) calls do not stay that long: then some are read at the signal.
    const read = await callsReadByServer(first, l, (o.windowMs ?? 500) >= 100 ? (o.writers ?? 24) : 1);
    const signalAt = Date.now();
    const inFlightAtSignal = l.inFlight;
    first.proc.child.kill('SIGTERM');
    const exitCode = await within(30_000, 'the server to exit after SIGTERM', first.proc.exited());
    const exitAfterMs = Date.now() - signalAt;
    // Writers kept calling after the signal, as real clients do; they now meet a closed port.
    await l.stop();
    log(`shutdown: SIGTERM with ${inFlightAtSignal} calls in flight; exit ${exitCode} after ${exitAfterMs} ms`);

    const before = l.calls.filter((c) => c.sentAt < signalAt);
    const unread = before.filter((c) => !read.has(c) && c.endedAt >= signalAt);
    const after = l.calls.filter((c) => c.sentAt >= signalAt);
    const unanswered = [...read].filter((c) => c.outcome === 'no-answer');

    const second = await startServer({ databaseUrl: o.databaseUrl, dataDir: dataDir.path });
    servers.push(second);
    const integrity = await checkIntegrity(o.databaseUrl, second.client, l.acked);
    const secondExit = await second.stop('SIGTERM');
    const problems = [
      ...integrityProblems(integrity),
      ...(exitCode !== 0 ? [`the server exited with ${exitCode} after SIGTERM (stderr: ${first.proc.stderr().slice(-500)})`] : []),
      ...(!first.proc.output().includes('"msg":"stopped"') ? ['the server did not log "stopped"'] : []),
      ...(unanswered.length
        ? [`${unanswered.length} calls the server had read before the signal got no answer: ${[...new Set(unanswered.map((c) => c.message))].join('; ')}`]
        : []),
      ...(inFlightAtSignal === 0 ? ['no call was in flight at the signal'] : []),
      ...(secondExit !== 0 ? [`the restarted server exited with ${secondExit}`] : []),
    ];
    const slowestAfterSignalMs = Math.max(0, ...after.map((c) => c.endedAt - c.sentAt));
    return {
      scenario: 'sigterm-during-ingest',
      problems,
      faultsInjected: 1,
      ackedChecked: integrity.ackedChecked,
      lost: integrity.lost,
      durationMs: Date.now() - started,
      exitCode,
      exitAfterMs,
      inFlightAtSignal,
      answeredAfterSignal: before.filter((c) => c.outcome !== 'no-answer' && c.endedAt >= signalAt).length,
      unansweredInFlight: unanswered.length,
      unreadAnswered: unread.filter((c) => c.outcome !== 'no-answer').length,
      unreadUnanswered: unread.filter((c) => c.outcome === 'no-answer').length,
      afterSignalCalls: after.length,
      afterSignalAnswered: after.filter((c) => c.outcome !== 'no-answer').length,
      slowestAfterSignalMs,
      integrity,
    };
  } finally {
    await tearDown({ load, servers, release: [() => dataDir.remove()] });
  }
}

// ---------------------------------------------------------------------------------------------
// 4. Redis as the event bus, Redis stopped

export interface RedisOutageOptions {
  databaseUrl: string;
  downMs?: number;
  /** LEDGER_TAIL_SAFETY_MS of the servers: how late a subscriber may learn of an event while Redis is away. */
  safetyMs?: number;
  log?: Log;
}

export interface RedisOutageReport extends ScenarioReport {
  /** From the kill until both servers' /readyz said fanout is not connected. */
  notConnectedAfterMs: number;
  /** /readyz status while Redis was down (the database is fine, so the server stays ready). */
  readyzWhileDown: number[];
  fanoutWhileDown: string[];
  /** Writes through server B during the outage: acknowledged / refused. */
  writesAckedWhileDown: number;
  writesRefusedWhileDown: number;
  /** An event written through B while Redis was down reached A's subscribers after (safety re-read). */
  deliveryWhileDownMs: number;
  /** A server started while Redis is down refuses to start with one clear line. */
  startWhileDown: { exitCode: number | null; message: string };
  /** From redis-server accepting connections again until both servers said fanout connected. */
  reconnectedAfterMs: number;
  /** After the reconnect: an event written through B reached A's subscribers after. */
  deliveryAfterMs: number;
  events: number;
  integrity: IntegrityReport;
}

export async function redisOutage(o: RedisOutageOptions): Promise<RedisOutageReport> {
  const log = o.log ?? quiet;
  const started = Date.now();
  const safetyMs = o.safetyMs ?? 1_500;
  const redis = await startDedicatedRedis();
  const dataDir = await tempDir('episodic-rel-redis-');
  const servers: EpisodicServer[] = [];
  let watchers: LedgerWatchers | undefined;
  let load: StepLoad | undefined;
  try {
    const env = { REDIS_URL: redis.url, LEDGER_TAIL_SAFETY_MS: String(safetyMs) };
    const a = await startServer({ databaseUrl: o.databaseUrl, dataDir: dataDir.path, env });
    servers.push(a);
    const b = await startServer({ databaseUrl: o.databaseUrl, dataDir: dataDir.path, env });
    servers.push(b);
    watchers = await watchLedger(a);
    const w = watchers;
    const episodeIds = await startEpisodes(b.client, 4, 'redis');
    const moreEpisodes = async () => must((await startEpisodes(b.client, 1, 'redis more'))[0]);
    load = new StepLoad({
      client: b.client,
      episodeIds,
      concurrency: 2,
      maxBatch: 5,
      keyPrefix: `redis-${randomBytes(4).toString('hex')}`,
      paceMs: 50,
      backoffMs: 100,
      moreEpisodes,
    }).start();
    const l = load;
    await waitUntil(() => l.ackedSteps >= 30, '30 acknowledged steps before the outage', 30_000);
    const problems: string[] = [];
    const reachedOnA = (seq: number) => w.verified.lastSeq() >= seq && (w.raw.events.at(-1)?.seq ?? 0) >= seq;
    const subscriberState = () => ({ verified: w.verified.lastSeq(), raw: w.raw.events.at(-1)?.seq, errors: [...w.verified.errors, ...w.raw.errors] });
    for (const s of [a, b]) {
      const r = await readiness(s);
      if (r.body.fanout !== 'connected') problems.push(`before the outage, server ${s.port} said fanout ${String(r.body.fanout)}`);
    }

    const killedAt = Date.now();
    await redis.stop();
    await waitUntil(
      async () => (await Promise.all([a, b].map(readiness))).every((r) => r.status === 200 && r.body.fanout !== 'connected'),
      '/readyz of both servers to say fanout is not connected',
      20_000,
    );
    const notConnectedAfterMs = Date.now() - killedAt;
    // One write of our own through B while Redis is away: A's subscribers learn of it by a safety re-read.
    const wroteAt = Date.now();
    const during = await l.retry(
      { ...must(l.calls[0]), steps: [{ tool: 'during-outage', sideEffectKey: `redis-during-${randomBytes(4).toString('hex')}` }], single: true },
      b.client,
    );
    if (during.outcome !== 'acked') problems.push(`a write during the Redis outage was not acknowledged: ${during.code} ${during.message}`);
    const headDuring = (await storedLedger(o.databaseUrl)).length;
    await waitUntil(() => reachedOnA(headDuring), `A's subscribers to get seq ${headDuring} while Redis is down`, safetyMs * 4 + 10_000, subscriberState);
    const deliveryWhileDownMs = Date.now() - wroteAt;
    const readyzWhileDown: number[] = [];
    const fanoutWhileDown: string[] = [];
    const downUntil = killedAt + (o.downMs ?? 3_000);
    do {
      for (const s of [a, b]) {
        const r = await readiness(s);
        readyzWhileDown.push(r.status);
        fanoutWhileDown.push(String(r.body.fanout));
      }
      await sleep(250);
    } while (Date.now() < downUntil);
    // A process that starts now cannot reach Redis: it must say so in one line and exit 1.
    const third = startServerProcess({ DATABASE_URL: o.databaseUrl, PORT: '0', EPISODIC_DATA_DIR: dataDir.path, REDIS_URL: redis.url });
    const thirdExit = await within(60_000, 'a server started while Redis is down to exit', third.exited());
    const startWhileDown = { exitCode: thirdExit, message: third.stderr().trim() };
    await redis.start();
    const upAt = Date.now();
    await waitUntil(
      async () => (await Promise.all([a, b].map(readiness))).every((r) => r.status === 200 && r.body.fanout === 'connected'),
      'both servers to say fanout connected after Redis came back',
      30_000,
    );
    const reconnectedAfterMs = Date.now() - upAt;
    const wroteAfterAt = Date.now();
    const after = await l.retry(
      { ...must(l.calls[0]), steps: [{ tool: 'after-outage', sideEffectKey: `redis-after-${randomBytes(4).toString('hex')}` }], single: true },
      b.client,
    );
    if (after.outcome !== 'acked') problems.push(`a write after Redis came back was not acknowledged: ${after.code} ${after.message}`);
    const headAfter = (await storedLedger(o.databaseUrl)).length;
    await waitUntil(() => reachedOnA(headAfter), `A's subscribers to get seq ${headAfter} after Redis came back`, 20_000, subscriberState);
    const deliveryAfterMs = Date.now() - wroteAfterAt;
    log(
      `redis outage: not connected after ${notConnectedAfterMs} ms, delivery while down ${deliveryWhileDownMs} ms, reconnected after ${reconnectedAfterMs} ms, delivery after ${deliveryAfterMs} ms`,
    );

    await waitUntil(() => l.ackedSteps >= 60, 'more acknowledged steps after the outage', 30_000);
    await l.stop();
    // Calls sent while Redis was down, judged once they all ended.
    const whileDown = l.calls.filter((c) => c.sentAt >= killedAt && c.sentAt < upAt);
    const writesAckedWhileDown = whileDown.filter((c) => c.outcome === 'acked').length;
    const writesRefusedWhileDown = whileDown.length - writesAckedWhileDown;
    const stored = await storedLedger(o.databaseUrl);
    const head = stored.at(-1)?.seq ?? 0;
    await waitUntil(() => reachedOnA(head), `A's subscribers to reach the final head ${head}`, 20_000, subscriberState);
    problems.push(...w.verified.errors.map((e) => `verified subscriber: ${e}`), ...w.raw.errors.map((e) => `raw subscriber: ${e}`));
    problems.push(...streamProblems('verified subscriber', w.verified.events, stored), ...streamProblems('raw subscriber', w.raw.events, stored));
    const acked = new Map(l.acked);
    const integrity = await checkIntegrity(o.databaseUrl, a.client, acked);
    problems.push(...integrityProblems(integrity));
    if (readyzWhileDown.some((st) => st !== 200)) problems.push(`/readyz was not 200 while only Redis was down: ${readyzWhileDown.join(',')}`);
    if (fanoutWhileDown.some((f) => f === 'connected')) problems.push(`/readyz said fanout connected while Redis was down: ${fanoutWhileDown.join(',')}`);
    if (writesRefusedWhileDown) {
      const why = whileDown.filter((c) => c.outcome !== 'acked').map((c) => `${c.outcome} ${c.code ?? ''} ${c.message ?? ''}`.slice(0, 300));
      problems.push(`${writesRefusedWhileDown} writes failed while only Redis was down: ${[...new Set(why)].join(' | ')}`);
    }
    if (
      startWhileDown.exitCode !== 1 ||
      !/^episodic: cannot connect to Redis at redis:\/\/127\.0\.0\.1:\d+ \(REDIS_URL\)/.test(startWhileDown.message) ||
      startWhileDown.message.includes('\n')
    ) {
      problems.push(
        `a server started while Redis was down did not exit 1 with one clear line: ${startWhileDown.exitCode} ${startWhileDown.message.slice(0, 300)}`,
      );
    }
    if (!b.proc.output().includes('ledger notifications are failing')) problems.push('server B did not log that ledger notifications are failing');
    if (!a.proc.output().includes('lost its Redis connection')) problems.push('server A did not log that it lost its Redis connection');
    if (!a.proc.output().includes('reconnected to Redis')) problems.push('server A did not log that it reconnected to Redis');
    await w.close();
    watchers = undefined;
    for (const s of [a, b]) {
      const code = await s.stop('SIGTERM');
      if (code !== 0) problems.push(`server ${s.port} exited with ${code} after SIGTERM`);
    }
    return {
      scenario: 'redis-outage',
      problems,
      faultsInjected: 1,
      ackedChecked: integrity.ackedChecked,
      lost: integrity.lost,
      durationMs: Date.now() - started,
      notConnectedAfterMs,
      readyzWhileDown,
      fanoutWhileDown,
      writesAckedWhileDown,
      writesRefusedWhileDown,
      deliveryWhileDownMs,
      startWhileDown,
      reconnectedAfterMs,
      deliveryAfterMs,
      events: stored.length,
      integrity,
    };
  } finally {
    await tearDown({ load, watchers, servers, release: [() => redis.close(), () => dataDir.remove()] });
  }
}

// ---------------------------------------------------------------------------------------------
// 6. Overload: sustained load above capacity

export interface OverloadOptions {
  databaseUrl: string;
  /** Concurrent clients, each with one logSteps call in flight at a time. */
  clients?: number;
  stepsPerCall?: number;
  durationMs?: number;
  /** Pause of a client after a shed call (default 25 ms, well under the 1 s Retry-After; 0: resend at once). */
  pauseAfterShedMs?: number;
  env?: Record<string, string>;
  log?: Log;
}

export interface OverloadReport extends ScenarioReport {
  clients: number;
  /** The server ran with NODE_OPTIONS=--max-old-space-size (a capped V8 heap). */
  heapCapped: boolean;
  stepsPerCall: number;
  calls: number;
  acceptedCalls: number;
  acceptedSteps: number;
  /** Calls refused by code: OVERLOADED (503), RATE_LIMITED (429), ... */
  shed: Record<string, number>;
  /** Calls without an answer (must be 0: overload is refused, not dropped). */
  unanswered: number;
  storedSteps: number;
  acceptedStepsPerSecond: number;
  rss: { baselineMiB: number; peakMiB: number; firstHalfPeakMiB: number; secondHalfPeakMiB: number; lastMiB: number };
  /** The server's own view at the end of the run (/metrics). */
  metrics: Record<string, number>;
  integrity: IntegrityReport;
}

const OVERLOAD_MUTATION =
  'mutation($e: ID!, $s: [StepInput!]!) { r: logSteps(episodeId: $e, steps: $s) { __typename ... on LogStepsPayload { accepted } ... on Error { message } } }';
const START_MUTATION =
  'mutation { r: startEpisode(input: { taskDescription: "overload", taskType: "reliability" }) { ... on StartEpisodePayload { episode { id } } } }';

/** /metrics needs an admin key (docs/SECURITY.md): the bootstrap admin key is one. */
async function scrapeMetrics(base: string, adminKey: string): Promise<Record<string, number>> {
  const text = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${adminKey}` } })
    .then((r) => r.text())
    .catch(() => '');
  const pick = (name: string) => {
    const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text);
    return m ? Number(m[1]) : NaN;
  };
  return {
    process_resident_memory_bytes: pick('process_resident_memory_bytes'),
    nodejs_heap_size_used_bytes: pick('nodejs_heap_size_used_bytes'),
    episodic_ingest_waiting_steps: pick('episodic_ingest_waiting_steps'),
    episodic_group_commit_rows_count: pick('episodic_group_commit_rows_count'),
    episodic_group_commit_rows_sum: pick('episodic_group_commit_rows_sum'),
  };
}

export async function overload(o: OverloadOptions): Promise<OverloadReport> {
  const log = o.log ?? quiet;
  const started = Date.now();
  const clients = o.clients ?? 300;
  const perCall = o.stepsPerCall ?? 250;
  const callsPerEpisode = Math.floor(1_000 / perCall);
  const dataDir = await tempDir('episodic-rel-overload-');
  let server: EpisodicServer | undefined;
  try {
    server = await startServer({ databaseUrl: o.databaseUrl, dataDir: dataDir.path, env: o.env, clientTimeoutMs: 60_000 });
    const s = server;
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${s.apiKey}` };
    // One body per episode, built once: the clients spend their CPU sending, not serialising.
    const steps = JSON.stringify(
      Array.from({ length: perCall }, (_, i) => ({ tool: 'shell', action: `load ${i}`, parameters: { i, pad: 'p'.repeat(120) }, tokens: 1 })),
    );
    const bodyFor = (episodeId: string) => `{"query":${JSON.stringify(OVERLOAD_MUTATION)},"variables":{"e":"${episodeId}","s":${steps}}}`;
    /** An episode id, or the code the start was refused with (it is shed like any other call). */
    const startEpisode = async (): Promise<{ id: string } | { code: string }> => {
      const res = await fetch(s.graphqlUrl, { method: 'POST', headers, body: JSON.stringify({ query: START_MUTATION }), signal: AbortSignal.timeout(60_000) });
      const body = (await res.json()) as { data?: { r?: { episode?: { id: string } } }; errors?: Array<{ extensions?: { code?: string } }> };
      const id = body.data?.r?.episode?.id;
      return id ? { id } : { code: body.errors?.[0]?.extensions?.code ?? `HTTP ${res.status}` };
    };

    await sleep(500);
    const baseline = rssOf(s.pid) ?? 0;
    const sampler = sampleRss(s.pid, 100);
    const shed: Record<string, number> = {};
    let calls = 0;
    let acceptedCalls = 0;
    let acceptedSteps = 0;
    let unanswered = 0;
    const unansweredWhy = new Set<string>();
    /** Shed answers that were not exactly one error with a Retry-After header (issue 50). */
    const malformedSheds = new Set<string>();
    const endAt = Date.now() + (o.durationMs ?? 12_000);
    const pause = o.pauseAfterShedMs ?? 25;

    const client = async () => {
      let episodeId: string | null = null;
      let used = 0;
      let body = '';
      while (Date.now() < endAt) {
        if (!episodeId || used >= callsPerEpisode) {
          const start = await startEpisode().catch((err: Error) => ({ code: `no answer: ${err.message}` }));
          used = 0;
          episodeId = 'id' in start ? start.id : null;
          if (!episodeId) {
            const code = (start as { code: string }).code;
            shed[code] = (shed[code] ?? 0) + 1;
            await sleep(pause);
            continue;
          }
          body = bodyFor(episodeId);
        }
        calls += 1;
        try {
          const res = await fetch(s.graphqlUrl, { method: 'POST', headers, body, signal: AbortSignal.timeout(60_000) });
          const answer = (await res.json()) as { data?: { r?: { accepted?: number } }; errors?: Array<{ extensions?: { code?: string } }> };
          const accepted = answer.data?.r?.accepted;
          if (typeof accepted === 'number') {
            acceptedCalls += 1;
            acceptedSteps += accepted;
            used += 1;
          } else {
            const code = answer.errors?.[0]?.extensions?.code ?? `HTTP ${res.status}`;
            shed[code] = (shed[code] ?? 0) + 1;
            if (answer.errors?.length !== 1 || !res.headers.get('retry-after'))
              malformedSheds.add(`${code}: ${answer.errors?.length ?? 0} errors, Retry-After ${res.headers.get('retry-after')}`);
            if (pause) await sleep(pause);
          }
        } catch (err) {
          unanswered += 1;
          // fetch's own message is "fetch failed"; the socket's reason is its cause.
          const cause = (err as Error & { cause?: { code?: string; message?: string } }).cause;
          unansweredWhy.add([(err as Error).message, cause?.code, cause?.message].filter(Boolean).join(': '));
        }
      }
    };
    await Promise.all(Array.from({ length: clients }, client));
    const rss = sampler.stop();
    const death = deathOf(s);
    if ('signal' in death)
      throw new Error(
        `the server died under the overload (exit ${death.exitCode}, signal ${death.signal}; ${unanswered} calls unanswered): ${death.stderr.replace(/\s+/g, ' ').slice(-800)} | ${recentErrors(s).join(' | ')}`,
      );
    const metrics = await scrapeMetrics(s.base, s.apiKey);
    const half = Math.floor(rss.samples.length / 2);
    const peakOf = (xs: number[]) => xs.reduce((m, x) => Math.max(m, x), 0);
    const seconds = (Date.now() - (endAt - (o.durationMs ?? 12_000))) / 1000;
    log(`overload: ${calls} calls, ${acceptedCalls} accepted (${acceptedSteps} steps), shed ${JSON.stringify(shed)}, peak RSS ${mib(rss.peak)} MiB`);

    const db = new pg.Client({ connectionString: o.databaseUrl });
    await db.connect();
    const storedSteps = Number((await db.query('SELECT count(*) AS n FROM steps')).rows[0].n);
    await db.end();
    const integrity = await checkIntegrity(o.databaseUrl, s.client, new Map());
    const problems = [...integrityProblems(integrity)];
    if (storedSteps !== acceptedSteps) problems.push(`${acceptedSteps} steps were acknowledged but ${storedSteps} are stored`);
    if (unanswered) problems.push(`${unanswered} calls got no answer: ${[...unansweredWhy].slice(0, 3).join('; ')}`);
    if (malformedSheds.size) problems.push(`shed calls not answered with one error and Retry-After: ${[...malformedSheds].slice(0, 3).join('; ')}`);
    if (!Object.keys(shed).some((code) => code === 'OVERLOADED' || code === 'RATE_LIMITED'))
      problems.push(`the load was not shed (no OVERLOADED or RATE_LIMITED answer): ${JSON.stringify(shed)}`);
    const unexpected = Object.keys(shed).filter((code) => code !== 'OVERLOADED' && code !== 'RATE_LIMITED');
    if (unexpected.length)
      problems.push(`calls failed with other errors than OVERLOADED/RATE_LIMITED: ${JSON.stringify(shed)}; the server logged: ${recentErrors(s).join(' | ')}`);
    const exitCode = await s.stop('SIGTERM');
    if (exitCode !== 0) problems.push(`the server exited with ${exitCode} after SIGTERM`);
    return {
      scenario: 'overload',
      problems,
      clients,
      heapCapped: /--max-old-space-size/.test(o.env?.NODE_OPTIONS ?? ''),
      stepsPerCall: perCall,
      faultsInjected: 0,
      ackedChecked: acceptedSteps,
      lost: Math.max(0, acceptedSteps - storedSteps),
      durationMs: Date.now() - started,
      calls,
      acceptedCalls,
      acceptedSteps,
      shed,
      unanswered,
      storedSteps,
      acceptedStepsPerSecond: Math.round(acceptedSteps / seconds),
      rss: {
        baselineMiB: mib(baseline),
        peakMiB: mib(rss.peak),
        firstHalfPeakMiB: mib(peakOf(rss.samples.slice(0, half))),
        secondHalfPeakMiB: mib(peakOf(rss.samples.slice(half))),
        lastMiB: mib(rss.last),
      },
      metrics,
      integrity,
    };
  } finally {
    await tearDown({ servers: server ? [server] : [], release: [() => dataDir.remove()] });
  }
}

export { mib, readiness, sampleRss };
