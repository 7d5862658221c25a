// forgetSteps and forgetEpisode: an admin's request to forget step content (src/steps/forget.ts) or a
// whole run (src/lifecycle/forget.ts), docs/LEDGER.md §3.4.
import { IllegalTransitionError, InputLimitError, NotFoundError } from '../core/errors.ts';
import { canonicalId, isUuid } from '../core/ids.ts';
import { type ForgetEpisodeResult, forgetEpisodeRecorded } from '../lifecycle/forget.ts';
import { type ForgetStepsResult, forgetStepsRecorded } from '../steps/forget.ts';
import { builder } from './builder.ts';

const ForgetStepsPayload = builder.objectRef<ForgetStepsResult>('ForgetStepsPayload').implement({
  fields: (t) => ({
    episodeId: t.exposeID('episodeId'),
    forgotten: t.exposeIntList('forgotten', { description: 'Step numbers whose content was forgotten by this call (not those forgotten before).' }),
    blobsDeleted: t.exposeInt('blobsDeleted', { description: 'Blobs deleted because no kept step references them any more.' }),
  }),
});

builder.mutationFields((t) => ({
  forgetSteps: t.withAuth({ admin: true }).field({
    type: ForgetStepsPayload,
    errors: { types: [InputLimitError, NotFoundError] },
    description:
      "Deletes the content of an episode's steps (all, or those numbered) and their unreferenced blobs; a steps.forgotten ledger event, committed with it, names each step and its logged hash and the admin key that asked. The chain, proofs and bundles still verify, reporting these steps as forgotten (docs/LEDGER.md §3.4).",
    args: {
      episodeId: t.arg.id({ required: true }),
      stepNumbers: t.arg.intList({ description: 'The steps to forget; omitted: every step of the episode.' }),
      reason: t.arg.string({ required: true, description: 'Why (recorded in the ledger event): at most 500 characters.' }),
    },
    resolve: async (_root, { episodeId, stepNumbers, reason }, ctx) => {
      if (!isUuid(episodeId)) throw new NotFoundError('Episode', String(episodeId));
      const { tenantId, keyId } = ctx.viewer;
      // The content's deletion and its steps.forgotten ledger event commit together.
      return ctx.services.writer.run(tenantId, (w) =>
        forgetStepsRecorded(w, { episodeId: canonicalId(episodeId), stepNumbers: stepNumbers ?? null, reason }, { keyId }),
      );
    },
  }),
}));

const ForgetEpisodePayload = builder.objectRef<ForgetEpisodeResult>('ForgetEpisodePayload').implement({
  fields: (t) => ({
    episodeId: t.exposeID('episodeId'),
    forgotten: t.exposeBoolean('forgotten', { description: 'False when the episode had been forgotten before: nothing was done, no event written.' }),
    stepsForgotten: t.exposeIntList('stepsForgotten', { description: 'Step numbers whose content this call forgot.' }),
    blobsDeleted: t.exposeInt('blobsDeleted', { description: 'Blobs deleted because no kept step references them any more.' }),
    rowsForgotten: t.exposeInt('rowsForgotten', {
      description: 'Hashed values deleted (the record, outcome, critique, reward, reflection, checkpoint states), each named in the episode.forgotten event.',
    }),
  }),
});

builder.mutationFields((t) => ({
  forgetEpisode: t.withAuth({ admin: true }).field({
    type: ForgetEpisodePayload,
    errors: { types: [InputLimitError, NotFoundError, IllegalTransitionError] },
    description:
      'Forgets an ended episode: its task, goal, context and metadata, outcome, critique, reward, reflection, checkpoint states, step content and unreferenced blobs, its retrieval index entries and the patterns only it showed. A steps.forgotten and an episode.forgotten ledger event, committed with it, name what was deleted with its hashes and the admin key that asked; the chain, proofs and bundles still verify, reporting it forgotten (docs/LEDGER.md §3.4). A forgotten run is never retrieved or listed again.',
    args: {
      episodeId: t.arg.id({ required: true }),
      reason: t.arg.string({ required: true, description: 'Why (recorded in the ledger events): at most 500 characters.' }),
    },
    resolve: async (_root, { episodeId, reason }, ctx) => {
      if (!isUuid(episodeId)) throw new NotFoundError('Episode', String(episodeId));
      const { tenantId, keyId } = ctx.viewer;
      return ctx.services.writer.run(tenantId, (w) => forgetEpisodeRecorded(w, { episodeId: canonicalId(episodeId), reason }, { keyId }));
    },
  }),
}));
