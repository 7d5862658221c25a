// Asynchronous pattern extraction on the PostgreSQL-backed queue (pg-boss), so any server process
// runs it and a job survives restarts. An ending with pattern candidates leaves the episode
// `pending`; after its commit this process queues the job (`queued`) unless the queue already holds
// maxQueueDepth waiting jobs, in which case the episode is `skipped` with a
// `patterns.extraction_skipped` ledger event that says why. A sweep queues any episode left pending
// (a process that stopped between commit and enqueue). A run that lost a race (deadlock, serialization
// failure) runs again at once; other failures go back to the queue, which retries them with backoff,
// and after the last retry the episode is `skipped` (reason `failed`), to be run on demand.

import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { Logger } from 'pino';
import { causes } from '../db/errors.ts';
import { Params, queryRows } from '../db/sql.ts';
import { withTransaction } from '../db/tx.ts';
import { handlerOf, inTransaction, type JobQueue, underSetupLock } from '../jobs/queue.ts';
import type { Writer } from '../write.ts';
import { extractPatternBatch, pendingExtractions } from './extract.ts';

export const EXTRACT_JOB = 'learning-extract-patterns';
const EXTRACT_SWEEP_JOB = 'learning-extract-sweep';
const RETRY = { retryLimit: 5, retryDelay: 2, retryBackoff: true, expireInSeconds: 300 } as const;
const SWEEP_LIMIT = 500;
/**
 * Jobs one worker fetches at once. pg-boss waits out the polling interval after every fetch, so
 * one job per fetch drained about 1 episode/s with 2 workers at 2 s; a full batch makes the worker
 * fetch again at once instead (below), so a backlog drains at the speed of extraction itself.
 */
const EXTRACT_BATCH = 25;
const SWEEP_AFTER_SECONDS = 60;
/**
 * How long a job queued by this process waits before the workers are woken. Endings that arrive
 * within it (an import's, a busy tenant's) share one extraction batch: one learning lock, one
 * refresh per scope and one commit through the ledger head for all of them, instead of one each.
 */
const WAKE_DELAY_MS = 500;

export interface LearningQueueOptions {
  /** Waiting jobs (created or retrying) beyond which new extractions are skipped, with a ledger event. */
  maxQueueDepth: number;
  /** Extraction workers in this process. */
  workers: number;
  pollSeconds: number;
  /** Called with the tenants of each extraction batch (the history grew): services.ts refits their learned rankers. */
  onHistoryGrew?: (tenantIds: string[]) => Promise<unknown>;
}

export interface ExtractJob {
  tenantId: string;
  episodeId: string;
}

export type EnqueueResult = 'queued' | 'skipped' | 'not_pending';

export interface LearningJobs {
  enqueue(job: ExtractJob): Promise<EnqueueResult>;
  /** Waits for the enqueues started by commits of this process and the extraction batches it runs. */
  drain(): Promise<void>;
}

export async function startLearningWorkers(queue: JobQueue, pool: pg.Pool, writer: Writer, log: Logger, options: LearningQueueOptions): Promise<LearningJobs> {
  await underSetupLock(pool, async () => {
    await queue.createQueue(EXTRACT_JOB, { name: EXTRACT_JOB, ...RETRY });
    await queue.createQueue(EXTRACT_SWEEP_JOB, { name: EXTRACT_SWEEP_JOB });
    await queue.schedule(EXTRACT_SWEEP_JOB, '* * * * *');
  });
  // Enqueues and extraction batches still running: drain() waits for them, so a stopping server
  // closes its pool only after the last job has been completed or failed.
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(running: Promise<T>): Promise<T> => {
    inFlight.add(running);
    void running.finally(() => inFlight.delete(running)).catch(() => undefined);
    return running;
  };
  const workerIds: string[] = [];
  let wakeTimer: NodeJS.Timeout | null = null;
  const wakeNow = () => {
    if (wakeTimer) clearTimeout(wakeTimer);
    wakeTimer = null;
    for (const id of workerIds) queue.notifyWorker(id);
  };
  const wakeSoon = () => {
    wakeTimer ??= setTimeout(wakeNow, WAKE_DELAY_MS).unref();
  };
  for (let i = 0; i < options.workers; i += 1) {
    let self = '';
    self = await queue.work<ExtractJob>(
      EXTRACT_JOB,
      { pollingIntervalSeconds: options.pollSeconds, batchSize: EXTRACT_BATCH, includeMetadata: true },
      handlerOf(queue, async (jobs: FetchedJob[]) => {
        await track(runBatch(queue, writer, jobs));
        // The history grew: refit the learned ranker of tenants whose model is due (retrieval/ranker-jobs.ts).
        await options
          .onHistoryGrew?.(jobs.map((j) => j.data.tenantId))
          .catch((err: unknown) => log.warn({ err }, 'ranker refit not queued; the next batch retries'));
        // A full batch means more are waiting: fetch again now rather than after the polling interval.
        if (jobs.length === EXTRACT_BATCH) queue.notifyWorker(self);
      }),
    );
    workerIds.push(self);
  }
  const enqueue = async (job: ExtractJob) => {
    const result = await enqueueExtraction(queue, pool, writer, options.maxQueueDepth, job);
    // Jobs queued by this process start within WAKE_DELAY_MS here; other processes find them by polling.
    if (result === 'queued') wakeSoon();
    return result;
  };
  const sweep = handlerOf(queue, async () => {
    const queued = await sweepPending(pool, enqueue);
    if (queued) log.info({ queued }, 'learning sweep queued pending pattern extractions');
  });
  await queue.work(EXTRACT_SWEEP_JOB, { pollingIntervalSeconds: options.pollSeconds }, sweep);

  writer.onCommit((tenantId, events) => {
    for (const episodeId of pendingExtractions(events)) {
      void track(enqueue({ tenantId, episodeId }).catch((err) => log.warn({ err, episodeId }, 'pattern extraction not queued; the sweep retries it')));
    }
  });
  const drain = async () => {
    // Whoever waits for this process's work wants its queued jobs started, not left to a timer.
    if (wakeTimer) wakeNow();
    await Promise.allSettled([...inFlight]);
  };
  return { enqueue, drain };
}

/** Queues the episode's extraction (state pending → queued) unless the queue is full (→ skipped, with a ledger event). */
async function enqueueExtraction(queue: JobQueue, pool: pg.Pool, writer: Writer, maxQueueDepth: number, job: ExtractJob): Promise<EnqueueResult> {
  const depth = await queue.getQueueSize(EXTRACT_JOB);
  if (depth >= maxQueueDepth) {
    return writer.run(job.tenantId, async (ctx) => {
      const p = new Params();
      const { rowCount } = await ctx.client.query(
        `UPDATE episodes SET learning_state = 'skipped' WHERE tenant_id = ${p.add(job.tenantId)} AND id = ${p.add(job.episodeId)} AND learning_state = 'pending'`,
        p.values,
      );
      if (!rowCount) return 'not_pending';
      ctx.events.push({ type: 'patterns.extraction_skipped', episodeId: job.episodeId, payload: { reason: 'queue_full', queueDepth: depth, maxQueueDepth } });
      return 'skipped';
    });
  }
  return withTransaction(pool, async (client) => {
    const p = new Params();
    const { rowCount } = await client.query(
      `UPDATE episodes SET learning_state = 'queued' WHERE tenant_id = ${p.add(job.tenantId)} AND id = ${p.add(job.episodeId)} AND learning_state = 'pending'`,
      p.values,
    );
    if (!rowCount) return 'not_pending';
    // The job commits with the state change: queued means a job exists.
    await queue.send(EXTRACT_JOB, job, { ...RETRY, db: inTransaction(client) });
    return 'queued';
  });
}

export type FetchedJob = { id: string; data: ExtractJob; retryCount?: number; retryLimit?: number };

/** SQLSTATEs of a transaction that lost a race and may simply run again: deadlock detected, serialization failure. */
const TRANSIENT = new Set(['40P01', '40001']);
/** Runs of one transaction that lost such a race, before its jobs go back to the queue (which retries them with backoff). */
const TRANSIENT_ATTEMPTS = 3;

function isTransientConflict(err: unknown): boolean {
  return causes(err).some((e) => TRANSIENT.has(String((e as { code?: unknown } | null)?.code)));
}

/**
 * Runs a fetched batch, failing to the queue only the jobs that failed (the worker then hands them
 * back to pg-boss, which retries them; after its last retry the episode is marked skipped, giveUp).
 */
export async function runBatch(queue: Pick<JobQueue, 'fail'>, writer: Writer, jobs: FetchedJob[]): Promise<void> {
  const { failed, lastError } = await runExtractionJobs(writer, jobs);
  const message = lastError instanceof Error ? lastError.message : String(lastError);
  for (const job of failed) {
    if ((job.retryCount ?? 0) >= (job.retryLimit ?? RETRY.retryLimit)) await giveUp(writer, job, message);
    await queue.fail(EXTRACT_JOB, job.id, { message });
  }
}

/**
 * Each tenant's jobs in one transaction (extractPatternBatch: one ledger append, one refresh per
 * scope). A deadlock or serialization failure runs the transaction again (TRANSIENT_ATTEMPTS); any
 * other failure runs each job alone, so only the jobs that fail are failed, not the batch.
 * retried: transactions run again after a transient failure.
 */
export async function runExtractionJobs(writer: Writer, jobs: FetchedJob[]): Promise<{ failed: FetchedJob[]; lastError: unknown; retried: number }> {
  const byTenant = new Map<string, FetchedJob[]>();
  for (const job of jobs) byTenant.set(job.data.tenantId, [...(byTenant.get(job.data.tenantId) ?? []), job]);
  const failed: FetchedJob[] = [];
  let lastError: unknown = null;
  let retried = 0;
  const counted = () => void (retried += 1);
  for (const [tenantId, group] of byTenant) {
    const ids = group.map((job) => job.data.episodeId);
    const together = await retryTransient(() => runExtraction(writer, tenantId, ids), counted).then(
      () => true,
      () => false,
    );
    if (together) continue;
    for (const job of group) {
      await retryTransient(() => runExtraction(writer, tenantId, [job.data.episodeId]), counted).catch((err: unknown) => {
        failed.push(job);
        lastError = err;
      });
    }
  }
  return { failed, lastError, retried };
}

async function retryTransient<T>(run: () => Promise<T>, onRetry: () => void): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run();
    } catch (err) {
      if (attempt >= TRANSIENT_ATTEMPTS || !isTransientConflict(err)) throw err;
      onRetry();
      // A little jitter, so the transactions that collided do not collide again in step.
      await sleep(Math.random() * 20 * attempt);
    }
  }
}

/** Unknown ids are skipped: the episode (or its tenant) may have been deleted since it was queued. */
async function runExtraction(writer: Writer, tenantId: string, episodeIds: string[]) {
  await writer.run(tenantId, (ctx) => extractPatternBatch(ctx, episodeIds, 'async', { missing: 'skip' }));
}

/** The queue's last retry failed too: the episode is skipped, with a ledger event, so extractEpisodePatterns can run it later. */
async function giveUp(writer: Writer, job: FetchedJob, message: string): Promise<void> {
  await writer
    .run(job.data.tenantId, async (ctx) => {
      const p = new Params();
      const { rowCount } = await ctx.client.query(
        `UPDATE episodes SET learning_state = 'skipped' WHERE tenant_id = ${p.add(job.data.tenantId)} AND id = ${p.add(job.data.episodeId)} AND learning_state = 'queued'`,
        p.values,
      );
      if (rowCount)
        ctx.events.push({
          type: 'patterns.extraction_skipped',
          episodeId: job.data.episodeId,
          payload: { reason: 'failed', attempts: (job.retryCount ?? 0) + 1, message },
        });
    })
    .catch(() => undefined); // the episode stays queued; nothing else is lost
}

async function sweepPending(pool: pg.Pool, enqueue: (job: ExtractJob) => Promise<EnqueueResult>): Promise<number> {
  const p = new Params();
  const rows = await queryRows<ExtractJob>(
    pool,
    `SELECT tenant_id AS "tenantId", id AS "episodeId" FROM episodes
      WHERE learning_state = 'pending' AND ended_at < now() - make_interval(secs => ${p.add(SWEEP_AFTER_SECONDS)}) ORDER BY ended_at LIMIT ${SWEEP_LIMIT}`,
    p,
  );
  let queued = 0;
  for (const job of rows) queued += (await enqueue(job)) === 'queued' ? 1 : 0;
  return queued;
}
