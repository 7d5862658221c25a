// The plan trace and its trace steps, and how they are journaled as steps of an episode.
import type { Json, StepInput } from '../client/types.ts';

export interface PlanStep {
  skill?: string;
  params?: Json;
  [key: string]: Json | undefined;
}

export interface Plan {
  steps: PlanStep[];
  [key: string]: Json | PlanStep[] | undefined;
}

export interface TraceStep {
  worldBefore: Json;
  action: { type: string; params?: Json };
  result: { success: boolean; error?: string | null; details?: Json };
  worldAfter: Json;
  meta?: { [key: string]: Json };
  tokens?: number;
  latencyMs?: number;
}

export interface PlanTrace {
  plan: Plan;
  steps: TraceStep[];
  plannerPayload: Json;
  techState: Json;
  contextId: string | null;
  virtueScores: Record<string, number>;
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** The planner call as the first journaled step: what it saw and the plan it returned. */
export function plannerStep(goal: Json | null, trace: PlanTrace, plannerName: string | undefined): StepInput {
  return {
    kind: 'llm_call',
    tool: plannerName ?? 'planner',
    action: 'plan',
    parameters: { goal, observation: trace.plannerPayload },
    result: { kind: 'SUCCESS', output: JSON.stringify(trace.plan) },
    worldBefore: trace.plannerPayload,
    metadata: { contextId: trace.contextId, planSteps: trace.plan.steps.length },
  };
}

/** One trace step as a journaled tool call, world state before and after included. */
export function traceStepInput(step: TraceStep): StepInput {
  const skill = typeof step.meta?.skill === 'string' ? step.meta.skill : undefined;
  return {
    kind: 'tool_call',
    tool: skill ?? step.action.type,
    action: step.action.type,
    parameters: step.action.params ?? null,
    result: step.result.success
      ? { kind: 'SUCCESS', output: step.result.details === undefined ? undefined : clip(JSON.stringify(step.result.details), 100_000) }
      : { kind: 'ERROR', message: clip(step.result.error ?? 'failed', 10_000), errorClass: 'action_failed' },
    worldBefore: step.worldBefore,
    worldAfter: step.worldAfter,
    metadata: step.meta ?? null,
    tokens: step.tokens,
    latencyMs: step.latencyMs,
  };
}

/** What the critic sees: the plan, the steps and their results (nothing else of the episode). */
export function encodeForCritic(trace: PlanTrace): Json {
  return {
    plan: trace.plan as unknown as Json,
    contextId: trace.contextId,
    steps: trace.steps.map((s) => ({
      action: s.action as unknown as Json,
      success: s.result.success,
      error: s.result.error ?? null,
      worldAfter: s.worldAfter,
    })),
  };
}
