// Retention of step content (STEP_RETENTION_DAYS, docs/LEDGER.md §3.4): every sweep forgets the
// content of the steps of runs that ended more than the retention period ago, a run at a time,
// each in its own transaction with its steps.forgotten event (byRetention names the setting). A
// run still going is never touched. Several processes may sweep at once: each run's episode is
// locked and only steps not forgotten yet are named, so a step is forgotten once.
import type pg from 'pg';
import type { Logger } from 'pino';
import { Params, queryRows } from '../db/sql.ts';
import type { Writer } from '../write.ts';
import { forgetStepsRecorded } from './forget.ts';

const DAY_MS = 86_400_000;
/** Runs forgotten per sweep at most: a first sweep over a large history continues at the next. */
const RUNS_PER_SWEEP = 500;

export interface RetentionSweep {
  runs: number;
  steps: number;
}

export class StepRetention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<RetentionSweep> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly writer: Writer,
    private readonly log: Logger,
    readonly opts: { days: number | null; sweepMs: number },
  ) {}

  start(): void {
    if (this.opts.days === null) return;
    this.timer = setInterval(() => {
      this.sweep().catch((err: unknown) => this.log.warn({ err }, 'retention sweep failed; the next one retries'));
    }, this.opts.sweepMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Forgets the step content of runs ended before `now` minus the retention period (one sweep at a time per process). */
  sweep(now = new Date()): Promise<RetentionSweep> {
    this.running ??= this.sweepOnce(now).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async sweepOnce(now: Date): Promise<RetentionSweep> {
    const days = this.opts.days;
    if (days === null) return { runs: 0, steps: 0 };
    const p = new Params();
    const due = await queryRows<{ tenant_id: string; id: string }>(
      this.pool,
      `SELECT e.tenant_id, e.id FROM episodes e
        WHERE e.ended_at < ${p.add(new Date(now.getTime() - days * DAY_MS))}
          AND EXISTS (SELECT 1 FROM steps s WHERE s.tenant_id = e.tenant_id AND s.episode_id = e.id AND s.forgotten_at IS NULL)
        ORDER BY e.ended_at LIMIT ${p.add(RUNS_PER_SWEEP)}`,
      p,
    );
    let steps = 0;
    for (const run of due) {
      const result = await this.writer.run(run.tenant_id, (w) =>
        forgetStepsRecorded(
          w,
          { episodeId: run.id, stepNumbers: null, reason: `retention: the run ended more than ${days} days ago` },
          { retentionDays: days },
        ),
      );
      steps += result.forgotten.length;
    }
    if (due.length) this.log.info({ runs: due.length, steps, days }, 'step content past its retention forgotten');
    return { runs: due.length, steps };
  }
}
