// The PostgreSQL-backed job queue (pg-boss), shared by every server process: any process may run
// any job, and jobs survive restarts.

import type pg from 'pg';
import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import { delay } from '../core/delay.ts';
import { Params } from '../db/sql.ts';

export type JobQueue = PgBoss;

const QUEUE_SETUP_LOCK_KEY = 72_707_369_003;

/** Statements pg-boss has sent and not yet seen answered, per queue (see stopJobQueue). */
const pendingStatements = new WeakMap<JobQueue, Set<Promise<unknown>>>();
/** Queues stopJobQueue has finished with: their pool may be closed (see stopJobQueue). */
const closedQueues = new WeakSet<JobQueue>();
/** Job handlers running now, per queue (see stopJobQueue). */
const runningHandlers = new WeakMap<JobQueue, Set<Promise<unknown>>>();

/** Adds a promise to a set until it settles. */
function trackIn(set: Set<Promise<unknown>>, running: Promise<unknown>): void {
  set.add(running);
  void running.finally(() => set.delete(running)).catch(() => undefined);
}

export async function startJobQueue(pool: pg.Pool, log: Logger): Promise<JobQueue> {
  const pending = new Set<Promise<unknown>>();
  const executeSql = (text: string, values: unknown[]): Promise<pg.QueryResult> => {
    // After the stop, a statement is dropped: it never settles, as if the process had died there
    // (an unfinished job expires and runs again). Sent to the closed pool it would reject where
    // pg-boss does not await it (a completion), an unhandled rejection that ends a process.
    if (closedQueues.has(boss)) return new Promise<never>(() => undefined);
    const running = pool.query(text, values);
    trackIn(pending, running);
    return running;
  };
  const boss: JobQueue = new PgBoss({
    db: { executeSql },
    schema: 'pgboss',
    // Expired or failed jobs are retried; completed ones are kept a day for inspection.
    retryLimit: 3,
    retryDelay: 2,
    retryBackoff: true,
    deleteAfterDays: 1,
  });
  boss.on('error', (err) => log.error({ err }, 'job queue error'));
  await underSetupLock(pool, () => boss.start());
  pendingStatements.set(boss, pending);
  runningHandlers.set(boss, new Set());
  return boss;
}

/** A job handler for queue.work that stopJobQueue waits for. */
export function handlerOf<J>(queue: JobQueue, handler: (jobs: J[]) => Promise<unknown>): (jobs: J[]) => Promise<void> {
  return async (jobs) => {
    const running = handler(jobs);
    const handlers = runningHandlers.get(queue);
    if (handlers) trackIn(handlers, running);
    await running;
  };
}

/**
 * Stops the workers (waiting up to `timeoutMs` for running jobs), then until no statement and no
 * handler of this queue is left. pg-boss 10 completes and fails a job without awaiting it, and a
 * fetch it sent before stop() can still start a handler: with the pool closed under them, the
 * completion fails (the job expires and runs again) and its rejection reaches no one. What pg-boss
 * sends after this returns (a continuation later than the last look, under load) is dropped.
 */
export async function stopJobQueue(boss: JobQueue, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  await boss.stop({ graceful: true, wait: true, timeout: timeoutMs });
  const inFlight = () => [...(pendingStatements.get(boss) ?? []), ...(runningHandlers.get(boss) ?? [])];
  for (let left = inFlight(); left.length > 0 && Date.now() < deadline; left = inFlight()) {
    await Promise.race([Promise.allSettled(left), delay(deadline - Date.now())]);
    // A settled handler's completion is sent in pg-boss's continuation: let it run, then look again.
    await new Promise((resolve) => setImmediate(resolve));
  }
  closedQueues.add(boss);
}

/**
 * pg-boss creates its schema, queues and schedules with DDL-like statements that deadlock when
 * several processes start at once; every such setup step runs under one advisory lock.
 */
export async function underSetupLock<T>(pool: pg.Pool, fn: () => Promise<T>): Promise<T> {
  const lock = await pool.connect();
  try {
    const locking = new Params();
    await lock.query(`SELECT pg_advisory_lock(${locking.add(QUEUE_SETUP_LOCK_KEY)})`, locking.values);
    return await fn();
  } finally {
    const unlocking = new Params();
    await lock.query(`SELECT pg_advisory_unlock(${unlocking.add(QUEUE_SETUP_LOCK_KEY)})`, unlocking.values).catch(() => undefined);
    lock.release();
  }
}

/** Runs an SQL statement of pg-boss on the caller's transaction, so a job commits with its cause. */
export function inTransaction(client: pg.PoolClient) {
  return { executeSql: (text: string, values: unknown[]) => client.query(text, values) };
}
