// The episode's own writes: start, checkpoint, context pack miss. Each runs in one transaction with
// its ledger events, so a change and its event commit together or not at all. The writes that end
// an episode or touch the step journal and learning are in src/lifecycle/.
import type pg from 'pg';
import { IdempotencyConflictError, NotFoundError, throwIfViolations } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { must } from '../core/must.ts';
import type { WriteContext } from '../core/write-context.ts';
import { contentHash } from '../ledger/hash.ts';
import { type JsonValue, jsonBytes } from '../validation/json.ts';
import { checkEpisodeSize, type StartEpisodeInput } from './limits.ts';
import { placeEpisode } from './placement.ts';
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

async function findByDedupeKey(client: pg.PoolClient, tenantId: string, key: string) {
  const { rows } = await client.query('SELECT id, input_hash, deadline_at FROM episodes WHERE tenant_id = $1 AND dedupe_key = $2', [tenantId, key]);
  return rows[0] as { id: string; input_hash: string; deadline_at: Date | null } | undefined;
}

function sameRequestOrConflict(key: string, existing: { id: string; input_hash: string; deadline_at: Date | null }, inputHash: string): StartResult {
  if (existing.input_hash !== inputHash) throw new IdempotencyConflictError(key, existing.id);
  return { episodeId: existing.id, deduplicated: true, deadlineAt: existing.deadline_at };
}

export interface ContextPack {
  packHash: string;
  manifestHash: string | null;
}

export type StartInput = StartEpisodeInput & { episodeNumber?: number | null; contextPack?: ContextPack | null };

export async function startEpisode(ctx: WriteContext, input: StartInput): Promise<StartResult> {
  const { client, tenantId, now } = ctx;
  const inputHash = startInputHash(input);
  if (input.dedupeKey) {
    // Concurrent starts with one key queue here, so a repeat sees the first start's committed row
    // before it places anything (a repeat must not move the work item's episode number).
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`episode-dedupe:${tenantId}:${input.dedupeKey}`]);
    const existing = await findByDedupeKey(client, tenantId, input.dedupeKey);
    if (existing) return sameRequestOrConflict(input.dedupeKey, existing, inputHash);
  }
  if (input.parentEpisodeId) {
    const parent =
      isUuid(input.parentEpisodeId) &&
      (await client.query('SELECT 1 FROM episodes WHERE tenant_id = $1 AND id = $2', [tenantId, input.parentEpisodeId])).rowCount;
    if (!parent) throw new NotFoundError('Episode', input.parentEpisodeId);
  }
  const place = await placeEpisode(ctx, input);
  // A past run (imported) has no deadline to enforce now: its wall time is measured by its steps' times.
  const historical = Boolean(input.startedAt || input.importSource);
  // An imported run without a start time stays without one: started_at then holds the import
  // instant for ordering only, and nothing measures or credits time from it.
  const timesKnown = !(input.importSource && !input.startedAt);
  const startedAt = input.startedAt ?? now;
  const deadlineAt = place.budget.maxWallMs && !historical ? new Date(now.getTime() + place.budget.maxWallMs) : null;
  const { context: c } = input;
  const { rows } = await client.query(
    `INSERT INTO episodes (tenant_id, work_item_id, lease_id, parent_episode_id, episode_number, agent, task_description, task_type,
       language, framework, complexity, domain, tags, goal_spec, dedupe_key, input_hash, max_attempts, mode, on_budget_exhausted,
       max_tokens, max_steps, max_wall_ms, metadata, started_at, deadline_at, updated_at, context_pack_hash, manifest_hash,
       max_tool_calls, lease_hold, historical, import_source, times_known)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$30,$26,$27,$28,$29,$31,$32,$33)
     ON CONFLICT (tenant_id, dedupe_key) DO NOTHING RETURNING id`,
    [
      tenantId,
      place.workItemId,
      place.leaseId,
      input.parentEpisodeId ?? null,
      place.episodeNumber,
      input.agent ?? null,
      input.taskDescription,
      input.taskType,
      c.language ?? null,
      c.framework ?? null,
      c.complexity,
      c.domain ?? null,
      c.tags,
      input.goalSpec == null ? null : JSON.stringify(input.goalSpec),
      input.dedupeKey ?? null,
      inputHash,
      input.maxAttempts ?? 1,
      input.mode,
      input.onBudgetExhausted,
      place.budget.maxTokens,
      input.budget.maxSteps ?? null,
      place.budget.maxWallMs,
      JSON.stringify(input.metadata ?? {}),
      startedAt,
      deadlineAt,
      input.contextPack?.packHash ?? null,
      input.contextPack?.manifestHash ?? null,
      place.budget.maxToolCalls,
      place.leaseHold === null ? null : JSON.stringify(place.leaseHold),
      now,
      historical,
      input.importSource ? JSON.stringify(input.importSource) : null,
      timesKnown,
    ],
  );
  if (!rows.length) {
    // A concurrent start with the same dedupeKey committed first.
    const existing = await findByDedupeKey(client, tenantId, must(input.dedupeKey));
    return sameRequestOrConflict(must(input.dedupeKey), must(existing), inputHash);
  }
  const episodeId = rows[0].id as string;
  ctx.events.push({
    type: 'episode.started',
    episodeId,
    workItemId: place.workItemId,
    payload: {
      inputHash,
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
  const { rows } = await ctx.client.query(
    'INSERT INTO checkpoints (tenant_id, episode_id, step_number, label, state, created_at) VALUES ($1,$2,$3,$4,$5,$6) RETURNING id',
    [ctx.tenantId, ep.id, ep.stepCount, label, JSON.stringify(state), ctx.now],
  );
  await ctx.client.query('UPDATE episodes SET size_bytes = size_bytes + $2, updated_at = $3 WHERE id = $1', [ep.id, jsonBytes(state), ctx.now]);
  ctx.events.push({
    type: 'checkpoint.saved',
    episodeId: ep.id,
    workItemId: ep.workItemId,
    payload: { checkpointId: rows[0].id, stepNumber: ep.stepCount, label, stateHash: contentHash(state) },
  });
  return rows[0].id;
}

/** Records a context pack miss: every miss is counted; only the first miss of a stable id is a defect record. */
export async function recordPackMiss(ctx: WriteContext, episodeId: string, miss: { stableId: string; reason: string; packHash: string | null }) {
  const ep = await lockEpisode(ctx.client, ctx.tenantId, episodeId);
  const { rows } = await ctx.client.query(
    `INSERT INTO pack_misses (tenant_id, episode_id, stable_id, reason, pack_hash, first_at, last_at) VALUES ($1,$2,$3,$4,$5,$6,$6)
     ON CONFLICT (episode_id, stable_id) DO UPDATE SET occurrences = pack_misses.occurrences + 1, last_at = EXCLUDED.last_at
     RETURNING id, occurrences`,
    [ctx.tenantId, ep.id, miss.stableId, miss.reason, miss.packHash ?? ep.contextPackHash, ctx.now],
  );
  const { id, occurrences } = rows[0] as { id: string; occurrences: number };
  const defect = occurrences === 1;
  ctx.events.push({
    type: defect ? 'defect.recorded' : 'pack.missed',
    episodeId: ep.id,
    workItemId: ep.workItemId,
    payload: { defectId: id, stableId: miss.stableId, reason: miss.reason, packHash: miss.packHash ?? ep.contextPackHash, occurrences },
  });
  return { defectRecorded: defect, occurrences };
}
