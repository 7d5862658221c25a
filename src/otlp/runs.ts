// Runs without an agent root span. An instrumentation library alone (no span of the user's around
// the agent loop) exports each model call as a trace of its own; those calls are one run when they
// share a run key, and the run is one episode, completed once it has been idle for the idle gap.
// The key: the attribute OTLP_RUN_ATTRIBUTE names (default episodic.run.id), else session.id, else
// gen_ai.conversation.id (span or resource); else the service, whose calls belong together only
// while they come less than the idle gap apart (by their span times). docs/OTLP.md says the same.
import type pg from 'pg';
import type { Logger } from 'pino';
import { IllegalTransitionError } from '../core/errors.ts';
import { Params, queryRows } from '../db/sql.ts';
import { handlerOf, type JobQueue, underSetupLock } from '../jobs/queue.ts';
import { complete } from '../lifecycle/calls.ts';
import type { Writer } from '../write.ts';
import { text } from './genai.ts';
import { statedRunOutcome } from './run-outcome.ts';
import type { OtlpSpan } from './spans.ts';

const RUN_CLOSE_JOB = 'otlp-run-close';

/** A run's key, and whether it is the service's (joined only within the idle gap). */
export interface RunKey {
  key: string;
  byService: boolean;
}

/** Where a model call without an agent root belongs. Pure. */
export function runKeyOf(span: OtlpSpan, attribute: string): RunKey {
  const read = (name: string) => text(span.attributes[name]) ?? text(span.resource[name]);
  for (const [name, prefix] of [
    [attribute, 'run'],
    ['session.id', 'session'],
    ['gen_ai.conversation.id', 'conversation'],
  ] as const) {
    const value = read(name)?.trim();
    if (value) return { key: `${prefix}:${value.slice(0, 200)}`, byService: false };
  }
  return { key: `service:${(text(span.resource['service.name']) ?? 'unknown_service').slice(0, 200)}`, byService: true };
}

export interface OpenRun {
  episodeId: string;
  lastSpanEndMs: number;
}

export async function openRunOf(pool: pg.Pool, tenantId: string, runKey: string): Promise<OpenRun | null> {
  const p = new Params();
  const [row] = await queryRows<{ episode_id: string; last_span_end_ms: string }>(
    pool,
    `SELECT episode_id, last_span_end_ms FROM otlp_open_runs WHERE tenant_id = ${p.add(tenantId)} AND run_key = ${p.add(runKey)}`,
    p,
  );
  return row ? { episodeId: row.episode_id, lastSpanEndMs: Number(row.last_span_end_ms) } : null;
}

/** The run took a call now: it stays open for another idle gap (its close job checks again then). */
export async function touchRun(queue: JobQueue, pool: pg.Pool, tenantId: string, runKey: string, run: OpenRun, idleMs: number): Promise<void> {
  const p = new Params();
  await pool.query(
    `INSERT INTO otlp_open_runs (tenant_id, run_key, episode_id, last_span_end_ms, last_seen_at)
     VALUES (${p.add(tenantId)}, ${p.add(runKey)}, ${p.add(run.episodeId)}, ${p.add(run.lastSpanEndMs)}, now())
     ON CONFLICT (tenant_id, run_key) DO UPDATE SET episode_id = excluded.episode_id, last_seen_at = now(),
        last_span_end_ms = GREATEST(otlp_open_runs.last_span_end_ms, excluded.last_span_end_ms)`,
    p.values,
  );
  await queue.send(RUN_CLOSE_JOB, { tenantId, runKey }, { startAfter: new Date(Date.now() + idleMs) });
}

/** Completes a run's episode (with the outcome a call stated, else unknown: run-outcome.ts) and forgets the run. */
export async function closeRun(pool: pg.Pool, writer: Writer, tenantId: string, runKey: string, episodeId: string, endedAtMs: number): Promise<void> {
  const outcome = await statedRunOutcome(pool, tenantId, episodeId);
  try {
    // The lifecycle's completion, as every door makes it: checked, after the episode's deadline is enforced.
    await complete({ db: { pool }, writer }, tenantId, episodeId, outcome, { extractPatterns: 'async', usedRetrievals: [], endedAt: new Date(endedAtMs) });
  } catch (err) {
    // Completed already (another process closed it, or a later root span did).
    if (!(err instanceof IllegalTransitionError)) throw err;
  }
  const p = new Params();
  await pool.query(
    `DELETE FROM otlp_open_runs WHERE tenant_id = ${p.add(tenantId)} AND run_key = ${p.add(runKey)} AND episode_id = ${p.add(episodeId)}`,
    p.values,
  );
}

interface CloseJob {
  tenantId: string;
  runKey: string;
}

/** Closes the run if it has been idle for the gap; a run that took a call since is left to that call's job. */
async function closeIfIdle(pool: pg.Pool, writer: Writer, job: CloseJob, idleMs: number): Promise<boolean> {
  const p = new Params();
  const [row] = await queryRows<{ episode_id: string; last_span_end_ms: string }>(
    pool,
    `SELECT episode_id, last_span_end_ms FROM otlp_open_runs WHERE tenant_id = ${p.add(job.tenantId)} AND run_key = ${p.add(job.runKey)}
        AND last_seen_at <= now() - ${p.add(idleMs)} * interval '1 millisecond'`,
    p,
  );
  if (!row) return false;
  await closeRun(pool, writer, job.tenantId, job.runKey, row.episode_id, Number(row.last_span_end_ms));
  return true;
}

export async function startRunClosers(queue: JobQueue, pool: pg.Pool, writer: Writer, log: Logger, pollSeconds: number, idleMs: number) {
  await underSetupLock(pool, () => queue.createQueue(RUN_CLOSE_JOB));
  const close = handlerOf(queue, async (jobs: { data: CloseJob }[]) => {
    for (const job of jobs) {
      if (await closeIfIdle(pool, writer, job.data, idleMs)) log.info({ runKey: job.data.runKey }, 'OTLP run ended after its idle gap');
    }
  });
  await queue.work<CloseJob>(RUN_CLOSE_JOB, { pollingIntervalSeconds: pollSeconds, batchSize: 20 }, close);
}
