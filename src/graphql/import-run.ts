// importRun: a past run (its start, steps and outcome) imported in one call and one transaction,
// as `episodic import` sends it, through lifecycle/import.ts (which checks it whole first).

import { IdempotencyConflictError, IllegalTransitionError, InputLimitError, LeaseError, NotFoundError } from '../core/errors.ts';
import { LoopStoppedError } from '../leases/errors.ts';
import { type ImportedRun, importRun } from '../lifecycle/import.ts';
import { builder } from './builder.ts';
import { OutcomeInput, StartEpisodeInputRef, toOutcome, toStartInput } from './episode-inputs.ts';
import { episodeField } from './episode-payloads.ts';
import { FinishPayload } from './finish-payloads.ts';
import { HISTORICAL_END } from './import-source.ts';
import { LogStepsOptionsInput, StepInputRef, toLogOptions, toStepInput } from './step-inputs.ts';
import { journalDeps, LogStepsPayload } from './steps.ts';

const ImportRunPayload = builder.objectRef<ImportedRun>('ImportRunPayload').implement({
  fields: (t) => ({
    episode: episodeField(t),
    deduplicated: t.exposeBoolean('deduplicated', { description: "True when the run's dedupeKey matched an earlier import of it." }),
    steps: t.field({
      type: LogStepsPayload,
      nullable: true,
      description: 'What logSteps would answer for the steps, one result per step; null when the run had been imported and had ended before.',
      resolve: (p) => p.steps,
    }),
    completion: t.field({
      type: FinishPayload,
      nullable: true,
      description: 'What completeEpisode would answer; null when nothing was logged, or when a budget stopped the episode during its steps.',
      resolve: (p) => p.completion && { episodeId: p.episodeId, ...p.completion },
    }),
  }),
});

builder.mutationField('importRun', (t) =>
  t.withAuth({ write: true }).field({
    type: ImportRunPayload,
    description:
      'Imports a past run whole, in one transaction: startEpisode (input.importSource required), logSteps and completeEpisode, with the same rows, the same ledger events and the same limits. Sent again, it finds the run by its dedupeKey.',
    errors: { types: [InputLimitError, IdempotencyConflictError, NotFoundError, LeaseError, LoopStoppedError, IllegalTransitionError] },
    args: {
      input: t.arg({ type: StartEpisodeInputRef, required: true }),
      steps: t.arg({ type: [StepInputRef], required: true, description: 'At most 1,000 steps, as logSteps takes them.' }),
      options: t.arg({ type: LogStepsOptionsInput, description: "logSteps' options for the steps." }),
      outcome: t.arg({ type: OutcomeInput, required: true }),
      endedAt: t.arg({ type: 'DateTime', description: HISTORICAL_END }),
    },
    resolve: (_root, args, ctx) => {
      const run = {
        start: toStartInput(args.input),
        steps: args.steps.map(toStepInput),
        options: toLogOptions(args.options),
        outcome: toOutcome(args.outcome),
        endedAt: args.endedAt ?? null,
      };
      return importRun({ ...journalDeps(ctx.services), imports: ctx.services.imports }, ctx.viewer.tenantId, run);
    },
  }),
);
