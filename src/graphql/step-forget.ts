// forgetSteps: an admin's request to forget step content (src/steps/forget.ts, docs/LEDGER.md §3.4).
import { InputLimitError, NotFoundError } from '../core/errors.ts';
import { canonicalId, isUuid } from '../core/ids.ts';
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
