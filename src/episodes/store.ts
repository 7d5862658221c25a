// The episode's own writes: start, checkpoint, context pack miss. Each runs in one transaction with
// its ledger events, so a change and its event commit together or not at all. The writes that end
// an episode or touch the step journal and learning are in src/lifecycle/.
import type pg from 'pg';
import { IdempotencyConflictError, NotFoundError, throwIfViolations } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { must } from '../core/must.ts';
import type { WriteContext } from '../core/write-context.ts';
import { insertInto, Params, queryRows } from '../db/sql.ts';
import { episodeRecordOfInsert } from '../ledger/format/episode-record.ts';
import { contentHash } from '../ledger/format/hash.ts';
import { type JsonValue, jsonBytes } from '../validation/json.ts';
import { checkEpisodeSize, type StartEpisodeInput } from './limits.ts';
import { type Placement, placeEpisode } from './placement.ts';
import { lockEpisode } from './row.ts';
import { requireTransition } from './status.ts';

export interface StartResult {
  episodeId: string;
  deduplicated: boolean;
  deadlineAt: Date | null;
}

/** The fields that decide whether a repeated dedupeKey means the same request. */
function startInputHash(input: StartEpisodeInput): string {
  const { dedupeKey: _ignored, ...rest } = input;
  return contentHash(JSON.parse(JSON.stringify(rest)));
}

/** An episode started with a dedupeKey, as a repeat of its start reads it. */
interface DedupedRow {
  id: string;
  input_hash: string;
  deadline_at: Date | null;
}

async function findByDedupeKey(client: pg.PoolClient, tenantId: string, key: string): Promise<DedupedRow | undefined> {
  const p = new Params();
  const sql = `SELECT id, input_hash, deadline_at FROM episodes WHERE tenant_id = ${p.add(tenantId)} AND dedupe_key = ${p.add(key)}`;
  return (await queryRows<DedupedRow>(client, sql, p))[0];
}

async function requireParent(client: pg.PoolClient, tenantId: string, parentId: string): Promise<void> {
  const p = new Params();
  const found =
    isUuid(parentId) && (await queryRows(client, `SELECT 1 FROM episodes WHERE tenant_id = ${p.add(tenantId)} AND id = ${p.add(parentId)}`, p)).length;
  if (!found) throw new NotFoundError('Episode', parentId);
}

/**
 * Episodes found by their dedupe keys (null: none yet) whose keys' locks this transaction holds
 * (lockDedupeKeys): a start with such a key neither locks nor looks it up again, and records the
 * episode it starts, so a later start of the key in the transaction finds it.
 */
export type DedupeLookup = Map<string, DedupedRow | null>;

const dedupeLockKey = (tenantId: string, key: string) => `episode-dedupe:${tenantId}:${key}`;

/**
 * Takes the dedupe locks of several starts (an import batch's), in key order, so that batches
 * sharing keys wait for each other instead of deadlocking, then looks their keys up: two
 * statements for the batch instead of two per start. The lookup runs after the locks, so it sees
 * every start of those keys that committed while this one waited.
 */
export async function lockDedupeKeys(client: pg.PoolClient, tenantId: string, keys: readonly string[]): Promise<DedupeLookup> {
  const sorted = [...new Set(keys)].sort();
  const lookup: DedupeLookup = new Map(sorted.map((k) => [k, null]));
  if (!sorted.length) return lookup;
  const l = new Params();
  // A function scan returns the array's elements in order: the locks are taken in key order.
  await client.query(
    `SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest(${l.add(sorted.map((k) => dedupeLockKey(tenantId, k)))}::text[]) AS k`,
    l.values,
  );
  const p = new Params();
  const sql = `SELECT dedupe_key, id, input_hash, deadline_at FROM episodes WHERE tenant_id = ${p.add(tenantId)} AND dedupe_key = ANY(${p.add(sorted)}::text[])`;
  for (const row of await queryRows<DedupedRow & { dedupe_key: string }>(client, sql, p))
    lookup.set(row.dedupe_key, { id: row.id, input_hash: row.input_hash, deadline_at: row.deadline_at });
  return lookup;
}

function sameRequestOrConflict(key: string, existing: DedupedRow, inputHash: string): StartResult {
  if (existing.input_hash !== inputHash) throw new IdempotencyConflictError(key, existing.id);
  return { episodeId: existing.id, deduplicated: true, deadlineAt: existing.deadline_at };
}

export interface ContextPack {
  packHash: string;
  manifestHash: string | null;
}

export type StartInput = StartEpisodeInput & { episodeNumber?: number | null; contextPack?: ContextPack | null };

/** What a start decided beyond its input: the times it keeps and whether the run is a past one. */
interface StartFacts {
  inputHash: string;
  historical: boolean;
  timesKnown: boolean;
  startedAt: Date;
  deadlineAt: Date | null;
}

/** The new episode's row, column by column. */
function episodeColumns(ctx: WriteContext, input: StartInput, place: Placement, facts: StartFacts): Record<string, unknown> {
  const { context: c } = input;
  return {
    tenant_id: ctx.tenantId,
    work_item_id: place.workItemId,
    lease_id: place.leaseId,
    parent_episode_id: input.parentEpisodeId ?? null,
    episode_number: place.episodeNumber,
    agent: input.agent ?? null,
    task_description: input.taskDescription,
    task_type: input.taskType,
    language: c.language ?? null,
    framework: c.framework ?? null,
    complexity: c.complexity,
    domain: c.domain ?? null,
    tags: c.tags,
    goal_spec: input.goalSpec == null ? null : JSON.stringify(input.goalSpec),
    dedupe_key: input.dedupeKey ?? null,
    input_hash: facts.inputHash,
    max_attempts: input.maxAttempts ?? 1,
    mode: input.mode,
    on_budget_exhausted: input.onBudgetExhausted,
    max_tokens: place.budget.maxTokens,
    max_steps: input.budget.maxSteps ?? null,
    max_wall_ms: place.budget.maxWallMs,
    metadata: JSON.stringify(input.metadata ?? {}),
    started_at: facts.startedAt,
    deadline_at: facts.deadlineAt,
    updated_at: ctx.now,
    context_pack_hash: input.contextPack?.packHash ?? null,
    manifest_hash: input.contextPack?.manifestHash ?? null,
    max_tool_calls: place.budget.maxToolCalls,
    lease_hold: place.leaseHold === null ? null : JSON.stringify(place.leaseHold),
    historical: facts.historical,
    import_source: input.importSource ? JSON.stringify(input.importSource) : null,
    times_known: facts.timesKnown,
  };
}

export async function startEpisode(ctx: WriteContext, input: StartInput, dedupe?: DedupeLookup): Promise<StartResult> {
  const { client, tenantId, now } = ctx;
  const inputHash = startInputHash(input);
  const locked = Boolean(input.dedupeKey && dedupe?.has(input.dedupeKey));
  if (input.dedupeKey) {
    // Concurrent starts with one key queue here, so a repeat sees the first start's committed row
    // before it places anything (a repeat must not move the work item's episode number).
    if (!locked) {
      const lock = new Params();
      await client.query(`SELECT pg_advisory_xact_lock(hashtextextended(${lock.add(dedupeLockKey(tenantId, input.dedupeKey))}, 0))`, lock.values);
    }
    const existing = locked ? dedupe?.get(input.dedupeKey) : await findByDedupeKey(client, tenantId, input.dedupeKey);
    if (existing) return sameRequestOrConflict(input.dedupeKey, existing, inputHash);
  }
  if (input.parentEpisodeId) await requireParent(client, tenantId, input.parentEpisodeId);
  const place = await placeEpisode(ctx, input);
  // A past run (imported) has no deadline to enforce now: its wall time is measured by its steps' times.
  const historical = Boolean(input.startedAt || input.importSource);
  // An imported run without a start time stays without one: started_at then holds the import
  // instant for ordering only, and nothing measures or credits time from it.
  const timesKnown = !(input.importSource && !input.startedAt);
  const startedAt = input.startedAt ?? now;
  const deadlineAt = place.budget.maxWallMs && !historical ? new Date(now.getTime() + place.budget.maxWallMs) : null;
  const p = new Params();
  const columns = episodeColumns(ctx, input, place, { inputHash, historical, timesKnown, startedAt, deadlineAt });
  const insert = insertInto(p, 'episodes', columns);
  const rows = await queryRows<{ id: string }>(client, `${insert} ON CONFLICT (tenant_id, dedupe_key) DO NOTHING RETURNING id`, p);
  if (!rows.length) {
    // A concurrent start with the same dedupeKey committed first.
    const existing = await findByDedupeKey(client, tenantId, must(input.dedupeKey));
    return sameRequestOrConflict(must(input.dedupeKey), must(existing), inputHash);
  }
  const episodeId = must(rows[0]).id;
  if (locked) dedupe?.set(must(input.dedupeKey), { id: episodeId, input_hash: inputHash, deadline_at: deadlineAt });
  ctx.events.push({
    type: 'episode.started',
    episodeId,
    workItemId: place.workItemId,
    payload: {
      inputHash,
      recordHash: contentHash(episodeRecordOfInsert(columns)),
      taskType: input.taskType,
      episodeNumber: place.episodeNumber,
      leaseId: place.leaseId,
      budget: { ...place.budget, maxSteps: input.budget.maxSteps ?? null },
      leaseHold: place.leaseHold,
      contextPack: input.contextPack ?? null,
      // Only on imported runs, so a live start's event is what it was.
      ...(historical ? { imported: { startedAt: timesKnown ? startedAt.toISOString() : null, source: input.importSource ?? null } } : {}),
    },
  });
  return { episodeId, deduplicated: false, deadlineAt };
}

export async function saveCheckpoint(ctx: WriteContext, episodeId: string, label: string | null, state: JsonValue): Promise<string> {
  const ep = await lockEpisode(ctx.client, ctx.tenantId, episodeId);
  requireTransition(ep, 'checkpoint');
  throwIfViolations(checkEpisodeSize(ep.sizeBytes, jsonBytes(state), 'input.state'));
  const p = new Params();
  const insert = insertInto(p, 'checkpoints', {
    tenant_id: ctx.tenantId,
    episode_id: ep.id,
    step_number: ep.stepCount,
    label,
    state: JSON.stringify(state),
    created_at: ctx.now,
  });
  const checkpointId = must((await queryRows<{ id: string }>(ctx.client, `${insert} RETURNING id`, p))[0]).id;
  const u = new Params();
  await ctx.client.query(
    `UPDATE episodes SET size_bytes = size_bytes + ${u.add(jsonBytes(state))}, updated_at = ${u.add(ctx.now)} WHERE id = ${u.add(ep.id)}`,
    u.values,
  );
  ctx.events.push({
    type: 'checkpoint.saved',
    episodeId: ep.id,
    workItemId: ep.workItemId,
    payload: { checkpointId, stepNumber: ep.stepCount, label, stateHash: contentHash(state) },
  });
  return checkpointId;
}

/** Records a context pack miss: every miss is counted; only the first miss of a stable id is a defect record. */
export async function recordPackMiss(ctx: WriteContext, episodeId: string, miss: { stableId: string; reason: string; packHash: string | null }) {
  const ep = await lockEpisode(ctx.client, ctx.tenantId, episodeId);
  const p = new Params();
  const insert = insertInto(p, 'pack_misses', {
    tenant_id: ctx.tenantId,
    episode_id: ep.id,
    stable_id: miss.stableId,
    reason: miss.reason,
    pack_hash: miss.packHash ?? ep.contextPackHash,
    first_at: ctx.now,
    last_at: ctx.now,
  });
  const sql = `${insert} ON CONFLICT (episode_id, stable_id) DO UPDATE SET occurrences = pack_misses.occurrences + 1, last_at = EXCLUDED.last_at
     RETURNING id, occurrences`;
  const { id, occurrences } = must((await queryRows<{ id: string; occurrences: number }>(ctx.client, sql, p))[0]);
  const defect = occurrences === 1;
  ctx.events.push({
    type: defect ? 'defect.recorded' : 'pack.missed',
    episodeId: ep.id,
    workItemId: ep.workItemId,
    payload: { defectId: id, stableId: miss.stableId, reason: miss.reason, packHash: miss.packHash ?? ep.contextPackHash, occurrences },
  });
  return { defectRecorded: defect, occurrences };
}
