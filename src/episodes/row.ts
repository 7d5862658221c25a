// The columns the lifecycle decides on, read under a row lock.
import type pg from 'pg';
import { NotFoundError } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { Params, queryRows } from '../db/sql.ts';
import type { LeaseUsage } from '../leases/rules.ts';
import type { Budget } from './budget.ts';
import type { EpisodeStatus } from './status.ts';

export interface EpisodeRow {
  id: string;
  tenantId: string;
  status: EpisodeStatus;
  workItemId: string | null;
  leaseId: string | null;
  stepCount: number;
  usedTokens: number;
  usedToolCalls: number;
  sizeBytes: number;
  budget: Budget;
  /** What the episode holds on its lease while live (released when it ends); null without a lease. */
  leaseHold: LeaseUsage | null;
  onBudgetExhausted: 'fail' | 'converge';
  startedAt: Date;
  contextPackHash: string | null;
  manifestHash: string | null;
  /** An imported run: its wall time is measured by its steps' own times, not by the clock now. */
  historical: boolean;
  /** False: an imported run without times; startedAt is when it was imported, its wall time is unknown. */
  timesKnown: boolean;
  /** An episode.forgotten event removed its texts (docs/LEDGER.md §3.4): no action may write to it again. */
  forgotten: boolean;
}

const COLUMNS = `id, tenant_id, status, work_item_id, lease_id, step_count, used_tokens::float8 AS used_tokens,
  used_tool_calls, size_bytes::float8 AS size_bytes, max_tokens::float8 AS max_tokens, max_steps,
  max_wall_ms::float8 AS max_wall_ms, max_tool_calls, lease_hold, on_budget_exhausted, started_at, context_pack_hash, manifest_hash, historical, times_known, forgotten_at IS NOT NULL AS forgotten`;

/** A row of COLUMNS as pg returns it (the float8 casts make the bigints numbers). */
export interface EpisodeSqlRow {
  id: string;
  tenant_id: string;
  status: EpisodeStatus;
  work_item_id: string | null;
  lease_id: string | null;
  step_count: number;
  used_tokens: number;
  used_tool_calls: number;
  size_bytes: number;
  max_tokens: number | null;
  max_steps: number | null;
  max_wall_ms: number | null;
  max_tool_calls: number | null;
  lease_hold: LeaseUsage | null;
  on_budget_exhausted: 'fail' | 'converge';
  started_at: Date;
  context_pack_hash: string | null;
  manifest_hash: string | null;
  historical: boolean | null;
  times_known: boolean | null;
  forgotten: boolean;
}

function toEpisodeRow(r: EpisodeSqlRow): EpisodeRow {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    status: r.status,
    workItemId: r.work_item_id,
    leaseId: r.lease_id,
    stepCount: r.step_count,
    usedTokens: r.used_tokens,
    usedToolCalls: r.used_tool_calls,
    sizeBytes: r.size_bytes,
    budget: { maxTokens: r.max_tokens, maxSteps: r.max_steps, maxWallMs: r.max_wall_ms, maxToolCalls: r.max_tool_calls },
    leaseHold: r.lease_hold,
    onBudgetExhausted: r.on_budget_exhausted,
    startedAt: r.started_at,
    contextPackHash: r.context_pack_hash,
    manifestHash: r.manifest_hash,
    historical: r.historical === true,
    timesKnown: r.times_known !== false,
    forgotten: r.forgotten === true,
  };
}

/** Locks the episodes (in id order, so concurrent writers cannot deadlock) and returns them by id. */
export async function lockEpisodes(client: pg.PoolClient, tenantId: string, ids: string[]): Promise<Map<string, EpisodeRow>> {
  const valid = [...new Set(ids.filter(isUuid))].sort();
  if (!valid.length) return new Map();
  const p = new Params();
  const rows = await queryRows<EpisodeSqlRow>(
    client,
    `SELECT ${COLUMNS} FROM episodes WHERE tenant_id = ${p.add(tenantId)} AND id = ANY(${p.add(valid)}::uuid[]) ORDER BY id FOR UPDATE`,
    p,
  );
  return new Map(rows.map((r) => [r.id, toEpisodeRow(r)]));
}

/**
 * BEGIN and lockEpisodes in one round trip: a group commit's first statement (a round trip of 5
 * per batch, each waiting its turn of a busy event loop). One query of the simple protocol, which
 * carries no parameters, so the ids are written into its text, and only as checked UUIDs (what
 * isUuid refuses, lockEpisodes leaves out too). The query is sent even without an id: it opens
 * the transaction.
 */
export async function beginAndLockEpisodes(client: pg.PoolClient, tenantId: string, ids: string[]): Promise<Map<string, EpisodeRow>> {
  if (!isUuid(tenantId)) throw new Error(`tenant id ${JSON.stringify(tenantId)} is not a uuid`);
  const valid = [...new Set(ids.filter(isUuid))].sort();
  const list = valid.length ? valid.map((id) => `'${id}'`).join(', ') : 'NULL';
  const sql = `BEGIN; SELECT ${COLUMNS} FROM episodes WHERE tenant_id = '${tenantId}' AND id IN (${list}) ORDER BY id FOR UPDATE`;
  // Two statements answer two results; the second holds the rows.
  const [, locked] = (await client.query<EpisodeSqlRow>(sql)) as unknown as [pg.QueryResult, pg.QueryResult<EpisodeSqlRow>];
  return new Map(locked.rows.map((r) => [r.id, toEpisodeRow(r)]));
}

export async function lockEpisode(client: pg.PoolClient, tenantId: string, id: string): Promise<EpisodeRow> {
  const row = (await lockEpisodes(client, tenantId, [id])).get(id);
  if (!row) throw new NotFoundError('Episode', id);
  return row;
}
