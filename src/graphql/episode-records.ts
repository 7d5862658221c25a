// Mutations that record on a running episode without ending it: a checkpoint, a critique, a miss
// of its context pack.

import { InputLimitError, NotFoundError, throwIfViolations } from '../core/errors.ts';
import { canonicalId } from '../core/ids.ts';
import { CALL_LIMITS, freeTextViolations, validateCritique } from '../episodes/call-limits.ts';
import { validateCheckpointState } from '../episodes/limits.ts';
import * as store from '../episodes/store.ts';
import { recordCritique } from '../lifecycle/critique.ts';
import type { JsonValue } from '../validation/json.ts';
import { hashViolations } from '../validation/violations.ts';
import { builder } from './builder.ts';
import { VirtueScoreInput } from './episode-inputs.ts';
import { EpisodePayload, PackMissPayload } from './episode-payloads.ts';
import { changeEpisode, transitionErrors } from './lifecycle.ts';

builder.mutationFields((t) => ({
  saveCheckpoint: t.withAuth({ write: true }).field({
    type: EpisodePayload,
    errors: { types: transitionErrors },
    args: { episodeId: t.arg.id({ required: true }), label: t.arg.string(), state: t.arg({ type: 'JSON', required: true }) },
    resolve: async (_root, args, ctx) => {
      throwIfViolations([...freeTextViolations('label', args.label, CALL_LIMITS.labelBytes), ...validateCheckpointState(args.state as JsonValue)]);
      const episodeId = canonicalId(args.episodeId);
      await changeEpisode(ctx, episodeId, (w) => store.saveCheckpoint(w, episodeId, args.label ?? null, args.state as JsonValue));
      return { episodeId };
    },
  }),
  recordCritique: t.withAuth({ write: true }).field({
    type: EpisodePayload,
    errors: { types: transitionErrors },
    args: {
      episodeId: t.arg.id({ required: true }),
      verdict: t.arg.string({ required: true }),
      score: t.arg.float(),
      feedback: t.arg.string(),
      virtueScores: t.arg({ type: [VirtueScoreInput] }),
    },
    resolve: async (_root, args, ctx) => {
      const scores = args.virtueScores ?? [];
      throwIfViolations(validateCritique({ verdict: args.verdict, score: args.score, feedback: args.feedback, virtueScores: scores }));
      const episodeId = canonicalId(args.episodeId);
      await changeEpisode(ctx, episodeId, (w) =>
        recordCritique(w, episodeId, { verdict: args.verdict, score: args.score ?? null, feedback: args.feedback ?? null, virtueScores: scores }),
      );
      return { episodeId };
    },
  }),
  recordPackMiss: t.withAuth({ write: true }).field({
    type: PackMissPayload,
    description: 'Records that the agent needed something its context pack lacked; the first miss of a stable id is a defect record.',
    errors: { types: [NotFoundError, InputLimitError] },
    args: {
      episodeId: t.arg.id({ required: true }),
      stableId: t.arg.string({ required: true }),
      reason: t.arg.string({ required: true }),
      packHash: t.arg.string(),
    },
    resolve: async (_root, args, ctx) => {
      throwIfViolations([
        ...freeTextViolations('stableId', args.stableId, CALL_LIMITS.labelBytes),
        ...freeTextViolations('reason', args.reason),
        ...hashViolations('packHash', args.packHash),
      ]);
      const episodeId = canonicalId(args.episodeId);
      const result = await ctx.services.writer.run(ctx.viewer.tenantId, (w) =>
        store.recordPackMiss(w, episodeId, { stableId: args.stableId, reason: args.reason, packHash: args.packHash ?? null }),
      );
      return { episodeId, ...result };
    },
  }),
}));
