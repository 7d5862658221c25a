// Importing a past run, as every door does it (importRun, `episodic import` through it): its start,
// steps and outcome checked whole before anything is written, as the three calls it replaces check
// theirs, then the run submitted to the import group commit.
import { throwIfViolations } from '../core/errors.ts';
import { must } from '../core/must.ts';
import { timeRangeViolations } from '../episodes/import-limits.ts';
import type { Outcome } from '../episodes/outcome.ts';
import { validateOutcome } from '../episodes/outcome-limits.ts';
import type { StartInput } from '../episodes/store.ts';
import { type CheckedSteps, checkSteps, type LogOptions, type LogResult, prepareChecked, stepResults } from '../steps/journal.ts';
import type { StepInput } from '../steps/limits.ts';
import type { HashedStep } from '../steps/prepare.ts';
import type { ImportBatcher } from './import-batch.ts';
import { type ImportRunResult, LOG_REQUEST_STEPS } from './import-run.ts';
import { checkStart } from './start.ts';

/** A past run as a door hands it over. */
export interface PastRun {
  start: StartInput;
  steps: readonly StepInput[];
  options: LogOptions;
  outcome: Outcome;
  endedAt: Date | null;
}

export interface ImportedRun {
  episodeId: string;
  deduplicated: boolean;
  /** What journalSteps would answer for the steps; null when the run had been imported and had ended before. */
  steps: LogResult | null;
  /** Null when nothing was logged, or when a budget stopped the episode during its steps. */
  completion: ImportRunResult['completion'];
}

/** What an import needs of the services. */
export interface ImportDeps {
  imports: ImportBatcher;
  redactKeys: readonly string[];
  blobCapBytes: number;
}

/** Checks a past run whole (InputLimitError naming each field and its limit), then imports it in one transaction. */
export async function importRun(deps: ImportDeps, tenantId: string, run: PastRun): Promise<ImportedRun> {
  checkStart(run.start);
  if (!run.start.importSource)
    throwIfViolations([{ field: 'input.importSource', limit: 'required', message: 'input.importSource is required: importRun imports a past run' }]);
  const checked = checkSteps(run.steps, run.options);
  throwIfViolations([...validateOutcome(run.outcome, 'outcome'), ...timeRangeViolations('endedAt', 'endedAt', run.endedAt, null)]);
  const result = await deps.imports.submit(tenantId, {
    start: run.start,
    steps: (episodeId: string) => stepRequests(checked, episodeId, deps.redactKeys),
    outcome: run.outcome,
    endedAt: run.endedAt,
    blobCapBytes: deps.blobCapBytes,
  });
  const { episodeId, logged } = result;
  const steps = logged && { episodeId, results: stepResults(checked, logged.items), exhausted: logged.exhausted };
  return { episodeId, deduplicated: result.deduplicated, steps, completion: result.completion };
}

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
