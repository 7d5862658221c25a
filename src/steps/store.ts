// Multi-row step inserts with parameterised UNNEST: Prisma's createMany measured 0.08x of this here.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { must } from '../core/must.ts';
import type { BlobsRow, StepsRow } from '../db/rows.ts';
import { Params, queryRows, type UnnestColumn, unnestAs } from '../db/sql.ts';
import type { StepDigest } from '../episodes/outcome.ts';
import type { LeadingWrite } from '../ledger/store/store.ts';
import type { PreparedStep } from './prepare.ts';

export interface StepRowToInsert {
  tenantId: string;
  episodeId: string;
  stepNumber: number;
  contentHash: string;
  step: PreparedStep;
}

/** An episode's usage after the batch; cost is added to the stored cost. */
export interface EpisodeUsage {
  id: string;
  stepCount: number;
  usedTokens: number;
  usedToolCalls: number;
  sizeBytes: number;
  addedCost: number;
}

/** Ids for the rows of a batch, made here so that the insert returns nothing and can join another statement. */
function newStepIds(count: number): string[] {
  return Array.from({ length: count }, () => randomUUID());
}

/**
 * The statement parts that insert the rows (with their ids) and set their episodes' usage: two
 * data-modifying CTEs, and an expression that reads both, so that whatever follows it in the
 * statement (the ledger append, appendEvents) runs after they did.
 */
export function stepsWrite(rows: StepRowToInsert[], usage: EpisodeUsage[], ids: readonly string[]): LeadingWrite {
  return (p) => {
    const used = unnestAs(p, 'u', {
      id: [usage.map((u) => u.id), 'uuid'],
      step_count: [usage.map((u) => u.stepCount), 'int'],
      used_tokens: [usage.map((u) => Math.round(u.usedTokens)), 'int8'],
      used_tool_calls: [usage.map((u) => u.usedToolCalls), 'int'],
      cost: [usage.map((u) => u.addedCost), 'float8'],
      size_bytes: [usage.map((u) => Math.round(u.sizeBytes)), 'int8'],
    });
    // A batch is one tenant's (the group commit is per tenant): its id goes once, not once a row.
    const tenantId = rows[0]?.tenantId;
    if (rows.some((r) => r.tenantId !== tenantId)) throw new Error('a steps write holds the rows of one tenant');
    const tenant = p.add(tenantId);
    const columns = withoutNullColumns(stepColumns(rows, ids));
    const names = Object.keys(columns).join(', ');
    return {
      ctes: `usage AS (
       UPDATE episodes e SET step_count = u.step_count, used_tokens = u.used_tokens, used_tool_calls = u.used_tool_calls,
              used_cost = e.used_cost + u.cost, size_bytes = u.size_bytes, updated_at = now()
         FROM ${used}
        WHERE e.id = u.id
       RETURNING 1),
     inserted AS (INSERT INTO steps (tenant_id, ${names}) SELECT ${tenant}::uuid, ${names} FROM ${unnestAs(p, 'u', columns)} RETURNING 1)`,
      done: '(SELECT count(*) FROM inserted) + (SELECT count(*) FROM usage) >= 0',
    };
  };
}

/** Runs a write of stepsWrite on its own. */
export async function runStepsWrite(client: pg.PoolClient, write: LeadingWrite): Promise<void> {
  const p = new Params();
  const { ctes, done } = write(p);
  await client.query(`WITH ${ctes} SELECT ${done}`, p.values);
}

/** Inserts the rows and sets their episodes' usage, in one statement; returns the step ids in input order. */
export async function insertSteps(client: pg.PoolClient, rows: StepRowToInsert[], usage: EpisodeUsage[]): Promise<string[]> {
  if (!rows.length) return [];
  const ids = newStepIds(rows.length);
  await runStepsWrite(client, stepsWrite(rows, usage, ids));
  return ids;
}

/** The steps table's columns for the rows to insert (all but the tenant), one array each. */
function stepColumns(rows: StepRowToInsert[], ids: readonly string[]): Record<string, UnnestColumn> {
  const col = <T>(f: (r: StepRowToInsert) => T) => rows.map(f);
  return {
    id: [ids, 'uuid'],
    episode_id: [col((r) => r.episodeId), 'uuid'],
    step_number: [col((r) => r.stepNumber), 'int'],
    kind: [col((r) => r.step.kind), 'text'],
    tool: [col((r) => r.step.tool), 'text'],
    action: [col((r) => r.step.action), 'text'],
    parameters: { json: col((r) => r.step.parameters) },
    args_hash: [col((r) => r.step.argsHash), 'text'],
    result_kind: [col((r) => r.step.resultKind), 'text'],
    result: { json: col((r) => r.step.result) },
    observation: [col((r) => r.step.observation), 'text'],
    latency_ms: [col((r) => r.step.latencyMs), 'int'],
    tokens: [col((r) => r.step.tokens), 'int'],
    cost: [col((r) => r.step.cost), 'float8'],
    side_effect_key: [col((r) => r.step.sideEffectKey), 'text'],
    world_before: { json: col((r) => r.step.worldBefore) },
    world_after: { json: col((r) => r.step.worldAfter) },
    metadata: { json: col((r) => r.step.metadata) },
    content_hash: [col((r) => r.contentHash), 'text'],
    size_bytes: [col((r) => r.step.sizeBytes), 'int'],
    content_refs: { json: col((r) => r.step.contentRefs) },
    started_at: [col((r) => r.step.startedAt), 'timestamptz'],
    ended_at: [col((r) => r.step.endedAt), 'timestamptz'],
    salt: [col((r) => r.step.salt), 'text'],
  };
}

/**
 * Columns a live step seldom sets (imported runs and large content set some): nullable, without a
 * default. One that is null in every row of the batch is left out of the insert, which stores NULL
 * all the same, so the statement carries and unnests no array of NULLs for it. Each set of columns
 * left out is one more statement text (prepared per connection): at most 2^7 of them.
 */
const OFTEN_NULL = ['side_effect_key', 'world_before', 'world_after', 'metadata', 'content_refs', 'started_at', 'ended_at'];

function withoutNullColumns(columns: Record<string, UnnestColumn>): Record<string, UnnestColumn> {
  for (const name of OFTEN_NULL) {
    const column = must(columns[name]);
    const values = 'json' in column ? column.json : column[0];
    if (values.every((v) => v === null || v === undefined)) delete columns[name];
  }
  return columns;
}

export interface ExistingKeyedStep {
  episodeId: string;
  sideEffectKey: string;
  id: string;
  stepNumber: number;
}

/** Steps already journaled under any of these (episode, side-effect key) pairs. */
export async function findKeyedSteps(client: pg.PoolClient, pairs: Array<{ episodeId: string; key: string }>): Promise<ExistingKeyedStep[]> {
  if (!pairs.length) return [];
  const p = new Params();
  const keys = unnestAs(p, 'k', { episode_id: [pairs.map((pair) => pair.episodeId), 'uuid'], key: [pairs.map((pair) => pair.key), 'text'] });
  // side_effect_key is nullable in the table, but these rows matched a key.
  const rows = await queryRows<Pick<StepsRow, 'episode_id' | 'id' | 'step_number'> & { side_effect_key: string }>(
    client,
    `SELECT s.episode_id, s.side_effect_key, s.id, s.step_number FROM steps s JOIN ${keys} ON s.episode_id = k.episode_id AND s.side_effect_key = k.key`,
    p,
  );
  return rows.map((r) => ({ episodeId: r.episode_id, sideEffectKey: r.side_effect_key, id: r.id, stepNumber: r.step_number }));
}

/**
 * Stores the blobs (each once per tenant: content-addressed) and adds the bytes of the new ones to
 * the tenant's blob usage. Called in the batch's transaction, so a step and
 * the blob it references commit together.
 */
export async function insertBlobs(client: pg.PoolClient, tenantId: string, blobs: Array<{ hash: string; content: string; sizeBytes: number }>): Promise<void> {
  const unique = [...new Map(blobs.map((b) => [b.hash, b])).values()];
  if (!unique.length) return;
  const p = new Params();
  const tenant = p.add(tenantId);
  const newBlobs = unnestAs(p, 'b', {
    hash: [unique.map((b) => b.hash), 'text'],
    content: [unique.map((b) => b.content), 'text'],
    size_bytes: [unique.map((b) => b.sizeBytes), 'int'],
  });
  await client.query(
    `WITH added AS (
       INSERT INTO blobs (tenant_id, hash, content, size_bytes)
       SELECT ${tenant}, hash, content, size_bytes FROM ${newBlobs}
       ON CONFLICT DO NOTHING RETURNING size_bytes)
     INSERT INTO blob_usage (tenant_id, bytes) SELECT ${tenant}, coalesce(sum(size_bytes), 0) FROM added
     ON CONFLICT (tenant_id) DO UPDATE SET bytes = blob_usage.bytes + EXCLUDED.bytes`,
    p.values,
  );
}

/** The tenant's stored blob bytes, and which of `hashes` it holds already (read under the usage row's lock). */
export async function blobStateForUpdate(client: pg.PoolClient, tenantId: string, hashes: string[]): Promise<{ bytes: number; present: Set<string> }> {
  const u = new Params();
  const tenant = u.add(tenantId);
  await client.query(`INSERT INTO blob_usage (tenant_id) VALUES (${tenant}) ON CONFLICT DO NOTHING`, u.values);
  // bytes is a bigint, which pg reads as a string; the cast reads it as a number.
  const [usage] = await queryRows<{ bytes: number }>(client, `SELECT bytes::float8 AS bytes FROM blob_usage WHERE tenant_id = ${tenant} FOR UPDATE`, u);
  return { bytes: usage?.bytes ?? 0, present: new Set(hashes.length ? await heldBlobs(client, tenantId, hashes) : []) };
}

/** Which of `hashes` the tenant holds already. */
async function heldBlobs(client: pg.PoolClient, tenantId: string, hashes: string[]): Promise<string[]> {
  const p = new Params();
  const sql = `SELECT hash FROM blobs WHERE tenant_id = ${p.add(tenantId)} AND hash = ANY(${p.add(hashes)}::text[])`;
  return (await queryRows<Pick<BlobsRow, 'hash'>>(client, sql, p)).map((r) => r.hash);
}

/** A row of stepDigests' query. */
interface StepDigestSqlRow {
  step_number: number;
  kind: StepDigest['kind'];
  tool: StepDigest['tool'];
  action: StepDigest['action'];
  result_kind: StepDigest['result'];
}

/** What a converge outcome lists of each journaled step, in step order. */
export async function stepDigests(client: pg.PoolClient, episodeId: string): Promise<StepDigest[]> {
  const p = new Params();
  const rows = await queryRows<StepDigestSqlRow>(
    client,
    `SELECT step_number, kind, tool, action, result_kind FROM steps WHERE episode_id = ${p.add(episodeId)} ORDER BY step_number`,
    p,
  );
  return rows.map((r) => ({ stepNumber: r.step_number, kind: r.kind, tool: r.tool, action: r.action, result: r.result_kind }));
}
