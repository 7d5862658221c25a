// Blocking for approval and resuming: the approval request and its resolution are journaled as
// steps (a blocked episode resumes from its journal), in the call's transaction.
import { throwIfViolations } from '../core/errors.ts';
import type { WriteContext } from '../core/write-context.ts';
import { Params } from '../db/sql.ts';
import { EPISODE_LIMITS } from '../episodes/limits.ts';
import { type EpisodeRow, lockEpisode } from '../episodes/row.ts';
import { requireTransition } from '../episodes/status.ts';
import { checkStepCount } from '../steps/limits.ts';
import { newStepSalt, prepareStep, stepContentHash } from '../steps/prepare.ts';
import { insertSteps } from '../steps/store.ts';
import type { StopReason } from '../stops/stop-reason.ts';
import type { JsonValue } from '../validation/json.ts';

/** Journals an approval step: a blocked episode resumes from its journal (approval_requested, then approval_resolved). */
async function journalStep(ctx: WriteContext, ep: EpisodeRow, kind: string, parameters: JsonValue) {
  const step = { ...prepareStep({ kind, parameters }, ctx.redactKeys), salt: newStepSalt() };
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
  const p = new Params();
  const request = approvalRequest === null ? null : JSON.stringify(approvalRequest);
  await ctx.client.query(
    `UPDATE episodes SET status = 'blocked', blocked_reason = ${p.add(reason)}, approval_request = ${p.add(request)}, stop_reason = ${p.add(JSON.stringify(stop))},
            updated_at = ${p.add(ctx.now)} WHERE id = ${p.add(ep.id)}`,
    p.values,
  );
  ctx.events.push({ type: 'episode.blocked', episodeId: ep.id, workItemId: ep.workItemId, payload: { reason, approvalRequested: approvalRequest !== null } });
}

export async function resumeEpisode(ctx: WriteContext, episodeId: string, decision: { approved: boolean; decidedBy: string | null; comment: string | null }) {
  const ep = await lockEpisode(ctx.client, ctx.tenantId, episodeId);
  requireTransition(ep, 'resume');
  await journalStep(ctx, ep, 'approval_resolved', { approved: decision.approved, decidedBy: decision.decidedBy, comment: decision.comment });
  const p = new Params();
  await ctx.client.query(
    `UPDATE episodes SET status = 'running', blocked_reason = NULL, stop_reason = NULL, updated_at = ${p.add(ctx.now)} WHERE id = ${p.add(ep.id)}`,
    p.values,
  );
  ctx.events.push({ type: 'episode.resumed', episodeId: ep.id, workItemId: ep.workItemId, payload: decision });
}
