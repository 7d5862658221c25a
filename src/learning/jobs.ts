// Asynchronous pattern extraction on the PostgreSQL-backed queue (pg-boss), so any server process
// runs it and a job survives restarts. An ending with pattern candidates leaves the episode
// `pending`; after its commit this process queues the job (`queued`) unless the queue already holds
// maxQueueDepth waiting jobs, in which case the episode is `skipped` with a
// `patterns.extraction_skipped` ledger event that says why. A sweep queues any episode left pending
// (a process that stopped between commit and enqueue). Failed runs are retried with backoff.
import type { Logger } from 'pino';
import type pg from 'pg';
import { withTransaction } from '../db/tx.ts';
import { inTransaction, underSetupLock, type JobQueue } from '../jobs/queue.ts';
import type { StoredLedgerEvent } from '../ledger/hash.ts';
import { NotFoundError } from '../schema/errors.ts';
import type { Writer } from '../write.ts';
import { extractEpisodePatterns } from './extract.ts';

export const EXTRACT_JOB = 'learning-extract-patterns';
export const EXTRACT_SWEEP_JOB = 'learning-extract-sweep';
const RETRY = { retryLimit: 5, retryDelay: 2, retryBackoff: true, expireInSeconds: 300 } as const;
const SWEEP_LIMIT = 500;
const SWEEP_AFTER_SECONDS = 60;

export interface LearningQueueOptions {
  /** Waiting jobs (created or retrying) beyond which new extractions are skipped, with a ledger event. */
  maxQueueDepth: number;
  /** Extraction workers in this process. */
  workers: number;
  pollSeconds: number;
}

export interface ExtractJob {
  tenantId: string;
  episodeId: string;
}

export type EnqueueResult = 'queued' | 'skipped' | 'not_pending';

export interface LearningJobs {
  enqueue(job: ExtractJob): Promise<EnqueueResult>;
  /** Waits for the enqueues started by commits of this process. */
  drain(): Promise<void>;
}

/** Episodes this commit ended with extraction pending (a synchronous run in the same commit already did it). */
export function pendingExtractions(events: readonly StoredLedgerEvent[]): string[] {
  const extracted = new Set(events.filter((e) => e.type === 'patterns.extracted').map((e) => e.episodeId));
  return events
    .filter((e) => (e.type === 'episode.completed' || e.type === 'episode.failed') && e.episodeId && !extracted.has(e.episodeId))
    .filter((e) => (e.payload as { experience?: { extraction?: string } } | null)?.experience?.extraction === 'pending')
    .map((e) => e.episodeId!);
}

export async function startLearningWorkers(queue: JobQueue, pool: pg.Pool, writer: Writer, log: Logger, options: LearningQueueOptions): Promise<LearningJobs> {
  await underSetupLock(pool, async () => {
    await queue.createQueue(EXTRACT_JOB, { name: EXTRACT_JOB, ...RETRY });
    await queue.createQueue(EXTRACT_SWEEP_JOB, { name: EXTRACT_SWEEP_JOB });
    await queue.schedule(EXTRACT_SWEEP_JOB, '* * * * *');
  });
  for (let i = 0; i < options.workers; i += 1) {
    await queue.work<ExtractJob>(EXTRACT_JOB, { pollingIntervalSeconds: options.pollSeconds }, async (jobs) => {
      for (const job of jobs) await runExtraction(writer, job.data);
    });
  }
  const enqueue = (job: ExtractJob) => enqueueExtraction(queue, pool, writer, options.maxQueueDepth, job);
  await queue.work(EXTRACT_SWEEP_JOB, { pollingIntervalSeconds: options.pollSeconds }, async () => {
    const queued = await sweepPending(pool, enqueue);
    if (queued) log.info({ queued }, 'learning sweep queued pending pattern extractions');
  });

  const inFlight = new Set<Promise<unknown>>();
  writer.onCommit((tenantId, events) => {
    for (const episodeId of pendingExtractions(events)) {
      const running = enqueue({ tenantId, episodeId }).catch((err) => log.warn({ err, episodeId }, 'pattern extraction not queued; the sweep retries it'));
      inFlight.add(running);
      void running.finally(() => inFlight.delete(running));
    }
  });
  return { enqueue, drain: async () => void (await Promise.allSettled([...inFlight])) };
}

/** Queues the episode's extraction (state pending → queued) unless the queue is full (→ skipped, with a ledger event). */
export async function enqueueExtraction(queue: JobQueue, pool: pg.Pool, writer: Writer, maxQueueDepth: number, job: ExtractJob): Promise<EnqueueResult> {
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
    const { rowCount } = await client.query(
      `UPDATE episodes SET learning_state = 'queued' WHERE tenant_id = $1 AND id = $2 AND learning_state = 'pending'`,
      [job.tenantId, job.episodeId],
    );
    if (!rowCount) return 'not_pending';
    // The job commits with the state change: queued means a job exists.
    await queue.send(EXTRACT_JOB, job, { ...RETRY, db: inTransaction(client) });
    return 'queued';
  });
}

async function runExtraction(writer: Writer, job: ExtractJob) {
  try {
    await writer.run(job.tenantId, (ctx) => extractEpisodePatterns(ctx, job.episodeId, 'async'));
  } catch (err) {
    if (err instanceof NotFoundError) return; // the episode (or its tenant) was deleted: nothing to learn
    throw err; // pg-boss retries it
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
