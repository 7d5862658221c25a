// The agent loop, one episode per call: plan -> execute plan steps into trace steps with
// the world state before and after -> optional critic and virtue scoring (advisory: their
// exceptions are caught and recorded, never thrown) -> the experience stored through the API
// (the planner call and every trace step journaled, the critique recorded, the episode completed).
import type { EpisodicClient } from '../client/client.ts';
import { EpisodicError, isErrorResult, unwrap } from '../client/errors.ts';
import type { Episode, Json, OutcomeInput, StartEpisodeInput, VirtueScoreInput } from '../client/types.ts';
import { must } from '../core/must.ts';
import { encodeForCritic, type Plan, type PlanStep, type PlanTrace, plannerStep, type TraceStep, traceStepInput } from './trace.ts';

export interface AgentRuntime {
  /** planner_tick: a plan with steps. */
  plan(goal: Json | null): Plan | Promise<Plan>;
  /** The planner's latest observation payload. */
  observe?(): Json | Promise<Json>;
  techState?(): Json;
  contextId?: string;
  plannerName?: string;
  /** Runs one plan step (skill -> actions) and returns its trace steps. */
  executePlanStep(step: PlanStep, index: number): TraceStep[] | Promise<TraceStep[]>;
}

export interface CriticResult {
  verdict: string;
  score?: number;
  feedback?: string;
}

export interface Critic {
  evaluate(payload: Json, trace: PlanTrace): CriticResult | Promise<CriticResult>;
}

export interface VirtueEngine {
  scoreTrace(trace: PlanTrace, contextId: string | null): Record<string, number> | Promise<Record<string, number>>;
}

export interface AgentLoopConfig {
  enableCritic: boolean;
  storeExperiences: boolean;
  maxSkillSteps: number;
  failFastOnInvalidPlan: boolean;
  logVirtueScores: boolean;
}

const DEFAULT_AGENT_LOOP_CONFIG: AgentLoopConfig = {
  enableCritic: true,
  storeExperiences: true,
  maxSkillSteps: 16,
  failFastOnInvalidPlan: true,
  logVirtueScores: true,
};

export interface AgentEpisodeOptions {
  task: Pick<StartEpisodeInput, 'taskDescription' | 'taskType' | 'agent' | 'context' | 'metadata' | 'leaseId' | 'workItemId' | 'episodeNumber' | 'budget'>;
  goal?: Json | null;
  runtime: AgentRuntime;
  critic?: Critic;
  virtueEngine?: VirtueEngine;
  config?: Partial<AgentLoopConfig>;
}

export interface AgentEpisodeResult {
  episodeId: string;
  plan: Plan;
  trace: PlanTrace;
  criticResult: CriticResult | null;
  /** Messages of critic / virtue / executor exceptions, caught and recorded. */
  problems: string[];
  outcome: OutcomeInput;
  /** The episode as stored, after completion. */
  episode: Episode;
  startedAt: number;
  finishedAt: number;
}

const message = (err: unknown) => (err as Error)?.message ?? String(err);

function isPlan(value: unknown): value is Plan {
  return typeof value === 'object' && value !== null && Array.isArray((value as Plan).steps);
}

async function executeInto(runtime: AgentRuntime, plan: Plan, trace: PlanTrace, maxSteps: number, problems: string[]): Promise<void> {
  for (const [index, spec] of plan.steps.slice(0, maxSteps).entries()) {
    let steps: TraceStep[];
    try {
      steps = await runtime.executePlanStep(spec, index);
    } catch (err) {
      problems.push(`executor: ${message(err)}`);
      trace.steps.push({
        worldBefore: null,
        action: { type: String(spec.skill ?? 'unknown') },
        result: { success: false, error: message(err) },
        worldAfter: null,
        meta: { planStepIndex: index },
      });
      return;
    }
    trace.steps.push(...steps);
    if (steps.length && !must(steps[steps.length - 1]).result.success) return; // fail fast
  }
}

function outcomeOf(plan: Plan, trace: PlanTrace, maxSteps: number): OutcomeInput {
  const describe = (s: TraceStep, i: number) => `#${i + 1} ${s.action.type}`;
  const ok = trace.steps
    .map((s, i) => [s, i] as const)
    .filter(([s]) => s.result.success)
    .map(([s, i]) => describe(s, i));
  const bad = trace.steps
    .map((s, i) => [s, i] as const)
    .filter(([s]) => !s.result.success)
    .map(([s, i]) => describe(s, i));
  const planned = Math.min(plan.steps.length, maxSteps);
  if (!bad.length && trace.steps.length > 0 && planned === plan.steps.length)
    return { kind: 'SUCCESS', verdict: `executed ${planned} plan steps`, artifacts: [] };
  if (ok.length) return { kind: 'PARTIAL', verdict: `${ok.length} actions succeeded, ${bad.length} failed`, completed: ok, failed: bad };
  return { kind: 'FAILURE', reason: trace.steps.length ? 'actions_failed' : 'nothing_executed', details: bad.join('; ') || 'the plan had no steps' };
}

async function criticOf(options: AgentEpisodeOptions, config: AgentLoopConfig, trace: PlanTrace, problems: string[]): Promise<CriticResult | null> {
  if (!config.enableCritic || !options.critic) return null;
  try {
    return await options.critic.evaluate(encodeForCritic(trace), trace);
  } catch (err) {
    problems.push(`critic: ${message(err)}`);
    return null;
  }
}

async function scoreVirtues(options: AgentEpisodeOptions, config: AgentLoopConfig, trace: PlanTrace, problems: string[]): Promise<void> {
  if (!config.logVirtueScores || !options.virtueEngine) return;
  try {
    const scores = await options.virtueEngine.scoreTrace(trace, trace.contextId);
    trace.virtueScores = Object.fromEntries(Object.entries(scores).filter(([, v]) => Number.isFinite(v)));
  } catch (err) {
    problems.push(`virtues: ${message(err)}`);
  }
}

/** The critique as stored: the critic's verdict, or the failure that prevented one. */
function critiqueInput(critic: CriticResult | null, trace: PlanTrace, problems: string[]) {
  const virtueScores: VirtueScoreInput[] = Object.entries(trace.virtueScores).map(([name, score]) => ({ name, score }));
  const failures = problems.filter((p) => p.startsWith('critic:') || p.startsWith('virtues:'));
  if (!critic && !virtueScores.length && !failures.length) return null;
  const feedback = [critic?.feedback, ...failures].filter(Boolean).join('\n') || undefined;
  return { verdict: critic?.verdict ?? (failures.length ? 'critic_unavailable' : 'not_evaluated'), score: critic?.score, feedback, virtueScores };
}

async function storeExperience(
  client: EpisodicClient,
  episodeId: string,
  options: AgentEpisodeOptions,
  trace: PlanTrace,
  critic: CriticResult | null,
  problems: string[],
) {
  const logged = await client.logSteps(episodeId, [plannerStep(options.goal ?? null, trace, options.runtime.plannerName), ...trace.steps.map(traceStepInput)]);
  if (isErrorResult(logged)) throw new EpisodicError('result', `storing the trace failed: ${logged.message}`, { result: logged as never });
  const critique = critiqueInput(critic, trace, problems);
  if (critique) unwrap(await client.recordCritique(episodeId, critique));
}

export async function runAgentEpisode(client: EpisodicClient, options: AgentEpisodeOptions): Promise<AgentEpisodeResult> {
  const config = { ...DEFAULT_AGENT_LOOP_CONFIG, ...options.config };
  const { runtime } = options;
  const startedAt = Date.now();
  const episodeId = unwrap(await client.startEpisode({ ...options.task, goalSpec: options.goal ?? undefined })).episode.id;
  const problems: string[] = [];

  let plan: Plan;
  try {
    const planned = await runtime.plan(options.goal ?? null);
    if (!isPlan(planned)) {
      if (config.failFastOnInvalidPlan) throw new Error('planner returned an invalid plan (no steps array)');
      problems.push('planner: invalid plan, treated as empty');
    }
    plan = isPlan(planned) ? planned : { steps: [] };
  } catch (err) {
    await client.failEpisode(episodeId, `planning failed: ${message(err)}`, true);
    throw err;
  }

  const trace: PlanTrace = {
    plan,
    steps: [],
    plannerPayload: (await runtime.observe?.()) ?? null,
    techState: runtime.techState?.() ?? null,
    contextId: runtime.contextId ?? null,
    virtueScores: {},
  };
  await executeInto(runtime, plan, trace, config.maxSkillSteps, problems);
  const criticResult = await criticOf(options, config, trace, problems);
  await scoreVirtues(options, config, trace, problems);

  if (config.storeExperiences) await storeExperience(client, episodeId, options, trace, criticResult, problems);
  const outcome = outcomeOf(plan, trace, config.maxSkillSteps);
  const finished = await client.completeEpisode(episodeId, outcome);
  // The episode may have been stopped by its budget while the trace was stored: report it as it is.
  const episode = isErrorResult(finished) ? unwrap(await client.episode(episodeId)) : finished.episode;
  return { episodeId, plan, trace, criticResult, problems, outcome, episode, startedAt, finishedAt: Date.now() };
}
