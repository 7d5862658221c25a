// Journaling steps, as every door does it: the call's size and each step's limits checked before
// anything is written (refusing the call, or rejecting an invalid step alone), large content
// offloaded, the valid steps hashed and submitted to the group commit, one result per step.
import { type LimitViolation, NotFoundError, throwIfViolations } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { must } from '../core/must.ts';
import type { StepAction, StepItemResult } from './apply.ts';
import type { StepIngestor } from './ingest.ts';
import { type LargeContentMode, offloadLargeContent } from './large-content.ts';
import { checkStepBatchSize, type StepInput, validateStep } from './limits.ts';
import { prepareSteps } from './prepare.ts';

/** How a call treats large content and invalid steps. */
export interface LogOptions {
  largeContent: LargeContentMode;
  /** true: an invalid step is rejected alone (its violations in its result); false: it refuses the call. */
  rejectInvalid: boolean;
  /** appendLateTelemetry: a completed traced run's late spans (apply.ts); unset: logSteps. */
  action?: StepAction;
}

const DEFAULT_LOG_OPTIONS: LogOptions = { largeContent: 'refuse', rejectInvalid: false };

/** One step's result: the store's, or its violations when it was rejected as invalid. */
export interface ItemResult {
  index: number;
  item: StepItemResult;
  violations?: LimitViolation[];
}

/** What journaling a call's steps answers. */
export interface LogResult {
  episodeId: string;
  results: ItemResult[];
  /** The resource whose budget the call exhausted, if any. */
  exhausted: string | null;
}

/** A call's steps, checked: large content offloaded, each step's violations, and the steps that have none. */
export interface CheckedSteps {
  steps: ReturnType<typeof offloadLargeContent>[];
  perStep: LimitViolation[][];
  validIndexes: number[];
}

/** What journaling needs of the services. */
export interface JournalDeps {
  ingest: StepIngestor;
  redactKeys: readonly string[];
  blobCapBytes: number;
}

/**
 * Checks a call's steps before anything is written: the call's size, each step's limits (refusing
 * the call with InputLimitError, or rejecting the step alone with options.rejectInvalid).
 * @param single one step (logStep): violations name `step` (step.observation), not steps.0.observation
 */
export function checkSteps(raw: readonly StepInput[], options: LogOptions, single = false): CheckedSteps {
  throwIfViolations(checkStepBatchSize(raw.length, 'steps'));
  const steps = raw.map((s) => offloadLargeContent(s, options.largeContent));
  const perStep = steps.map((s, i) => validateStep(s.step, i, 'steps'));
  if (!options.rejectInvalid) {
    const violations = perStep.flat();
    throwIfViolations(
      single
        ? violations.map((v) => ({ ...v, field: v.field.replace(/^steps\.0\./, 'step.'), message: v.message.replace(/^steps\.0\./, 'step.') }))
        : violations,
    );
  }
  return { steps, perStep, validIndexes: perStep.flatMap((v, i) => (v.length ? [] : [i])) };
}

/** The checked steps' valid ones, hashed for the episode. */
export function prepareChecked(checked: CheckedSteps, episodeId: string, redactKeys: readonly string[]) {
  return prepareSteps(
    episodeId,
    checked.validIndexes.map((i) => must(checked.steps[i])),
    redactKeys,
  );
}

/** One result per step of the call: the store's for the valid ones (in order), the violations' for the others. */
export function stepResults(checked: CheckedSteps, stored: readonly StepItemResult[]): ItemResult[] {
  const accepted = new Map(checked.validIndexes.map((index, k) => [index, must(stored[k])]));
  return checked.perStep.map((violations, index): ItemResult => {
    const item = accepted.get(index);
    if (item) return { index, item };
    const message = `refused: ${violations.map((v) => v.message).join('; ')}`;
    return { index, item: { status: 'rejected', reason: 'invalid', message }, violations };
  });
}

/**
 * Journals a call's steps on an episode through the group commit. Throws OverloadedError when the
 * ingestor has no room (before any check), InputLimitError for a refused call, NotFoundError and
 * IllegalTransitionError for an episode that is not there or takes no steps.
 */
export async function journalSteps(
  deps: JournalDeps,
  tenantId: string,
  episodeId: string,
  steps: readonly StepInput[],
  options: LogOptions = DEFAULT_LOG_OPTIONS,
  single = false,
): Promise<LogResult> {
  deps.ingest.assertRoom(steps.length);
  const checked = checkSteps(steps, options, single);
  if (!isUuid(episodeId)) throw new NotFoundError('Episode', episodeId);
  const request = { episodeId, steps: prepareChecked(checked, episodeId, deps.redactKeys), blobCapBytes: deps.blobCapBytes, action: options.action };
  const outcome = await deps.ingest.submit(tenantId, request);
  if (!outcome.ok) throw outcome.error;
  return { episodeId, results: stepResults(checked, outcome.items), exhausted: outcome.exhausted };
}
