// Starting an episode, as every door does it: the input checked (its limits, its context pack's
// hashes), the start written with its ledger event, and the wall-time deadline scheduled.
import { type LimitViolation, throwIfViolations } from '../core/errors.ts';
import { validateEpisodeInput } from '../episodes/limits.ts';
import * as store from '../episodes/store.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { hashViolations } from '../validation/violations.ts';
import type { Writer } from '../write.ts';
import { scheduleDeadline } from './deadlines.ts';

/** What a start needs of the services. */
export interface StartDeps {
  writer: Writer;
  jobs: JobQueue;
}

/** What is out of its limits in a start's input, each field named under `field` with its limit (a door that screens before it writes, as OTLP does, reads them). */
export function startViolations(input: store.StartInput, field = 'input'): LimitViolation[] {
  return [
    ...validateEpisodeInput(input, field),
    ...hashViolations(`${field}.contextPack.packHash`, input.contextPack?.packHash),
    ...hashViolations(`${field}.contextPack.manifestHash`, input.contextPack?.manifestHash),
  ];
}

/** Refuses (InputLimitError, naming each field under `field` and its limit) a start whose input is out of its limits. */
export function checkStart(input: store.StartInput, field = 'input'): void {
  throwIfViolations(startViolations(input, field));
}

/** Checks and starts an episode; a new one with a wall-time budget gets its deadline job. */
export async function startEpisode(deps: StartDeps, tenantId: string, input: store.StartInput): Promise<store.StartResult> {
  checkStart(input);
  const result = await deps.writer.run(tenantId, (w) => store.startEpisode(w, input));
  if (result.deadlineAt && !result.deduplicated) await scheduleDeadline(deps.jobs, { tenantId, episodeId: result.episodeId }, result.deadlineAt);
  return result;
}
