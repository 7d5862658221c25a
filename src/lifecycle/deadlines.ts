// Wall time is enforced even when the agent goes silent: each episode with a wall-time budget gets
// a job due at its deadline, and a periodic sweep catches any deadline whose job was lost.

import type pg from 'pg';
import type { Logger } from 'pino';
import { isUuid } from '../core/ids.ts';
import { Params } from '../db/sql.ts';
import { lockEpisode } from '../episodes/row.ts';
import { handlerOf, type JobQueue, underSetupLock } from '../jobs/queue.ts';
import type { Writer } from '../write.ts';
import { stopForBudget } from './budget-stop.ts';

export const DEADLINE_JOB = 'episode-deadline';
const DEADLINE_SWEEP_JOB = 'episode-deadline-sweep';
const SWEEP_LIMIT = 500;

interface DeadlineJob {
  tenantId: string;
  episodeId: string;
}

/** Stops the episode with budget_exhausted{wall_time} if it is still live and past its deadline. */
async function enforceDeadline(writer: Writer, job: DeadlineJob): Promise<boolean> {
  return writer.run(job.tenantId, async (ctx) => {
    const ep = await lockEpisode(ctx.client, ctx.tenantId, job.episodeId);
    if (ep.status !== 'running' && ep.status !== 'blocked') return false;
    if (ep.historical || ep.budget.maxWallMs === null || ctx.now.getTime() - ep.startedAt.getTime() < ep.budget.maxWallMs) return false;
    await stopForBudget(ctx.client, ep, 'wall_time', ctx.now, ctx.events);
    return true;
  });
}

/**
 * Stops a live episode that is past its deadline, as the deadline job would; one indexed read when
 * nothing is due. Calls that change an episode run this first (the budget is enforced, not advised).
 */
export async function stopIfOverdue(pool: pg.Pool, writer: Writer, tenantId: string, episodeId: string, now = new Date()): Promise<void> {
  if (!isUuid(episodeId)) return;
  const p = new Params();
  const { rowCount } = await pool.query(
    `SELECT 1 FROM episodes WHERE tenant_id = ${p.add(tenantId)} AND id = ${p.add(episodeId)} AND status IN ('running', 'blocked') AND NOT historical
        AND started_at + max_wall_ms * interval '1 millisecond' <= ${p.add(now)}`,
    p.values,
  );
  if (rowCount) await enforceDeadline(writer, { tenantId, episodeId });
}

async function sweepDeadlines(pool: pg.Pool, writer: Writer): Promise<number> {
  const { rows } = await pool.query<DeadlineJob>(
    `SELECT tenant_id AS "tenantId", id AS "episodeId" FROM episodes
      WHERE status IN ('running', 'blocked') AND deadline_at <= now() ORDER BY deadline_at LIMIT ${SWEEP_LIMIT}`,
  );
  let stopped = 0;
  for (const job of rows) stopped += (await enforceDeadline(writer, job)) ? 1 : 0;
  return stopped;
}

export async function scheduleDeadline(queue: JobQueue, job: DeadlineJob, deadlineAt: Date) {
  await queue.send(DEADLINE_JOB, job, { startAfter: deadlineAt, singletonKey: job.episodeId });
}

export async function startDeadlineWorkers(queue: JobQueue, pool: pg.Pool, writer: Writer, log: Logger, pollSeconds: number) {
  await underSetupLock(pool, async () => {
    await queue.createQueue(DEADLINE_JOB);
    await queue.createQueue(DEADLINE_SWEEP_JOB);
    await queue.schedule(DEADLINE_SWEEP_JOB, '* * * * *');
  });
  const enforce = handlerOf(queue, async (jobs: { data: DeadlineJob }[]) => {
    for (const job of jobs) {
      if (await enforceDeadline(writer, job.data)) log.info({ episodeId: job.data.episodeId }, 'episode stopped at its wall-time deadline');
    }
  });
  await queue.work<DeadlineJob>(DEADLINE_JOB, { pollingIntervalSeconds: pollSeconds, batchSize: 20 }, enforce);
  const sweep = handlerOf(queue, async () => {
    const stopped = await sweepDeadlines(pool, writer);
    if (stopped) log.info({ stopped }, 'deadline sweep stopped overdue episodes');
  });
  await queue.work(DEADLINE_SWEEP_JOB, { pollingIntervalSeconds: pollSeconds }, sweep);
}
