// Asynchronous pattern extraction on the PostgreSQL-backed queue (pg-boss), so any server process
// runs it and a job survives restarts. An ending with pattern candidates leaves the episode
// `pending`; after its commit this process queues the job (`queued`) unless the queue already holds
// maxQueueDepth waiting jobs, in which case the episode is `skipped` with a
// `patterns.extraction_skipped` ledger event that says why. A sweep queues any episode left pending
// (a process that stopped between commit and enqueue). Failed runs are retried with backoff.

import type pg from 'pg';
import type { Logger } from 'pino';
import { NotFoundError } from '../core/errors.ts';
import { must } from '../core/must.ts';
import type { WriteContext } from '../core/write-context.ts';
import { withTransaction } from '../db/tx.ts';
import { inTransaction, type JobQueue, underSetupLock } from '../jobs/queue.ts';
import type { StoredLedgerEvent } from '../ledger/hash.ts';
import type { Writer } from '../write.ts';
import { extractEpisodePatterns } from './extract.ts';

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

/** Episodes this commit ended with extraction pending (a synchronous run in the same commit already did it). */
function pendingExtractions(events: readonly StoredLedgerEvent[]): string[] {
  const extracted = new Set(events.filter((e) => e.type === 'patterns.extracted').map((e) => e.episodeId));
  return events
    .filter((e) => (e.type === 'episode.completed' || e.type === 'episode.failed') && e.episodeId && !extracted.has(e.episodeId))
    .filter((e) => (e.payload as { experience?: { extraction?: string } } | null)?.experience?.extraction === 'pending')
    .map((e) => must(e.episodeId));
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
  const wake = () => workerIds.forEach((id) => queue.notifyWorker(id));
  for (let i = 0; i < options.workers; i += 1) {
    let self = '';
    self = await queue.work<ExtractJob>(EXTRACT_JOB, { pollingIntervalSeconds: options.pollSeconds, batchSize: EXTRACT_BATCH }, async (jobs) => {
      await track(runBatch(queue, writer, jobs));
      // The history grew: refit the learned ranker of tenants whose model is due (retrieval/ranker-jobs.ts).
      await options
        .onHistoryGrew?.(jobs.map((j) => j.data.tenantId))
        .catch((err: unknown) => log.warn({ err }, 'ranker refit not queued; the next batch retries'));
      // A full batch means more are waiting: fetch again now rather than after the polling interval.
      if (jobs.length === EXTRACT_BATCH) queue.notifyWorker(self);
    });
    workerIds.push(self);
  }
  const enqueue = async (job: ExtractJob) => {
    const result = await enqueueExtraction(queue, pool, writer, options.maxQueueDepth, job);
    // Jobs queued by this process start at once here; other processes find them by polling.
    if (result === 'queued') wake();
    return result;
  };
  await queue.work(EXTRACT_SWEEP_JOB, { pollingIntervalSeconds: options.pollSeconds }, async () => {
    const queued = await sweepPending(pool, enqueue);
    if (queued) log.info({ queued }, 'learning sweep queued pending pattern extractions');
  });

  writer.onCommit((tenantId, events) => {
    for (const episodeId of pendingExtractions(events)) {
      void track(enqueue({ tenantId, episodeId }).catch((err) => log.warn({ err, episodeId }, 'pattern extraction not queued; the sweep retries it')));
    }
  });
  return { enqueue, drain: async () => void (await Promise.allSettled([...inFlight])) };
}

/** Queues the episode's extraction (state pending → queued) unless the queue is full (→ skipped, with a ledger event). */
async function enqueueExtraction(queue: JobQueue, pool: pg.Pool, writer: Writer, maxQueueDepth: number, job: ExtractJob): Promise<EnqueueResult> {
  const depth = await queue.getQueueSize(EXTRACT_JOB);
  if (depth >= maxQueueDepth) {
    return writer.run(job.tenantId, async (ctx) => {
      const { rowCount } = await ctx.client.query(
        `UPDATE episodes SET learning_state = 'skipped' WHERE tenant_id = $1 AND id = $2 AND learning_state = 'pending'`,
        [job.tenantId, job.episodeId],
      );
      if (!rowCount) return 'not_pending';
      ctx.events.push({ type: 'patterns.extraction_skipped', episodeId: job.episodeId, payload: { reason: 'queue_full', queueDepth: depth, maxQueueDepth } });
      return 'skipped';
    });
  }
  return withTransaction(pool, async (client) => {
    const { rowCount } = await client.query(`UPDATE episodes SET learning_state = 'queued' WHERE tenant_id = $1 AND id = $2 AND learning_state = 'pending'`, [
      job.tenantId,
      job.episodeId,
    ]);
    if (!rowCount) return 'not_pending';
    // The job commits with the state change: queued means a job exists.
    await queue.send(EXTRACT_JOB, job, { ...RETRY, db: inTransaction(client) });
    return 'queued';
  });
}

type FetchedJob = { id: string; data: ExtractJob };

/**
 * Runs a fetched batch: each tenant's jobs one after another in one transaction (one ledger append
 * and one commit for all of them, as if they ran in a row). If that transaction fails, each job
 * runs alone, so only the jobs that fail are failed (and retried), not the batch.
 */
async function runBatch(queue: JobQueue, writer: Writer, jobs: FetchedJob[]) {
  const byTenant = new Map<string, FetchedJob[]>();
  for (const job of jobs) byTenant.set(job.data.tenantId, [...(byTenant.get(job.data.tenantId) ?? []), job]);
  const failed: string[] = [];
  let lastError: unknown = null;
  for (const [tenantId, group] of byTenant) {
    const together = await writer
      .run(tenantId, async (ctx) => {
        for (const job of group) await extractUnlessGone(ctx, job.data.episodeId);
      })
      .then(
        () => true,
        () => false,
      );
    if (together) continue;
    for (const job of group) {
      await runExtraction(writer, job.data).catch((err: unknown) => {
        failed.push(job.id);
        lastError = err;
      });
    }
  }
  const data = { message: lastError instanceof Error ? lastError.message : String(lastError) };
  for (const id of failed) await queue.fail(EXTRACT_JOB, id, data);
}

async function runExtraction(writer: Writer, job: ExtractJob) {
  await writer.run(job.tenantId, (ctx) => extractUnlessGone(ctx, job.episodeId)); // a failure: pg-boss retries it
}

/** The episode (or its tenant) may have been deleted since it was queued: then there is nothing to learn. */
async function extractUnlessGone(ctx: WriteContext, episodeId: string): Promise<void> {
  try {
    await extractEpisodePatterns(ctx, episodeId, 'async');
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
  }
}

async function sweepPending(pool: pg.Pool, enqueue: (job: ExtractJob) => Promise<EnqueueResult>): Promise<number> {
  const { rows } = await pool.query<ExtractJob>(
    `SELECT tenant_id AS "tenantId", id AS "episodeId" FROM episodes
      WHERE learning_state = 'pending' AND ended_at < now() - make_interval(secs => $1) ORDER BY ended_at LIMIT ${SWEEP_LIMIT}`,
    [SWEEP_AFTER_SECONDS],
  );
  let queued = 0;
  for (const job of rows) queued += (await enqueue(job)) === 'queued' ? 1 : 0;
  return queued;
}
