// Retention (docs/LEDGER.md §3.4). Every sweep forgets the content of the steps of runs that ended
// more than their tenant's step period ago, and those whole runs past its run period; a tenant's
// period is its own (tenant-retention.ts) or else the server's STEP_RETENTION_DAYS / RUN_RETENTION_DAYS
// (forget.ts: texts, outcome, critique, reward, reflection, checkpoints, steps, index,
// patterns). A run at a time, each in its own transaction with its events (byRetention names the
// setting). A run still going is never touched. Several processes may sweep at once: each run's
// episode is locked and only what is not forgotten yet is named, so nothing is forgotten twice.
import type pg from 'pg';
import type { Logger } from 'pino';
import { Params, queryRows } from '../db/sql.ts';
import { forgetStepsRecorded } from '../steps/forget.ts';
import type { Writer } from '../write.ts';
import { forgetEpisodeRecorded } from './forget.ts';

/** Runs forgotten per sweep at most: a first sweep over a large history continues at the next. */
const RUNS_PER_SWEEP = 500;

export interface RetentionSweep {
  /** Runs whose step content was forgotten (STEP_RETENTION_DAYS). */
  runs: number;
  steps: number;
  /** Runs forgotten whole (RUN_RETENTION_DAYS). */
  episodes: number;
}

export interface RetentionSettings {
  /** STEP_RETENTION_DAYS, the default of tenants without their own: null keeps step content. */
  days: number | null;
  /** RUN_RETENTION_DAYS, the default of tenants without their own: null keeps runs. */
  runDays: number | null;
  sweepMs: number;
}

/** A run due, with the period its tenant applies (its own, or the server's). */
interface DueRun {
  tenant_id: string;
  id: string;
  days: number;
}

export class Retention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<RetentionSweep> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly writer: Writer,
    private readonly log: Logger,
    readonly opts: RetentionSettings,
  ) {}

  /** Always: a tenant may set its own periods at any time, whatever the server's. */
  start(): void {
    this.timer = setInterval(() => {
      this.sweep().catch((err: unknown) => this.log.warn({ err }, 'retention sweep failed; the next one retries'));
    }, this.opts.sweepMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Forgets what ended before `now` minus each retention period (one sweep at a time per process). */
  sweep(now = new Date()): Promise<RetentionSweep> {
    this.running ??= this.sweepOnce(now).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async sweepOnce(now: Date): Promise<RetentionSweep> {
    // Whole runs first: a run past both periods is forgotten once, with both events.
    const episodes = await this.forgetRuns(now);
    const { runs, steps } = await this.forgetStepContent(now);
    return { runs, steps, episodes };
  }

  /** Ended runs past the period of their tenant (`column`, else the server's `fallback`) that `where` also selects. */
  private async due(now: Date, column: 'run_retention_days' | 'step_retention_days', fallback: number | null, where: string): Promise<DueRun[]> {
    const p = new Params();
    return queryRows<DueRun>(
      this.pool,
      `SELECT e.tenant_id, e.id, r.days FROM tenants t
         CROSS JOIN LATERAL (SELECT COALESCE(t.${column}, ${p.add(fallback)}::int) AS days) r
         JOIN episodes e ON e.tenant_id = t.id
        WHERE r.days IS NOT NULL AND e.ended_at < ${p.add(now)}::timestamptz - make_interval(days => r.days) AND ${where}
        ORDER BY e.ended_at LIMIT ${p.add(RUNS_PER_SWEEP)}`,
      p,
    );
  }

  private async forgetRuns(now: Date): Promise<number> {
    const due = await this.due(now, 'run_retention_days', this.opts.runDays, 'e.forgotten_at IS NULL');
    for (const run of due) {
      const reason = reasonOf(run.days);
      await this.writer.run(run.tenant_id, (w) => forgetEpisodeRecorded(w, { episodeId: run.id, reason }, { retentionDays: run.days }));
    }
    if (due.length) this.log.info({ runs: due.length }, 'runs past their retention forgotten');
    return due.length;
  }

  private async forgetStepContent(now: Date): Promise<{ runs: number; steps: number }> {
    const due = await this.due(
      now,
      'step_retention_days',
      this.opts.days,
      'EXISTS (SELECT 1 FROM steps s WHERE s.tenant_id = e.tenant_id AND s.episode_id = e.id AND s.forgotten_at IS NULL)',
    );
    let steps = 0;
    for (const run of due) {
      const reason = reasonOf(run.days);
      const result = await this.writer.run(run.tenant_id, (w) =>
        forgetStepsRecorded(w, { episodeId: run.id, stepNumbers: null, reason }, { retentionDays: run.days }),
      );
      steps += result.forgotten.length;
    }
    if (due.length) this.log.info({ runs: due.length, steps }, 'step content past its retention forgotten');
    return { runs: due.length, steps };
  }
}

const reasonOf = (days: number) => `retention: the run ended more than ${days} days ago`;
