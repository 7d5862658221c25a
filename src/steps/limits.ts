// Limits of the steps an agent logs: each step's fields, the steps of one call, and the steps an
// episode may hold. Validators return violations (src/validation/violations.ts), never throw.

import { timeRangeViolations } from '../episodes/import-limits.ts';
import { EPISODE_LIMITS } from '../episodes/limits.ts';
import { type JsonObject, type JsonValue, jsonViolations } from '../validation/json.ts';
import { countViolations, finiteNumberViolations, identifierRule, integerViolations, type LimitViolation, textViolations } from '../validation/violations.ts';

export const STEP_LIMITS = {
  // One call may carry at most a full episode's worth of steps.
  stepsPerCall: 1000,
  observationBytes: 10 * 1024,
  parametersBytes: 1024 * 1024,
  stepKindChars: 64,
  toolChars: 200,
  actionBytes: 4 * 1024,
  errorClassChars: 100,
  errorMessageBytes: 10 * 1024,
  // 1 MB, the artifact size limit: a step result is the artifact it produced.
  resultOutputBytes: 1024 * 1024,
  worldStateBytes: 1024 * 1024,
  sideEffectKeyChars: 256,
  metadataBytes: 64 * 1024,
  // Per step: a thousand steps at the limit still sum to a finite number (an unbounded cost
  // summed to Infinity, which no GraphQL Float can carry, and the episode could not be read).
  stepCost: 1e12,
} as const;

export type StepResult =
  | { kind: 'success'; output?: string | null }
  | { kind: 'error'; message: string; errorClass?: string | null; output?: string | null }
  | { kind: 'timeout' };

export interface StepInput {
  /** snake_case: tool_call, llm_call, observation, approval_requested, approval_resolved, checkpoint, ... */
  kind: string;
  tool?: string | null;
  action?: string | null;
  parameters?: JsonValue;
  result?: StepResult | null;
  observation?: string | null;
  latencyMs?: number | null;
  tokens?: number | null;
  cost?: number | null;
  sideEffectKey?: string | null;
  worldBefore?: JsonValue;
  worldAfter?: JsonValue;
  metadata?: JsonObject | null;
  /** When the step really ran (an imported run); not in the future, startedAt <= endedAt. */
  startedAt?: Date | null;
  endedAt?: Date | null;
}

/** @param listField path of the step list; the step's own path is `${listField}.${index}` */
export function validateStep(step: StepInput, index: number, listField = 'input.steps'): LimitViolation[] {
  const at = (name: string): string => `${listField}.${index}.${name}`;
  return [
    ...stepKindViolations(at('kind'), step.kind),
    ...textViolations(at('tool'), step.tool, identifierRule(STEP_LIMITS.toolChars)),
    ...textViolations(at('action'), step.action, { maxBytes: STEP_LIMITS.actionBytes }),
    ...jsonViolations(at('parameters'), step.parameters, STEP_LIMITS.parametersBytes),
    ...(step.result ? resultViolations(at('result'), step.result) : []),
    ...textViolations(at('observation'), step.observation, { maxBytes: STEP_LIMITS.observationBytes }),
    ...integerViolations(at('latencyMs'), step.latencyMs, 0),
    ...integerViolations(at('tokens'), step.tokens, 0),
    ...finiteNumberViolations(at('cost'), step.cost, 0, STEP_LIMITS.stepCost),
    ...textViolations(at('sideEffectKey'), step.sideEffectKey, identifierRule(STEP_LIMITS.sideEffectKeyChars)),
    ...jsonViolations(at('worldBefore'), step.worldBefore, STEP_LIMITS.worldStateBytes),
    ...jsonViolations(at('worldAfter'), step.worldAfter, STEP_LIMITS.worldStateBytes),
    ...jsonViolations(at('metadata'), step.metadata, STEP_LIMITS.metadataBytes),
    ...timeRangeViolations(at('startedAt'), at('endedAt'), step.startedAt, step.endedAt),
  ];
}

const SNAKE_CASE = /^[a-z][a-z0-9_]*$/;

function stepKindViolations(field: string, kind: string): LimitViolation[] {
  const violations = textViolations(field, kind, identifierRule(STEP_LIMITS.stepKindChars));
  if (violations.length > 0 || SNAKE_CASE.test(kind)) return violations;
  return [{ field, limit: 'snake_case', message: `${field} must be snake_case (a-z, 0-9, _), like tool_call` }];
}

function resultViolations(field: string, result: StepResult): LimitViolation[] {
  if (result.kind === 'success') {
    return textViolations(`${field}.output`, result.output, { maxBytes: STEP_LIMITS.resultOutputBytes });
  }
  if (result.kind === 'error') {
    return [
      ...textViolations(`${field}.output`, result.output, { maxBytes: STEP_LIMITS.resultOutputBytes }),
      ...textViolations(`${field}.message`, result.message, { maxBytes: STEP_LIMITS.errorMessageBytes, nonEmpty: true }),
      ...textViolations(`${field}.errorClass`, result.errorClass, identifierRule(STEP_LIMITS.errorClassChars)),
    ];
  }
  return [];
}

/** A single call may carry at most STEP_LIMITS.stepsPerCall steps. */
export function checkStepBatchSize(count: number, field = 'input.steps'): LimitViolation[] {
  return countViolations(field, count, STEP_LIMITS.stepsPerCall, 'steps in one call');
}

/** An episode holds at most EPISODE_LIMITS.maxSteps steps. */
export function checkStepCount(existingSteps: number, addedSteps: number, field = 'input.steps'): LimitViolation[] {
  return countViolations(field, existingSteps + addedSteps, EPISODE_LIMITS.maxSteps, 'steps in an episode');
}
