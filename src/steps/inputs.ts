// The GraphQL step input (enums in UPPER_CASE) to the domain's StepInput.
import type { JsonObject, JsonValue } from '../validation/json.ts';
import type { StepInput } from './limits.ts';

export interface GqlStepInput {
  kind?: string | null;
  tool?: string | null;
  action?: string | null;
  parameters?: unknown;
  result?: { kind: string; output?: string | null; message?: string | null; errorClass?: string | null } | null;
  observation?: string | null;
  latencyMs?: number | null;
  tokens?: number | null;
  cost?: number | null;
  sideEffectKey?: string | null;
  worldBefore?: unknown;
  worldAfter?: unknown;
  metadata?: unknown;
  startedAt?: Date | null;
  endedAt?: Date | null;
}

function toStepResult(r: NonNullable<GqlStepInput['result']>): StepInput['result'] {
  if (r.kind === 'SUCCESS') return { kind: 'success', output: r.output ?? null };
  // An error's output is left out when none is given, so the stored result (and its hash) is as before.
  if (r.kind === 'ERROR')
    return { kind: 'error', message: r.message ?? '', errorClass: r.errorClass ?? null, ...(r.output != null ? { output: r.output } : {}) };
  return { kind: 'timeout' };
}

export function toStepInput(s: GqlStepInput): StepInput {
  return {
    kind: s.kind ?? 'tool_call',
    tool: s.tool ?? null,
    action: s.action ?? null,
    parameters: (s.parameters ?? null) as JsonValue,
    result: s.result ? toStepResult(s.result) : null,
    observation: s.observation ?? null,
    latencyMs: s.latencyMs ?? null,
    tokens: s.tokens ?? null,
    cost: s.cost ?? null,
    sideEffectKey: s.sideEffectKey ?? null,
    worldBefore: (s.worldBefore ?? null) as JsonValue,
    worldAfter: (s.worldAfter ?? null) as JsonValue,
    metadata: (s.metadata ?? null) as JsonObject | null,
    // Only when given: a step's stored size (its JSON) is what it was before these fields existed.
    ...(s.startedAt ? { startedAt: s.startedAt } : {}),
    ...(s.endedAt ? { endedAt: s.endedAt } : {}),
  };
}
