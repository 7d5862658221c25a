// The limits of starting an experiment, checked on the request as the API receives it. Pure.
import type { LimitViolation } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { EPISODE_LIMITS } from '../episodes/limits.ts';
import { finiteNumberViolations, identifierRule, integerViolations, textViolations } from '../validation/violations.ts';
import type { ControlRanking, ExperimentKind } from './arms.ts';

export const EXPERIMENT_LIMITS = {
  nameChars: 100,
  /** A holdout serves at least 1 % and at most 90 % of episodes the control arm. */
  minControlShare: 0.01,
  maxControlShare: 0.9,
  /** Runs per compared arm (or decided interleavings) before the answer claims anything. */
  minSampleFloor: 10,
  minSampleCeiling: 1_000_000,
  defaultMinSample: 100,
} as const;

/** Who the experiment applies to: the tenant's episodes, narrowed by any of these. */
export interface ExperimentScope {
  workItemId: string | null;
  agent: string | null;
  taskType: string | null;
}

export interface ExperimentRequest {
  name: string;
  kind: ExperimentKind;
  /** Holdout: the share of episodes served the control arm. Interleaving: unused. */
  controlShare: number;
  /** Holdout: what the control arm is served. Interleaving: the ranking the memory's is drafted against. */
  control: ControlRanking;
  minSample: number;
  /** Assignment seed; the same seed and episode always give the same arm. */
  seed: string;
  scope: ExperimentScope;
}

/** A scope's work item is named by its id, a UUID (the column is one): anything else is refused, never sent to PostgreSQL. */
function workItemViolations(workItemId: string | null): LimitViolation[] {
  if (workItemId === null || isUuid(workItemId)) return [];
  return [
    {
      field: 'input.scope.workItemId',
      limit: 'a UUID',
      actual: `${[...workItemId].length} characters`,
      message: `input.scope.workItemId must be a work item's id (a UUID), got "${[...workItemId].slice(0, 64).join('')}"`,
    },
  ];
}

export function experimentViolations(request: ExperimentRequest): LimitViolation[] {
  const L = EXPERIMENT_LIMITS;
  const violations = [
    ...textViolations('input.name', request.name, identifierRule(L.nameChars)),
    ...textViolations('input.seed', request.seed, identifierRule(L.nameChars)),
    ...integerViolations('input.minSample', request.minSample, L.minSampleFloor, L.minSampleCeiling),
    ...textViolations('input.scope.agent', request.scope.agent, identifierRule(EPISODE_LIMITS.agentChars)),
    ...textViolations('input.scope.taskType', request.scope.taskType, identifierRule(EPISODE_LIMITS.taskTypeChars)),
    ...workItemViolations(request.scope.workItemId),
  ];
  if (request.kind === 'holdout') violations.push(...finiteNumberViolations('input.controlShare', request.controlShare, L.minControlShare, L.maxControlShare));
  if (request.kind === 'interleave' && request.control === 'nothing') {
    violations.push({
      field: 'input.control',
      limit: 'a ranking',
      actual: 'NOTHING',
      message: 'input.control must be a ranking to interleave with, not NOTHING',
    });
  }
  return violations;
}
