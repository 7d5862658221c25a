// The lifecycle mutations: start an episode, block and resume it, complete it or end it otherwise
// (fail, cancel, escalate). Resolvers translate; the checks and writes are lifecycle/start.ts and
// lifecycle/calls.ts.

import { IdempotencyConflictError, IllegalTransitionError, InputLimitError, LeaseError, NotFoundError } from '../core/errors.ts';
import { canonicalId } from '../core/ids.ts';
import { LoopStoppedError } from '../leases/errors.ts';
import * as calls from '../lifecycle/calls.ts';
import { startEpisode } from '../lifecycle/start.ts';
import type { JsonValue } from '../validation/json.ts';
import { builder } from './builder.ts';
import { OutcomeInput, StartEpisodeInputRef, toOutcome, toStartInput } from './episode-inputs.ts';
import { EpisodePayload, StartEpisodePayload, type Types } from './episode-payloads.ts';
import { FinishPayload } from './finish-payloads.ts';
import { HISTORICAL_END } from './import-source.ts';
import { ExtractPatternsModeEnum } from './pattern-enums.ts';

export const transitionErrors = [NotFoundError, IllegalTransitionError, InputLimitError];

builder.mutationFields((t) => ({
  startEpisode: t.withAuth({ write: true }).field({
    type: StartEpisodePayload,
    errors: { types: [InputLimitError, IdempotencyConflictError, NotFoundError, LeaseError, LoopStoppedError] },
    args: { input: t.arg({ type: StartEpisodeInputRef, required: true }) },
    resolve: (_root, { input }, ctx) => startEpisode(ctx.services, ctx.viewer.tenantId, toStartInput(input)),
  }),
  blockEpisode: t.withAuth({ write: true }).field({
    type: EpisodePayload,
    errors: { types: transitionErrors },
    args: { episodeId: t.arg.id({ required: true }), reason: t.arg.string({ required: true }), approvalRequest: t.arg({ type: 'JSON' }) },
    resolve: async (_root, args, ctx) => {
      const episodeId = canonicalId(args.episodeId);
      await calls.block(ctx.services, ctx.viewer.tenantId, episodeId, args.reason, (args.approvalRequest ?? null) as JsonValue);
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
      const episodeId = canonicalId(args.episodeId);
      const decision = { approved: args.approved, decidedBy: args.decidedBy ?? null, comment: args.comment ?? null };
      await calls.resume(ctx.services, ctx.viewer.tenantId, episodeId, decision);
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
      const options = {
        extractPatterns: args.extractPatterns === 'SYNC' ? ('sync' as const) : ('async' as const),
        usedRetrievals: (args.usedRetrievals ?? []).map(String),
        endedAt: args.endedAt ?? null,
      };
      const result = await calls.complete(ctx.services, ctx.viewer.tenantId, episodeId, toOutcome(args.outcome), options);
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
      const episodeId = canonicalId(args.episodeId);
      const result = await calls.end(ctx.services, ctx.viewer.tenantId, episodeId, action, args.reason ?? null, args.recoverable ?? false);
      return { episodeId, ...result };
    },
  });
}
