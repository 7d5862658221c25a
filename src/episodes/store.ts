// Episode lifecycle writes. Each runs in one transaction with its ledger events, so a change and
// its event commit together or not at all.
import type pg from 'pg';
import { IdempotencyConflictError, IllegalTransitionError, NotFoundError, throwIfViolations } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { must } from '../core/must.ts';
import type { WriteContext } from '../core/write-context.ts';
import { refreshExperience } from '../learning/store.ts';
import { contentHash } from '../ledger/hash.ts';
import { checkStepCount } from '../steps/limits.ts';
import { prepareStep, stepContentHash } from '../steps/prepare.ts';
import { insertSteps } from '../steps/store.ts';
import type { StopReason } from '../stops/stop-reason.ts';
import { type JsonValue, jsonBytes } from '../validation/json.ts';
import { type FinishResult, finishEpisode } from './finish.ts';
import { timeRangeViolations } from './import-limits.ts';
import { checkEpisodeSize, EPISODE_LIMITS, type StartEpisodeInput } from './limits.ts';
import type { Outcome } from './outcome.ts';
import { holonStopForOutcome } from './outcome.ts';
import { validateOutcome } from './outcome-limits.ts';
import { placeEpisode } from './placement.ts';
import { type EpisodeRow, lockEpisode } from './row.ts';
import { checkTransition, type EpisodeAction } from './status.ts';

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
  const startedAt = input.startedAt ?? now;
  const deadlineAt = place.budget.maxWallMs && !historical ? new Date(now.getTime() + place.budget.maxWallMs) : null;
  const { context: c } = input;
  const { rows } = await client.query(
    `INSERT INTO episodes (tenant_id, work_item_id, lease_id, parent_episode_id, episode_number, agent, task_description, task_type,
       language, framework, complexity, domain, tags, goal_spec, dedupe_key, input_hash, max_attempts, mode, on_budget_exhausted,
       max_tokens, max_steps, max_wall_ms, metadata, started_at, deadline_at, updated_at, context_pack_hash, manifest_hash,
       max_tool_calls, lease_hold, historical, import_source)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$30,$26,$27,$28,$29,$31,$32)
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
      ...(historical ? { imported: { startedAt: startedAt.toISOString(), source: input.importSource ?? null } } : {}),
    },
  });
  return { episodeId, deduplicated: false, deadlineAt };
}

function requireTransition(ep: EpisodeRow, action: EpisodeAction) {
  const check = checkTransition(ep.status, action);
  if (!check.ok) throw new IllegalTransitionError(check.from, check.action, check.allowed, check.message);
  return check.to;
}

/** Journals an approval step: a blocked episode resumes from its journal (approval_requested, then approval_resolved). */
async function journalStep(ctx: WriteContext, ep: EpisodeRow, kind: string, parameters: JsonValue) {
  const step = prepareStep({ kind, parameters }, ctx.redactKeys);
  const stepNumber = ep.stepCount + 1;
  const hash = stepContentHash(ep.id, step);
  const usage = {
    id: ep.id,
    stepCount: stepNumber,
    usedTokens: ep.usedTokens,
    usedToolCalls: ep.usedToolCalls,
    sizeBytes: ep.sizeBytes + step.sizeBytes,
    addedCost: 0,
  };
  await insertSteps(ctx.client, [{ tenantId: ctx.tenantId, episodeId: ep.id, stepNumber, step, contentHash: hash }], [usage]);
  ep.sizeBytes = usage.sizeBytes;
  ep.stepCount = stepNumber;
  ctx.events.push({ type: 'steps.logged', episodeId: ep.id, workItemId: ep.workItemId, payload: { steps: [{ n: stepNumber, hash }] } });
}

export async function blockEpisode(ctx: WriteContext, episodeId: string, reason: string, approvalRequest: JsonValue | null) {
  const ep = await lockEpisode(ctx.client, ctx.tenantId, episodeId);
  requireTransition(ep, 'block');
  // The journal keeps room for the approval steps (request, and the resolution on resume), so
  // they never take an episode past EPISODE_LIMITS.maxSteps and a blocked episode can always resume.
  const room = approvalRequest !== null ? 2 : 1;
  const field = approvalRequest !== null ? 'approvalRequest' : 'episodeId';
  throwIfViolations(
    checkStepCount(ep.stepCount, room, field).map((v) => ({
      ...v,
      message: `${field}: blocking journals ${room} approval step(s) but the episode holds ${ep.stepCount} of ${EPISODE_LIMITS.maxSteps} steps`,
    })),
  );
  if (approvalRequest !== null) await journalStep(ctx, ep, 'approval_requested', { reason, request: approvalRequest });
  const stop: StopReason = { kind: 'blocked', reason };
  await ctx.client.query(
    `UPDATE episodes SET status = 'blocked', blocked_reason = $2, approval_request = $3, stop_reason = $4, updated_at = $5 WHERE id = $1`,
    [ep.id, reason, approvalRequest === null ? null : JSON.stringify(approvalRequest), JSON.stringify(stop), ctx.now],
  );
  ctx.events.push({ type: 'episode.blocked', episodeId: ep.id, workItemId: ep.workItemId, payload: { reason, approvalRequested: approvalRequest !== null } });
}

export async function resumeEpisode(ctx: WriteContext, episodeId: string, decision: { approved: boolean; decidedBy: string | null; comment: string | null }) {
  const ep = await lockEpisode(ctx.client, ctx.tenantId, episodeId);
  requireTransition(ep, 'resume');
  await journalStep(ctx, ep, 'approval_resolved', { approved: decision.approved, decidedBy: decision.decidedBy, comment: decision.comment });
  await ctx.client.query(`UPDATE episodes SET status = 'running', blocked_reason = NULL, stop_reason = NULL, updated_at = $2 WHERE id = $1`, [ep.id, ctx.now]);
  ctx.events.push({ type: 'episode.resumed', episodeId: ep.id, workItemId: ep.workItemId, payload: decision });
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

export interface CritiqueInput {
  verdict: string;
  score: number | null;
  feedback: string | null;
  virtueScores: Array<{ name: string; score: number }>;
}

export async function recordCritique(ctx: WriteContext, episodeId: string, critique: CritiqueInput) {
  const ep = await lockEpisode(ctx.client, ctx.tenantId, episodeId);
  requireTransition(ep, 'critique');
  await ctx.client.query('UPDATE episodes SET critique = $2, updated_at = $3 WHERE id = $1', [ep.id, JSON.stringify(critique), ctx.now]);
  // A critique of an episode that already ended (a critic may run after the episode) re-scores it.
  const experience = await refreshExperience(ctx.client, ctx.tenantId, ep.id);
  ctx.events.push({
    type: 'critique.recorded',
    episodeId: ep.id,
    workItemId: ep.workItemId,
    payload: {
      critiqueHash: contentHash(critique),
      score: critique.score,
      ...(experience ? { experience: { reward: experience.reward, rewardHash: experience.rewardHash, reflectionHash: experience.reflectionHash } } : {}),
    },
  });
}

/**
 * When the episode ended: the given time (not before it started), else for an imported run the
 * time of its last dated step (or its start), else now.
 */
async function endTime(ctx: WriteContext, ep: EpisodeRow, endedAt: Date | null): Promise<Date> {
  if (endedAt) {
    throwIfViolations(timeRangeViolations('startedAt', 'endedAt', ep.startedAt, endedAt, ctx.now));
    return endedAt;
  }
  if (!ep.historical) return ctx.now;
  const { rows } = await ctx.client.query('SELECT max(coalesce(ended_at, started_at)) AS last FROM steps WHERE episode_id = $1', [ep.id]);
  return (rows[0]?.last as Date | null) ?? ep.startedAt;
}

export async function completeEpisode(ctx: WriteContext, episodeId: string, outcome: Outcome, endedAt: Date | null = null): Promise<FinishResult> {
  throwIfViolations(validateOutcome(outcome));
  const ep = await lockEpisode(ctx.client, ctx.tenantId, episodeId);
  requireTransition(ep, 'complete');
  throwIfViolations(checkEpisodeSize(ep.sizeBytes, jsonBytes(outcome), 'input.outcome'));
  const ended = await endTime(ctx, ep, endedAt);
  const failed = outcome.kind === 'failure';
  return finishEpisode(
    ctx.client,
    ep,
    {
      status: failed ? 'failed' : 'completed',
      stopReason: failed ? { kind: 'failed', reason: outcome.reason } : { kind: 'completed' },
      outcome,
      eventType: failed ? 'episode.failed' : 'episode.completed',
      holonStop: holonStopForOutcome(outcome),
      endedAt: ended,
    },
    ctx.now,
    ctx.events,
  );
}

type Ending = 'fail' | 'cancel' | 'escalate';

const ENDINGS: Record<Ending, { status: 'failed' | 'cancelled' | 'escalated'; eventType: string }> = {
  fail: { status: 'failed', eventType: 'episode.failed' },
  cancel: { status: 'cancelled', eventType: 'episode.cancelled' },
  escalate: { status: 'escalated', eventType: 'episode.escalated' },
};

export async function endEpisode(ctx: WriteContext, episodeId: string, action: Ending, reason: string, recoverable = false): Promise<FinishResult> {
  const ep = await lockEpisode(ctx.client, ctx.tenantId, episodeId);
  requireTransition(ep, action);
  const stopReason: StopReason =
    action === 'fail' ? { kind: 'error', message: reason, recoverable } : action === 'cancel' ? { kind: 'cancelled', reason } : { kind: 'escalated', reason };
  const outcome: Outcome | null = action === 'fail' ? { kind: 'failure', reason, details: recoverable ? 'recoverable' : undefined } : null;
  // fail and escalate are the holon's own stop for its loop; a cancel is an operator's, not the holon's.
  const holonStop = action === 'cancel' ? null : stopReason;
  const ending = {
    status: ENDINGS[action].status,
    stopReason,
    outcome: outcome && JSON.parse(JSON.stringify(outcome)),
    eventType: ENDINGS[action].eventType,
    holonStop,
  };
  return finishEpisode(ctx.client, ep, ending, ctx.now, ctx.events);
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
