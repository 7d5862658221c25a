// Refitting the learned ranker (ranker-training.ts) on the job queue: after an extraction batch
// (the learning queue's onHistoryGrew and an import batch's afterCommit, which services.ts wires to
// queueDue), each of its tenants whose history has grown by RANKER_TRAINING.refitEvery
// episodes since its last fit (or reached the minimum for a first one) gets a fit job. Until that fit
// is stored every batch finds the tenant due again, so the job is throttled per tenant: at most one
// per REFIT_SLOT_SECONDS, and one more in the next slot to catch up after a burst (an import); each
// starts REFIT_DELAY_SECONDS after it is queued, so a burst ends before its fit reads the history.
import type pg from 'pg';
import type { Logger } from 'pino';
import { handlerOf, type JobQueue, underSetupLock } from '../jobs/queue.ts';
import { refitDue } from './ranker-store.ts';
import { trainRankingModel } from './ranker-training.ts';

export const RANKER_JOB = 'learning-fit-ranker';
/** pg-boss throttling slot of a tenant's fit jobs (singletonSeconds with singletonNextSlot). */
const REFIT_SLOT_SECONDS = 60;
/**
 * A fit starts this long after it is queued, so a burst of endings (an import) finishes first and
 * the fit sees all of it: started at once, the first fit of an import ran during the import on a
 * fraction of its runs (6-7 s of PostgreSQL's CPU on the development set) and was superseded.
 */
const REFIT_DELAY_SECONDS = 30;

export interface RankerJob {
  tenantId: string;
}

export interface RankerRefits {
  /** Queues a fit for each of these tenants whose model is due; returns the tenants queued. */
  queueDue(tenantIds: Iterable<string>): Promise<string[]>;
}

/** Creates the queue (under the setup lock, as the other queues), starts its worker. */
export async function startRankerRefits(queue: JobQueue, pool: pg.Pool, log: Logger, pollSeconds: number): Promise<RankerRefits> {
  await underSetupLock(pool, () => queue.createQueue(RANKER_JOB, { name: RANKER_JOB, retryLimit: 2, retryDelay: 30, expireInSeconds: 900 }));
  await startRankerWorker(queue, pool, log, pollSeconds);
  return { queueDue: (tenantIds) => queueDueRefits(queue, pool, tenantIds) };
}

async function startRankerWorker(queue: JobQueue, pool: pg.Pool, log: Logger, pollSeconds: number): Promise<void> {
  const fit = handlerOf(queue, async ([job]: { data: RankerJob }[]) => {
    if (!job) return;
    const fitted = await trainRankingModel(pool, job.data.tenantId);
    log.info(
      { tenantId: job.data.tenantId, ...(fitted ? { episodes: fitted.episodes, queries: fitted.queries, pairs: fitted.pairs } : { model: 'fixed formula' }) },
      'ranker fitted',
    );
  });
  await queue.work<RankerJob>(RANKER_JOB, { pollingIntervalSeconds: pollSeconds }, fit);
}

/** Queues a fit for each tenant whose model is due (refitDue); returns the tenants queued. */
export async function queueDueRefits(queue: JobQueue, pool: pg.Pool, tenantIds: Iterable<string>): Promise<string[]> {
  const queued: string[] = [];
  for (const tenantId of new Set(tenantIds)) {
    if (!(await refitDue(pool, tenantId))) continue;
    await queue.send(
      RANKER_JOB,
      { tenantId },
      { singletonKey: tenantId, singletonSeconds: REFIT_SLOT_SECONDS, singletonNextSlot: true, startAfter: REFIT_DELAY_SECONDS },
    );
    queued.push(tenantId);
  }
  return queued;
}
