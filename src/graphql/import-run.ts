// importRun: a past run (its start, steps and outcome) imported in one call and one transaction,
// as `episodic import` sends it. Every input is checked before anything is written, as the three
// calls it replaces check theirs; what it writes and the ledger events it appends are theirs too.

import { IdempotencyConflictError, IllegalTransitionError, InputLimitError, LeaseError, NotFoundError, throwIfViolations } from '../core/errors.ts';
import { must } from '../core/must.ts';
import { timeRangeViolations } from '../episodes/import-limits.ts';
import { validateOutcome } from '../episodes/outcome-limits.ts';
import { LoopStoppedError } from '../leases/errors.ts';
import { type ImportRunResult, LOG_REQUEST_STEPS } from '../lifecycle/import-run.ts';
import type { HashedStep } from '../steps/prepare.ts';
import { builder } from './builder.ts';
import { OutcomeInput, StartEpisodeInputRef, toOutcome } from './episode-inputs.ts';
import { episodeField } from './episode-payloads.ts';
import { FinishPayload } from './finish-payloads.ts';
import { HISTORICAL_END } from './import-source.ts';
import { checkedStart } from './lifecycle.ts';
import { LogStepsOptionsInput, StepInputRef, toLogOptions } from './step-inputs.ts';
import { type CheckedSteps, checkSteps, type LogResult, LogStepsPayload, prepareChecked, stepResults } from './steps.ts';

interface ImportRunShape {
  episodeId: string;
  deduplicated: boolean;
  steps: LogResult | null;
  completion: ImportRunResult['completion'];
}

const ImportRunPayload = builder.objectRef<ImportRunShape>('ImportRunPayload').implement({
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

/** The valid steps hashed for the episode, grouped as the client's logSteps requests would carry them. */
function stepRequests(checked: CheckedSteps, episodeId: string, redactKeys: readonly string[]): HashedStep[][] {
  const hashed = prepareChecked(checked, episodeId, redactKeys);
  const groups = new Map<number, HashedStep[]>();
  checked.validIndexes.forEach((index, k) => {
    const group = Math.floor(index / LOG_REQUEST_STEPS);
    const steps = groups.get(group);
    if (steps) steps.push(must(hashed[k]));
    else groups.set(group, [must(hashed[k])]);
  });
  return [...groups.values()];
}

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
    resolve: async (_root, args, ctx) => {
      const start = checkedStart(args.input);
      if (!start.importSource)
        throwIfViolations([{ field: 'input.importSource', limit: 'required', message: 'input.importSource is required: importRun imports a past run' }]);
      const checked = checkSteps(args.steps, false, toLogOptions(args.options));
      const outcome = toOutcome(args.outcome);
      throwIfViolations([...validateOutcome(outcome, 'outcome'), ...timeRangeViolations('endedAt', 'endedAt', args.endedAt, null)]);
      const { services, viewer } = ctx;
      const run = {
        start,
        steps: (episodeId: string) => stepRequests(checked, episodeId, services.redactKeys),
        outcome,
        endedAt: args.endedAt ?? null,
        blobCapBytes: services.config.blobTotalCapBytes,
      };
      const result = await services.imports.submit(viewer.tenantId, run);
      const { episodeId, logged } = result;
      const steps = logged && { episodeId, results: stepResults(checked, logged.items), exhausted: logged.exhausted };
      return { episodeId, deduplicated: result.deduplicated, steps, completion: result.completion };
    },
  }),
);
