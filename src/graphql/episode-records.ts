// Mutations that record on a running episode without ending it: a checkpoint, a critique, a miss
// of its context pack.

import { InputLimitError, NotFoundError } from '../core/errors.ts';
import { canonicalId } from '../core/ids.ts';
import * as records from '../lifecycle/records.ts';
import type { JsonValue } from '../validation/json.ts';
import { builder } from './builder.ts';
import { VirtueScoreInput } from './episode-inputs.ts';
import { EpisodePayload, PackMissPayload } from './episode-payloads.ts';
import { transitionErrors } from './lifecycle.ts';

builder.mutationFields((t) => ({
  saveCheckpoint: t.withAuth({ write: true }).field({
    type: EpisodePayload,
    errors: { types: transitionErrors },
    args: { episodeId: t.arg.id({ required: true }), label: t.arg.string(), state: t.arg({ type: 'JSON', required: true }) },
    resolve: async (_root, args, ctx) => {
      const episodeId = canonicalId(args.episodeId);
      await records.checkpoint(ctx.services, ctx.viewer.tenantId, episodeId, args.label ?? null, args.state as JsonValue);
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
      const episodeId = canonicalId(args.episodeId);
      const critique = { verdict: args.verdict, score: args.score, feedback: args.feedback, virtueScores: args.virtueScores ?? [] };
      await records.critique(ctx.services, ctx.viewer.tenantId, episodeId, critique);
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
      const episodeId = canonicalId(args.episodeId);
      const miss = { stableId: args.stableId, reason: args.reason, packHash: args.packHash ?? null };
      return { episodeId, ...(await records.packMiss(ctx.services, ctx.viewer.tenantId, episodeId, miss)) };
    },
  }),
}));
