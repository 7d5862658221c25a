// The PostgreSQL-backed job queue (pg-boss), shared by every server process: any process may run
// any job, and jobs survive restarts.

import type pg from 'pg';
import PgBoss from 'pg-boss';
import type { Logger } from 'pino';

export type JobQueue = PgBoss;

const QUEUE_SETUP_LOCK_KEY = 72_707_369_003;

/** Statements pg-boss has sent and not yet seen answered, per queue (see stopJobQueue). */
const pendingStatements = new WeakMap<JobQueue, Set<Promise<unknown>>>();

export async function startJobQueue(pool: pg.Pool, log: Logger): Promise<JobQueue> {
  const pending = new Set<Promise<unknown>>();
  const executeSql = (text: string, values: unknown[]) => {
    const running = pool.query(text, values);
    pending.add(running);
    void running.finally(() => pending.delete(running)).catch(() => undefined);
    return running;
  };
  const boss = new PgBoss({
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
  return boss;
}

/**
 * Stops the workers (waiting up to `timeoutMs` for running jobs), then for the statements pg-boss
 * still has in flight: it completes a finished job without awaiting it (pg-boss 10), so a pool
 * closed right after stop() would fail that completion and leave the job to expire and run again.
 */
export async function stopJobQueue(boss: JobQueue, timeoutMs: number): Promise<void> {
  await boss.stop({ graceful: true, wait: true, timeout: timeoutMs });
  await Promise.allSettled([...(pendingStatements.get(boss) ?? [])]);
}

/**
 * pg-boss creates its schema, queues and schedules with DDL-like statements that deadlock when
 * several processes start at once; every such setup step runs under one advisory lock.
 */
export async function underSetupLock<T>(pool: pg.Pool, fn: () => Promise<T>): Promise<T> {
  const lock = await pool.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [QUEUE_SETUP_LOCK_KEY]);
    return await fn();
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [QUEUE_SETUP_LOCK_KEY]).catch(() => undefined);
    lock.release();
  }
}

/** Runs an SQL statement of pg-boss on the caller's transaction, so a job commits with its cause. */
export function inTransaction(client: pg.PoolClient) {
  return { executeSql: (text: string, values: unknown[]) => client.query(text, values) };
}
