// The calls that record on a running episode without ending it, as every door makes them: a
// checkpoint, a critique, a miss of its context pack. Each checks its input before it writes.
import { throwIfViolations } from '../core/errors.ts';
import { CALL_LIMITS, type CritiqueInput, freeTextViolations, validateCritique } from '../episodes/call-limits.ts';
import { validateCheckpointState } from '../episodes/limits.ts';
import * as store from '../episodes/store.ts';
import type { JsonValue } from '../validation/json.ts';
import { hashViolations } from '../validation/violations.ts';
import { type ChangeDeps, changeEpisode } from './calls.ts';
import { recordCritique } from './critique.ts';

/** Saves a checkpoint of the agent's state on the episode. */
export async function checkpoint(deps: ChangeDeps, tenantId: string, episodeId: string, label: string | null, state: JsonValue): Promise<void> {
  throwIfViolations([...freeTextViolations('label', label, CALL_LIMITS.labelBytes), ...validateCheckpointState(state)]);
  await changeEpisode(deps, tenantId, episodeId, (w) => store.saveCheckpoint(w, episodeId, label, state));
}

/** Records a critic's verdict and scores on the episode (re-scoring its experience). */
export async function critique(deps: ChangeDeps, tenantId: string, episodeId: string, input: CritiqueInput): Promise<void> {
  throwIfViolations(validateCritique(input));
  await changeEpisode(deps, tenantId, episodeId, (w) =>
    recordCritique(w, episodeId, {
      verdict: input.verdict,
      score: input.score ?? null,
      feedback: input.feedback ?? null,
      virtueScores: [...input.virtueScores],
    }),
  );
}

export interface PackMiss {
  stableId: string;
  reason: string;
  packHash: string | null;
}

/** Records that the agent needed something its context pack lacked; the first miss of a stable id is a defect record. */
export async function packMiss(deps: ChangeDeps, tenantId: string, episodeId: string, miss: PackMiss) {
  throwIfViolations([
    ...freeTextViolations('stableId', miss.stableId, CALL_LIMITS.labelBytes),
    ...freeTextViolations('reason', miss.reason),
    ...hashViolations('packHash', miss.packHash),
  ]);
  return deps.writer.run(tenantId, (w) => store.recordPackMiss(w, episodeId, miss));
}
