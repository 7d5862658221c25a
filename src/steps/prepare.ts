// Pure preparation of a step for storage: redacted parameters with a hash of the original,
// the result split into kind and body, and the bytes it adds to its episode.
import { contentHash } from '../ledger/hash.ts';
import { jsonBytes, type StepInput } from '../episodes/limits.ts';
import { redact } from './redact.ts';

export interface PreparedStep {
  kind: string;
  tool: string | null;
  action: string | null;
  parameters: unknown;
  argsHash: string | null;
  resultKind: string | null;
  result: unknown;
  observation: string | null;
  latencyMs: number | null;
  tokens: number;
  cost: number;
  sideEffectKey: string | null;
  worldBefore: unknown;
  worldAfter: unknown;
  metadata: unknown;
  sizeBytes: number;
}

const orNull = <T>(v: T | undefined | null): T | null => (v === undefined ? null : v);

export function prepareStep(step: StepInput, redactKeys: readonly string[]): PreparedStep {
  const hasParams = step.parameters !== undefined && step.parameters !== null;
  const { kind: resultKind, ...resultBody } = step.result ?? { kind: null };
  return {
    kind: step.kind,
    tool: orNull(step.tool),
    action: orNull(step.action),
    parameters: hasParams ? redact(step.parameters, redactKeys) : null,
    argsHash: hasParams ? contentHash(step.parameters) : null,
    resultKind,
    result: step.result ? resultBody : null,
    observation: orNull(step.observation),
    latencyMs: orNull(step.latencyMs),
    tokens: step.tokens ?? 0,
    cost: step.cost ?? 0,
    sideEffectKey: orNull(step.sideEffectKey),
    worldBefore: orNull(step.worldBefore),
    worldAfter: orNull(step.worldAfter),
    metadata: orNull(step.metadata),
    sizeBytes: jsonBytes(step),
  };
}

/** A prepared step with its content hash. */
export type HashedStep = PreparedStep & { contentHash: string };

/**
 * A call's validated steps, prepared for storage and hashed for their episode. Done before the
 * call joins a group commit, outside its transaction.
 */
export function prepareSteps(episodeId: string, steps: readonly StepInput[], redactKeys: readonly string[]): HashedStep[] {
  const id = episodeId.toLowerCase(); // hashed as the uuid column holds it
  return steps.map((s) => {
    const step = prepareStep(s, redactKeys);
    return { ...step, contentHash: stepContentHash(id, step) };
  });
}

/**
 * Hash of the step as stored, bound to its episode (a lowercase uuid). The steps.logged event binds
 * it to its step number ({n, hash}), so the hash needs no number and is computed before one is
 * assigned, off the commit path; an edited, moved or renumbered row is still detected.
 */
export function stepContentHash(episodeId: string, s: PreparedStep): string {
  return contentHash({
    episodeId,
    kind: s.kind,
    tool: s.tool,
    action: s.action,
    parameters: s.parameters,
    argsHash: s.argsHash,
    resultKind: s.resultKind,
    result: s.result,
    observation: s.observation,
    latencyMs: s.latencyMs,
    tokens: s.tokens,
    cost: s.cost,
    sideEffectKey: s.sideEffectKey,
    worldBefore: s.worldBefore,
    worldAfter: s.worldAfter,
    metadata: s.metadata,
  });
}
