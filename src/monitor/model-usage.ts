// Tokens and cost split by model: for one episode (its model calls) and for the dashboard's range
// (the model calls of the runs started in it). The model is the step's metadata.model (every OTLP
// model call has one); a step's cost is unknown when its span had none and the price table did not
// know its model (metadata.costSource = "unknown", src/otlp/mapping.ts): its model's cost is then
// null, never a made-up 0. Reads only; tenant-scoped.
import type pg from 'pg';
import { Params, queryRows } from '../db/sql.ts';
import type { DashboardFilter } from './dashboard.ts';

/** Models listed for a range: the most used ones. */
const MAX_MODELS = 50;

export interface ModelUsage {
  /** null: steps that used tokens and name no model. */
  model: string | null;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  tokens: number;
  /** USD; null when some of its calls' cost is unknown. */
  cost: number | null;
  /** USD of the calls whose cost is known. */
  knownCost: number;
  unknownCostCalls: number;
}

interface UsageRow {
  model: string | null;
  calls: number;
  input_tokens: string;
  output_tokens: string;
  tokens: string;
  cost: number;
  unknown_cost_calls: number;
}

/** A number in metadata (the OTLP door writes them as numbers; anything else counts 0). */
const metaNumber = (field: string) => `CASE WHEN jsonb_typeof(s.metadata->'${field}') = 'number' THEN (s.metadata->>'${field}')::numeric ELSE 0 END`;

const SELECT_USAGE = `SELECT s.metadata->>'model' AS model, count(*)::int AS calls,
    sum(${metaNumber('inputTokens')})::text AS input_tokens, sum(${metaNumber('outputTokens')})::text AS output_tokens,
    sum(s.tokens)::text AS tokens, sum(s.cost)::float8 AS cost,
    count(*) FILTER (WHERE s.metadata->>'costSource' = 'unknown')::int AS unknown_cost_calls`;

/** Steps that used a model: model calls, and any step with tokens or cost. */
const USED_A_MODEL = `(s.kind = 'llm_call' OR s.tokens > 0 OR s.cost > 0)`;

function usageOf(row: UsageRow): ModelUsage {
  return {
    model: row.model,
    calls: row.calls,
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    tokens: Number(row.tokens),
    cost: row.unknown_cost_calls > 0 ? null : row.cost,
    knownCost: row.cost,
    unknownCostCalls: row.unknown_cost_calls,
  };
}

export async function usageByModelOfEpisode(pool: pg.Pool, tenantId: string, episodeId: string): Promise<ModelUsage[]> {
  const p = new Params();
  const rows = await queryRows<UsageRow>(
    pool,
    `${SELECT_USAGE} FROM steps s WHERE s.tenant_id = ${p.add(tenantId)} AND s.episode_id = ${p.add(episodeId)} AND ${USED_A_MODEL}
     GROUP BY 1 ORDER BY sum(s.tokens) DESC, 1`,
    p,
  );
  return rows.map(usageOf);
}

/** The model calls of the runs started in the dashboard's range (its task type and domain filters too), the most used models first. */
export async function usageByModelOfRange(pool: pg.Pool, tenantId: string, f: DashboardFilter): Promise<ModelUsage[]> {
  const p = new Params();
  const taskType = p.add(f.taskType);
  const domain = p.add(f.domain);
  const rows = await queryRows<UsageRow>(
    pool,
    `${SELECT_USAGE} FROM episodes e JOIN steps s ON s.episode_id = e.id
     WHERE e.tenant_id = ${p.add(tenantId)} AND e.started_at >= ${p.add(f.from)} AND e.started_at < ${p.add(f.to)}
       AND (${taskType}::text IS NULL OR e.task_type = ${taskType}) AND (${domain}::text IS NULL OR e.domain = ${domain})
       AND ${USED_A_MODEL}
     GROUP BY 1 ORDER BY sum(s.tokens) DESC, 1 LIMIT ${MAX_MODELS}`,
    p,
  );
  return rows.map(usageOf);
}
