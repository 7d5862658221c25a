// Traces held for their log events. The official GenAI instrumentations send a model call's
// messages as log events to /v1/logs, and an SDK flushing its tracer and logger providers side by
// side may deliver the spans first. A step is immutable once journaled, so a trace whose model calls
// carry no messages yet is not settled at once: its spans wait (pending.ts) until its log events
// come (the logs door settles it then) or until this job, queued for after OTLP_LOG_EVENTS_WAIT_MS,
// settles it with whatever events came (content capture may be off: then none ever will). The job
// is on the queue and the spans in the database, so a restart settles them still.
import type pg from 'pg';
import type { Logger } from 'pino';
import { handlerOf, type JobQueue, underSetupLock } from '../jobs/queue.ts';

const HELD_TRACE_JOB = 'otlp-held-trace';

interface HeldTraceJob {
  tenantId: string;
  traceId: string;
}

/** Settles the trace after `waitMs` unless its log events have settled it before (settling twice stores nothing twice). */
export async function settleLater(queue: JobQueue, tenantId: string, traceId: string, waitMs: number): Promise<void> {
  await queue.send(HELD_TRACE_JOB, { tenantId, traceId } satisfies HeldTraceJob, { startAfter: new Date(Date.now() + waitMs) });
}

/** Settles the held traces of due jobs, each tenant's in one call (in their start order, a run's calls in turn). */
export async function startHeldTraceSettlers(
  queue: JobQueue,
  pool: pg.Pool,
  log: Logger,
  pollSeconds: number,
  settle: (tenantId: string, traceIds: string[]) => Promise<unknown>,
): Promise<void> {
  await underSetupLock(pool, () => queue.createQueue(HELD_TRACE_JOB));
  const handle = handlerOf(queue, async (jobs: { data: HeldTraceJob }[]) => {
    const byTenant = new Map<string, string[]>();
    for (const { data } of jobs) byTenant.set(data.tenantId, [...(byTenant.get(data.tenantId) ?? []), data.traceId]);
    for (const [tenantId, traceIds] of byTenant) {
      await settle(tenantId, traceIds);
      log.debug({ tenantId, traces: traceIds.length }, 'OTLP traces settled after waiting for their log events');
    }
  });
  await queue.work<HeldTraceJob>(HELD_TRACE_JOB, { pollingIntervalSeconds: pollSeconds, batchSize: 20 }, handle);
}
