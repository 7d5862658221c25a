// Retention (docs/LEDGER.md §3.4). With STEP_RETENTION_DAYS, every sweep forgets the content of the
// steps of runs that ended more than that many days ago; with RUN_RETENTION_DAYS, it forgets those
// whole runs (forget.ts: texts, outcome, critique, reward, reflection, checkpoints, steps, index,
// patterns). A run at a time, each in its own transaction with its events (byRetention names the
// setting). A run still going is never touched. Several processes may sweep at once: each run's
// episode is locked and only what is not forgotten yet is named, so nothing is forgotten twice.
import type pg from 'pg';
import type { Logger } from 'pino';
import { Params, queryRows } from '../db/sql.ts';
import { forgetStepsRecorded } from '../steps/forget.ts';
import type { Writer } from '../write.ts';
import { forgetEpisodeRecorded } from './forget.ts';

const DAY_MS = 86_400_000;
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
  /** STEP_RETENTION_DAYS: null keeps step content. */
  days: number | null;
  /** RUN_RETENTION_DAYS: null keeps runs. */
  runDays: number | null;
  sweepMs: number;
}

const before = (now: Date, days: number) => new Date(now.getTime() - days * DAY_MS);

export class Retention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<RetentionSweep> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly writer: Writer,
    private readonly log: Logger,
    readonly opts: RetentionSettings,
  ) {}

  start(): void {
    if (this.opts.days === null && this.opts.runDays === null) return;
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
    const episodes = this.opts.runDays === null ? 0 : await this.forgetRuns(now, this.opts.runDays);
    const { runs, steps } = this.opts.days === null ? { runs: 0, steps: 0 } : await this.forgetStepContent(now, this.opts.days);
    return { runs, steps, episodes };
  }

  private async due(where: string, p: Params): Promise<Array<{ tenant_id: string; id: string }>> {
    return queryRows(this.pool, `SELECT e.tenant_id, e.id FROM episodes e WHERE ${where} ORDER BY e.ended_at LIMIT ${p.add(RUNS_PER_SWEEP)}`, p);
  }

  private async forgetRuns(now: Date, days: number): Promise<number> {
    const p = new Params();
    const due = await this.due(`e.ended_at < ${p.add(before(now, days))} AND e.forgotten_at IS NULL`, p);
    const reason = `retention: the run ended more than ${days} days ago`;
    for (const run of due) {
      await this.writer.run(run.tenant_id, (w) => forgetEpisodeRecorded(w, { episodeId: run.id, reason }, { retentionDays: days }));
    }
    if (due.length) this.log.info({ runs: due.length, days }, 'runs past their retention forgotten');
    return due.length;
  }

  private async forgetStepContent(now: Date, days: number): Promise<{ runs: number; steps: number }> {
    const p = new Params();
    const due = await this.due(
      `e.ended_at < ${p.add(before(now, days))}
       AND EXISTS (SELECT 1 FROM steps s WHERE s.tenant_id = e.tenant_id AND s.episode_id = e.id AND s.forgotten_at IS NULL)`,
      p,
    );
    let steps = 0;
    const reason = `retention: the run ended more than ${days} days ago`;
    for (const run of due) {
      const result = await this.writer.run(run.tenant_id, (w) =>
        forgetStepsRecorded(w, { episodeId: run.id, stepNumbers: null, reason }, { retentionDays: days }),
      );
      steps += result.forgotten.length;
    }
    if (due.length) this.log.info({ runs: due.length, steps, days }, 'step content past its retention forgotten');
    return { runs: due.length, steps };
  }
}
