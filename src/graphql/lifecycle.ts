// The lifecycle mutations: start an episode, block and resume it, complete it or end it otherwise
// (fail, cancel, escalate). Resolvers check the input, then delegate to the store.

import { IdempotencyConflictError, IllegalTransitionError, InputLimitError, LeaseError, NotFoundError, throwIfViolations } from '../core/errors.ts';
import { canonicalId } from '../core/ids.ts';
import type { WriteContext } from '../core/write-context.ts';
import { CALL_LIMITS, freeTextViolations } from '../episodes/call-limits.ts';
import { timeRangeViolations } from '../episodes/import-limits.ts';
import { validateEpisodeInput, validateGoalSpec } from '../episodes/limits.ts';
import * as store from '../episodes/store.ts';
import { LoopStoppedError } from '../leases/errors.ts';
import { blockEpisode, resumeEpisode } from '../lifecycle/approval.ts';
import { completeAndLearn } from '../lifecycle/complete.ts';
import { scheduleDeadline, stopIfOverdue } from '../lifecycle/deadlines.ts';
import { endEpisode } from '../lifecycle/end.ts';
import type { JsonValue } from '../validation/json.ts';
import { hashViolations } from '../validation/violations.ts';
import { builder } from './builder.ts';
import type { AuthedContext } from './context.ts';
import { OutcomeInput, StartEpisodeInputRef, toContextPack, toOutcome, toStartEpisodeInput } from './episode-inputs.ts';
import { EpisodePayload, StartEpisodePayload, type Types } from './episode-payloads.ts';
import { FinishPayload } from './finish-payloads.ts';
import { HISTORICAL_END } from './import-source.ts';
import { ExtractPatternsModeEnum } from './pattern-enums.ts';

export const transitionErrors = [NotFoundError, IllegalTransitionError, InputLimitError];

/**
 * Runs a change of a live episode, after stopping it if its wall-time deadline has passed: the
 * budget comes first even when the deadline job has not run yet, so a late ending finds the episode
 * failed (budget_exhausted wall_time) and is refused as an illegal transition.
 */
export async function changeEpisode<T>(ctx: AuthedContext, episodeId: string, change: (w: WriteContext) => Promise<T>): Promise<T> {
  await stopIfOverdue(ctx.services.db.pool, ctx.services.writer, ctx.viewer.tenantId, episodeId);
  return ctx.services.writer.run(ctx.viewer.tenantId, change);
}

/** A start's input checked (its limits, its context pack's hashes) as the store takes it. */
export function checkedStart(input: typeof StartEpisodeInputRef.$inferInput): store.StartInput {
  const domain = toStartEpisodeInput(input);
  throwIfViolations(validateEpisodeInput(domain));
  throwIfViolations([
    ...hashViolations('input.contextPack.packHash', input.contextPack?.packHash),
    ...hashViolations('input.contextPack.manifestHash', input.contextPack?.manifestHash),
  ]);
  return { ...domain, contextPack: toContextPack(input) };
}

builder.mutationFields((t) => ({
  startEpisode: t.withAuth({ write: true }).field({
    type: StartEpisodePayload,
    errors: { types: [InputLimitError, IdempotencyConflictError, NotFoundError, LeaseError, LoopStoppedError] },
    args: { input: t.arg({ type: StartEpisodeInputRef, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const start = checkedStart(input);
      const { services, viewer } = ctx;
      const result = await services.writer.run(viewer.tenantId, (w) => store.startEpisode(w, start));
      if (result.deadlineAt && !result.deduplicated) {
        await scheduleDeadline(services.jobs, { tenantId: viewer.tenantId, episodeId: result.episodeId }, result.deadlineAt);
      }
      return result;
    },
  }),
  blockEpisode: t.withAuth({ write: true }).field({
    type: EpisodePayload,
    errors: { types: transitionErrors },
    args: { episodeId: t.arg.id({ required: true }), reason: t.arg.string({ required: true }), approvalRequest: t.arg({ type: 'JSON' }) },
    resolve: async (_root, args, ctx) => {
      throwIfViolations([
        ...freeTextViolations('reason', args.reason),
        ...(args.approvalRequest == null ? [] : validateGoalSpec(args.approvalRequest as JsonValue, 'approvalRequest')),
      ]);
      const episodeId = canonicalId(args.episodeId);
      await changeEpisode(ctx, episodeId, (w) => blockEpisode(w, episodeId, args.reason, (args.approvalRequest ?? null) as JsonValue));
      return { episodeId };
    },
  }),
  resumeEpisode: t.withAuth({ write: true }).field({
    type: EpisodePayload,
    errors: { types: transitionErrors },
    args: {
      episodeId: t.arg.id({ required: true }),
      approved: t.arg.boolean({ required: true, description: 'The approval decision; journaled as an approval_resolved step.' }),
      decidedBy: t.arg.string(),
      comment: t.arg.string(),
    },
    resolve: async (_root, args, ctx) => {
      throwIfViolations([...freeTextViolations('decidedBy', args.decidedBy, CALL_LIMITS.labelBytes), ...freeTextViolations('comment', args.comment)]);
      const episodeId = canonicalId(args.episodeId);
      await changeEpisode(ctx, episodeId, (w) =>
        resumeEpisode(w, episodeId, { approved: args.approved, decidedBy: args.decidedBy ?? null, comment: args.comment ?? null }),
      );
      return { episodeId };
    },
  }),
  completeEpisode: t.withAuth({ write: true }).field({
    type: FinishPayload,
    errors: { types: transitionErrors },
    args: {
      episodeId: t.arg.id({ required: true }),
      outcome: t.arg({ type: OutcomeInput, required: true }),
      extractPatterns: t.arg({ type: ExtractPatternsModeEnum, defaultValue: 'ASYNC' }),
      usedRetrievals: t.arg.idList({
        description:
          'Retrievals (relevantEpisodes / relevantPatterns retrievalId) this episode used: what they served is credited on success, debited on failure.',
      }),
      endedAt: t.arg({ type: 'DateTime', description: HISTORICAL_END }),
    },
    resolve: async (_root, args, ctx) => {
      const episodeId = canonicalId(args.episodeId);
      throwIfViolations(timeRangeViolations('endedAt', 'endedAt', args.endedAt, null));
      const options = {
        extractPatterns: args.extractPatterns === 'SYNC' ? ('sync' as const) : ('async' as const),
        usedRetrievals: (args.usedRetrievals ?? []).map(String),
        endedAt: args.endedAt ?? null,
      };
      const result = await changeEpisode(ctx, episodeId, (w) => completeAndLearn(w, episodeId, toOutcome(args.outcome), options));
      return { episodeId, ...result };
    },
  }),
  failEpisode: endMutation(t, 'fail'),
  cancelEpisode: endMutation(t, 'cancel'),
  escalateEpisode: endMutation(t, 'escalate'),
}));

function endMutation(t: PothosSchemaTypes.MutationFieldBuilder<Types, Types['Root']>, action: 'fail' | 'cancel' | 'escalate') {
  return t.withAuth({ write: true }).field({
    type: FinishPayload,
    errors: { types: transitionErrors },
    args: {
      episodeId: t.arg.id({ required: true }),
      reason: t.arg.string({ required: action !== 'cancel' }),
      ...(action === 'fail' ? { recoverable: t.arg.boolean({ defaultValue: false }) } : {}),
    },
    resolve: async (_root, args, ctx) => {
      throwIfViolations(freeTextViolations('reason', args.reason));
      const episodeId = canonicalId(args.episodeId);
      const result = await changeEpisode(ctx, episodeId, (w: WriteContext) => endEpisode(w, episodeId, action, args.reason ?? '', args.recoverable ?? false));
      return { episodeId, ...result };
    },
  });
}
