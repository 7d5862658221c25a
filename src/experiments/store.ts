// Experiments in PostgreSQL: the experiments, the arm each episode was assigned, and the measures
// of each arm read back from the episodes (and, for an interleaving, the receipts and their uses).
import type pg from 'pg';
import type { WriteContext } from '../core/write-context.ts';
import type { ExperimentAssignmentsRow, ExperimentsRow } from '../db/rows.ts';
import { insertInto, Params, queryRows } from '../db/sql.ts';
import type { Arm } from './arms.ts';

export type Experiment = ExperimentsRow;

export async function insertExperiment(ctx: WriteContext, row: Omit<ExperimentsRow, 'id' | 'tenant_id'>): Promise<Experiment> {
  const p = new Params();
  const sql = `${insertInto(p, 'experiments', { tenant_id: ctx.tenantId, ...row })} RETURNING *`;
  const [created] = await queryRows<ExperimentsRow>(ctx.client, sql, p);
  return created as Experiment;
}

/** Locks and reads one experiment of the tenant (null: none with that id). */
export async function lockExperiment(ctx: WriteContext, id: string): Promise<Experiment | null> {
  const p = new Params();
  const sql = `SELECT * FROM experiments WHERE tenant_id = ${p.add(ctx.tenantId)} AND id = ${p.add(id)} FOR UPDATE`;
  const [row] = await queryRows<ExperimentsRow>(ctx.client, sql, p);
  return row ?? null;
}

export async function setExperimentStatus(ctx: WriteContext, id: string, status: 'running' | 'paused'): Promise<Experiment> {
  const p = new Params();
  const pausedAt = status === 'paused' ? ctx.now : null;
  const sql = `UPDATE experiments SET status = ${p.add(status)}, paused_at = ${p.add(pausedAt)}
    WHERE tenant_id = ${p.add(ctx.tenantId)} AND id = ${p.add(id)} RETURNING *`;
  const [row] = await queryRows<ExperimentsRow>(ctx.client, sql, p);
  return row as Experiment;
}

export async function readExperiment(db: pg.Pool | pg.ClientBase, tenantId: string, id: string): Promise<Experiment | null> {
  const p = new Params();
  const [row] = await queryRows<ExperimentsRow>(db, `SELECT * FROM experiments WHERE tenant_id = ${p.add(tenantId)} AND id = ${p.add(id)}`, p);
  return row ?? null;
}

export async function listExperiments(db: pg.Pool, tenantId: string): Promise<Experiment[]> {
  const p = new Params();
  return queryRows<ExperimentsRow>(db, `SELECT * FROM experiments WHERE tenant_id = ${p.add(tenantId)} ORDER BY started_at DESC, id LIMIT 100`, p);
}

export interface ExperimentForEpisode {
  /** The oldest running experiment whose scope holds the episode; null: none does. */
  experiment: Experiment | null;
  /** The arm it was assigned already, if it asked before. */
  assigned: Arm | null;
}

/** The running experiment an episode falls in, with its arm if assigned; null when the tenant has no such episode. */
export async function experimentForEpisode(db: pg.Pool, tenantId: string, episodeId: string): Promise<ExperimentForEpisode | null> {
  const p = new Params();
  const sql = `SELECT x.*, a.arm AS assigned
      FROM episodes e
      LEFT JOIN LATERAL (
        SELECT * FROM experiments x
         WHERE x.tenant_id = e.tenant_id AND x.status = 'running'
           AND (x.scope_work_item_id IS NULL OR x.scope_work_item_id = e.work_item_id)
           AND (x.scope_agent IS NULL OR x.scope_agent = e.agent)
           AND (x.scope_task_type IS NULL OR x.scope_task_type = e.task_type)
         ORDER BY x.started_at, x.id LIMIT 1) x ON true
      LEFT JOIN experiment_assignments a ON a.experiment_id = x.id AND a.episode_id = e.id
     WHERE e.tenant_id = ${p.add(tenantId)} AND e.id = ${p.add(episodeId)}`;
  const [row] = await queryRows<NullableColumns<ExperimentsRow> & { assigned: Arm | null }>(db, sql, p);
  if (!row) return null;
  const { assigned, ...experiment } = row;
  return { experiment: experiment.id === null ? null : (experiment as Experiment), assigned };
}

type NullableColumns<Row> = { [K in keyof Row]: Row[K] | null };

/** Records the episode's arm; true when this call recorded it (a concurrent first retrieval may have). */
export async function insertAssignment(ctx: WriteContext, experimentId: string, episodeId: string, arm: Arm): Promise<boolean> {
  const p = new Params();
  const row: ExperimentAssignmentsRow = { experiment_id: experimentId, episode_id: episodeId, tenant_id: ctx.tenantId, arm, assigned_at: ctx.now };
  const { rowCount } = await ctx.client.query(`${insertInto(p, 'experiment_assignments', row)} ON CONFLICT DO NOTHING`, p.values);
  return rowCount === 1;
}

/** The measures of one arm's ended runs (outcome recorded). */
export interface ArmMeasures {
  arm: string;
  assigned: number;
  ended: number;
  successes: number;
  meanReward: number | null;
  meanSteps: number | null;
  meanTokens: number | null;
  meanCost: number | null;
  meanWallMs: number | null;
}

const MEASURES = `count(*)::int AS assigned,
       count(e.outcome_kind)::int AS ended,
       count(*) FILTER (WHERE e.outcome_kind = 'success')::int AS successes,
       avg(e.reward_score) FILTER (WHERE e.outcome_kind IS NOT NULL) AS mean_reward,
       avg(e.step_count) FILTER (WHERE e.outcome_kind IS NOT NULL)::float8 AS mean_steps,
       avg(e.used_tokens) FILTER (WHERE e.outcome_kind IS NOT NULL)::float8 AS mean_tokens,
       avg(e.used_cost) FILTER (WHERE e.outcome_kind IS NOT NULL) AS mean_cost,
       avg(extract(epoch FROM e.ended_at - e.started_at) * 1000) FILTER (WHERE e.outcome_kind IS NOT NULL AND e.times_known)::float8 AS mean_wall_ms`;

interface MeasureRow {
  arm: string;
  assigned: number;
  ended: number;
  successes: number;
  mean_reward: number | null;
  mean_steps: number | null;
  mean_tokens: number | null;
  mean_cost: number | null;
  mean_wall_ms: number | null;
}

const toMeasures = (r: MeasureRow): ArmMeasures => ({
  arm: r.arm,
  assigned: r.assigned,
  ended: r.ended,
  successes: r.successes,
  meanReward: r.mean_reward,
  meanSteps: r.mean_steps,
  meanTokens: r.mean_tokens,
  meanCost: r.mean_cost,
  meanWallMs: r.mean_wall_ms,
});

/** Per arm, the episodes assigned to it and the measures of those that ended. */
export async function armMeasures(db: pg.Pool, tenantId: string, experimentId: string): Promise<ArmMeasures[]> {
  const p = new Params();
  const sql = `SELECT a.arm, ${MEASURES}
      FROM experiment_assignments a JOIN episodes e ON e.tenant_id = a.tenant_id AND e.id = a.episode_id
     WHERE a.tenant_id = ${p.add(tenantId)} AND a.experiment_id = ${p.add(experimentId)}
     GROUP BY a.arm ORDER BY a.arm`;
  return (await queryRows<MeasureRow>(db, sql, p)).map(toMeasures);
}

/** Episodes in the experiment's scope, started since it began, that asked for no experience under it. */
export async function unaskedMeasures(db: pg.Pool, experiment: Experiment): Promise<ArmMeasures> {
  const p = new Params();
  const sql = `SELECT 'unasked' AS arm, ${MEASURES}
      FROM episodes e
     WHERE e.tenant_id = ${p.add(experiment.tenant_id)} AND e.started_at >= ${p.add(experiment.started_at)}
       AND (${p.add(experiment.scope_work_item_id)}::uuid IS NULL OR e.work_item_id = ${p.add(experiment.scope_work_item_id)}::uuid)
       AND (${p.add(experiment.scope_agent)}::text IS NULL OR e.agent = ${p.add(experiment.scope_agent)}::text)
       AND (${p.add(experiment.scope_task_type)}::text IS NULL OR e.task_type = ${p.add(experiment.scope_task_type)}::text)
       AND NOT EXISTS (SELECT 1 FROM experiment_assignments a WHERE a.experiment_id = ${p.add(experiment.id)} AND a.episode_id = e.id)`;
  const [row] = await queryRows<MeasureRow>(db, sql, p);
  return toMeasures(row as MeasureRow);
}

export interface InterleavingTally {
  wins: number;
  losses: number;
  ties: number;
}

/**
 * Team-draft credit per interleaved retrieval: the served episodes its completion credited
 * positively (episode_feedback target > 0: usedRetrievals named it, the run succeeded, and where
 * the run reported files, the served run changed one of them) count for the team that picked them;
 * memory wins the retrieval when more of them are its picks, loses when fewer, ties when as many.
 */
export async function interleavingTally(db: pg.Pool, tenantId: string, experimentId: string): Promise<InterleavingTally> {
  const p = new Params();
  const sql = `WITH credit AS (
      SELECT r.id,
             count(*) FILTER (WHERE f.target > 0 AND r.teams[array_position(r.episode_ids, f.episode_id)] = 'memory') AS memory,
             count(*) FILTER (WHERE f.target > 0 AND r.teams[array_position(r.episode_ids, f.episode_id)] = 'baseline') AS baseline
        FROM retrievals r LEFT JOIN episode_feedback f ON f.retrieval_id = r.id AND f.tenant_id = r.tenant_id
       WHERE r.tenant_id = ${p.add(tenantId)} AND r.experiment_id = ${p.add(experimentId)}
       GROUP BY r.id)
    SELECT count(*) FILTER (WHERE memory > baseline)::int AS wins, count(*) FILTER (WHERE memory < baseline)::int AS losses,
           count(*) FILTER (WHERE memory = baseline)::int AS ties FROM credit`;
  const [row] = await queryRows<InterleavingTally>(db, sql, p);
  return row ?? { wins: 0, losses: 0, ties: 0 };
}
