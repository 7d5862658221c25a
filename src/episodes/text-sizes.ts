// The stored size of an episode's large texts (task description, goal spec, metadata, outcome,
// critique, reflection, approval request, checkpoint states), measured by PostgreSQL, so a read can
// be charged to MAX_RESPONSE_BYTES before any of them reaches the server. Each text is up to 1 MB
// (a checkpoint's state) and an episode may hold many: 30 aliased pages of 100 episodes could
// otherwise carry gigabytes in one answer.
import type pg from 'pg';
import { Params, queryRows } from '../db/sql.ts';

/** Per GraphQL field of Episode, the SQL of its stored size in bytes (alias e: the episodes row). */
const EPISODE_TEXT_SIZES = {
  taskDescription: 'octet_length(e.task_description)',
  goalSpec: 'octet_length(e.goal_spec::text)',
  metadata: 'octet_length(e.metadata::text)',
  blockedReason: 'octet_length(e.blocked_reason)',
  approvalRequest: 'octet_length(e.approval_request::text)',
  outcome: 'octet_length(e.outcome::text)',
  critique: 'octet_length(e.critique::text)',
  reflection: 'octet_length(e.reflection::text)',
  checkpoints: '(SELECT sum(octet_length(c.state::text)) FROM checkpoints c WHERE c.episode_id = e.id)',
} as const;

export type EpisodeTextField = keyof typeof EPISODE_TEXT_SIZES;

export const isEpisodeTextField = (name: string): name is EpisodeTextField => Object.hasOwn(EPISODE_TEXT_SIZES, name);

/** Bytes the named fields of these episodes hold together (an id of another tenant counts nothing). */
export async function episodeTextBytes(pool: pg.Pool, tenantId: string, ids: readonly string[], fields: readonly EpisodeTextField[]): Promise<number> {
  if (!ids.length || !fields.length) return 0;
  const p = new Params();
  const size = fields.map((f) => `coalesce(${EPISODE_TEXT_SIZES[f]}, 0)`).join(' + ');
  const sql = `SELECT coalesce(sum(${size}), 0)::bigint AS bytes FROM episodes e WHERE e.tenant_id = ${p.add(tenantId)} AND e.id = ANY(${p.add(ids)}::uuid[])`;
  return Number((await queryRows<{ bytes: string }>(pool, sql, p))[0]?.bytes ?? 0);
}
