/**
 * Reflection on a finished episode: successes, improvements and
 * insights derived from the steps, the outcome, the critique and how the episode stopped.
 *
 * Each list is a fixed sequence of rules; a rule yields one item or nothing. Items keep rule order,
 * so the most important come first, and a list is cut to REFLECTION_MAX_ITEMS. Items quote
 * agent-supplied text (verdicts, tool names), so each is cut to REFLECTION_ITEM_MAX_CHARS.
 * docs/LEARNING.md lists every rule and its threshold.
 */

import { must } from '../core/must.ts';
import { BUDGET_EXCEEDED, type Outcome } from '../episodes/outcome.ts';
import type { StopReason } from '../stops/stop-reason.ts';
import {
  type Critique,
  compareText,
  distinctTools,
  findRecoveries,
  inStepOrder,
  isFailure,
  type ResultedStep,
  resultedSteps,
  type StepFacts,
  stepSuccessRate,
} from './facts.ts';

export interface ReflectionInput {
  outcome: Outcome;
  steps: StepFacts[];
  /** Null: the run's times are unknown (an imported run without them), so no insight on its speed. */
  durationMs: number | null;
  critique: Critique | null;
  stopReason?: StopReason | null;
}

export interface Reflection {
  successes: string[];
  improvements: string[];
  insights: string[];
}

export const REFLECTION_MAX_ITEMS = 5;
export const REFLECTION_ITEM_MAX_CHARS = 300;
const THRESHOLDS = {
  highSuccessRate: 0.8,
  lowSuccessRate: 0.5,
  criticPraise: 0.7,
  criticConcern: 0.5,
  strongVirtue: 0.8,
  weakVirtue: 0.5,
  quickMs: 30_000,
  slowEpisodeMs: 300_000,
  manySteps: 50,
  slowStepFactor: 3,
  slowStepMinMs: 1000,
  manyTools: 5,
  heavyTokens: 10_000,
  minSequence: 3,
  maxSequenceShown: 5,
  namesShown: 3,
} as const;

interface Facts {
  input: ReflectionInput;
  steps: StepFacts[];
  resulted: ResultedStep[];
}

type Rule = (facts: Facts) => string | null;

export function generateReflection(input: ReflectionInput): Reflection {
  const facts: Facts = { input, steps: inStepOrder(input.steps), resulted: resultedSteps(input.steps) };
  return {
    successes: applyRules(SUCCESS_RULES, facts),
    improvements: applyRules(IMPROVEMENT_RULES, facts),
    insights: applyRules(INSIGHT_RULES, facts),
  };
}

function applyRules(rules: readonly Rule[], facts: Facts): string[] {
  return rules
    .map((rule) => rule(facts))
    .filter((item): item is string => item !== null)
    .slice(0, REFLECTION_MAX_ITEMS)
    .map((item) => clip(item, REFLECTION_ITEM_MAX_CHARS));
}

// ---- successes ----

const SUCCESS_RULES: readonly Rule[] = [
  ({ input: { outcome } }) => {
    if (outcome.kind === 'success') return `Completed the task: ${outcome.verdict}`;
    if (outcome.kind === 'failure' || outcome.kind === 'unknown') return null;
    const items = outcome.completed.length + outcome.failed.length;
    if (items === 0) return `Partly completed: ${outcome.verdict}`;
    if (outcome.completed.length === 0) return null;
    return `Completed ${outcome.completed.length} of ${items} items: ${outcome.verdict}`;
  },
  ({ input: { outcome } }) => {
    if (outcome.kind !== 'success' || outcome.artifacts.length === 0) return null;
    return `Produced ${outcome.artifacts.length} artifact(s): ${outcome.artifacts.slice(0, THRESHOLDS.namesShown).join(', ')}`;
  },
  ({ resulted }) => {
    const reliable = toolTallies(resulted).filter((tally) => tally.runs >= 2 && tally.failures === 0);
    if (reliable.length === 0) return null;
    const shown = reliable.slice(0, THRESHOLDS.namesShown).map((tally) => `${tally.tool} (${tally.runs} runs)`);
    return `Always succeeded: ${shown.join(', ')}`;
  },
  ({ steps, resulted }) => {
    const rate = stepSuccessRate(steps);
    if (rate === null || resulted.length < 3 || rate < THRESHOLDS.highSuccessRate) return null;
    const succeeded = resulted.length - resulted.filter(isFailure).length;
    return `${percent(rate)} of steps succeeded (${succeeded} of ${resulted.length})`;
  },
  ({ input: { critique } }) => {
    if (critique?.score == null || critique.score < THRESHOLDS.criticPraise) return null;
    return `Critic scored ${fixed(critique.score)}${critique.verdict ? `: ${critique.verdict}` : ''}`;
  },
  ({ input: { critique } }) => virtuesWhere(critique, (score) => score >= THRESHOLDS.strongVirtue, 'Strong virtues'),
  ({ input, steps }) => {
    if (steps.length === 0 || input.durationMs === null || input.durationMs >= THRESHOLDS.quickMs) return null;
    return `Finished in ${seconds(input.durationMs)} s over ${steps.length} steps`;
  },
];

// ---- improvements ----

const IMPROVEMENT_RULES: readonly Rule[] = [
  ({ input: { outcome } }) => {
    if (outcome.kind === 'failure') return `Failed: ${outcome.reason}${outcome.details ? ` (${outcome.details})` : ''}`;
    if (outcome.kind === 'partial' && outcome.failed.length > 0) {
      return `${outcome.failed.length} item(s) left unfinished, e.g. ${outcome.failed[0]}`;
    }
    return null;
  },
  ({ input }) => {
    const resource = exhaustedBudget(input);
    if (resource === null) return null;
    return `Ran out of the ${resource} budget; plan a shorter path or ask for a larger budget`;
  },
  ({ resulted }) => {
    const worst = [...toolTallies(resulted)].sort((a, b) => b.failures - a.failures || compareText(a.tool, b.tool))[0];
    if (worst === undefined || worst.failures < 2) return null;
    return `${worst.tool} failed ${worst.failures} times; check its inputs or use another tool`;
  },
  ({ resulted }) => {
    const last = resulted.at(-1);
    if (last === undefined || !isFailure(last)) return null;
    return `Ended on a failed step: #${last.stepNumber} ${last.tool ?? last.kind} (${last.resultKind})`;
  },
  ({ resulted }) => {
    const timeouts = resulted.filter((step) => step.resultKind === 'timeout').length;
    return timeouts === 0 ? null : `${timeouts} step(s) timed out`;
  },
  ({ steps }) => slowestStep(steps),
  ({ input: { critique } }) => {
    if (critique?.score == null || critique.score >= THRESHOLDS.criticConcern) return null;
    return `Critic scored ${fixed(critique.score)}${critique.verdict ? `: ${critique.verdict}` : ''}`;
  },
  ({ input: { critique } }) => virtuesWhere(critique, (score) => score < THRESHOLDS.weakVirtue, 'Weak virtues'),
  ({ steps }) => (steps.length > THRESHOLDS.manySteps ? `Took ${steps.length} steps; look for a shorter path` : null),
  ({ input: { durationMs } }) =>
    durationMs !== null && durationMs > THRESHOLDS.slowEpisodeMs ? `Took ${seconds(durationMs)} s; look for slow or repeated work` : null,
];

// ---- insights ----

const INSIGHT_RULES: readonly Rule[] = [
  ({ steps }) => {
    const recovery = findRecoveries(steps)[0];
    if (recovery === undefined) return null;
    const { failed, recovered } = recovery;
    const failedTool = failed.tool ?? failed.kind;
    const problem = failed.errorClass ?? failed.resultKind;
    if (recovered.tool === failed.tool) return `Retrying ${failedTool} after ${problem} worked (step #${recovered.stepNumber})`;
    return `When ${failedTool} hit ${problem}, switching to ${recovered.tool ?? recovered.kind} recovered (step #${recovered.stepNumber})`;
  },
  ({ resulted }) => {
    const run = longestSuccessfulToolRun(resulted);
    if (run.length < THRESHOLDS.minSequence) return null;
    return `Effective sequence: ${run.slice(0, THRESHOLDS.maxSequenceShown).join(' → ')}`;
  },
  ({ steps, resulted }) => {
    const rate = stepSuccessRate(steps);
    if (rate === null) return null;
    if (rate === 1 && resulted.length >= 2) return 'Every step that ran succeeded';
    return rate < THRESHOLDS.lowSuccessRate ? `Only ${percent(rate)} of steps succeeded; the approach needs rethinking` : null;
  },
  ({ input: { critique } }) => (critique?.feedback ? `Critic feedback: ${critique.feedback}` : null),
  ({ steps }) => {
    const tools = distinctTools(steps);
    if (tools.length > THRESHOLDS.manyTools) return `Needed ${tools.length} different tools`;
    return tools.length === 1 && steps.length > 3 ? `Used only ${tools[0]}; a candidate for automation` : null;
  },
  ({ steps }) => {
    const total = steps.reduce((sum, step) => sum + (step.tokens ?? 0), 0);
    if (total <= THRESHOLDS.heavyTokens) return null;
    const heaviest = steps.reduce((max, step) => ((step.tokens ?? 0) > (max.tokens ?? 0) ? step : max));
    return `Used ${total} tokens; the largest step was #${heaviest.stepNumber} (${heaviest.tokens} tokens)`;
  },
];

// ---- helpers ----

interface ToolTally {
  tool: string;
  runs: number;
  failures: number;
}

/** Runs and failures per tool, most-used first, then by name. */
function toolTallies(resulted: readonly ResultedStep[]): ToolTally[] {
  const tallies = new Map<string, ToolTally>();
  for (const step of resulted) {
    if (!step.tool) continue;
    const tally = tallies.get(step.tool) ?? { tool: step.tool, runs: 0, failures: 0 };
    tally.runs += 1;
    if (isFailure(step)) tally.failures += 1;
    tallies.set(step.tool, tally);
  }
  return [...tallies.values()].sort((a, b) => b.runs - a.runs || compareText(a.tool, b.tool));
}

/** Tools of the first longest stretch of consecutive successful tool steps. */
function longestSuccessfulToolRun(resulted: readonly ResultedStep[]): string[] {
  let longest: string[] = [];
  let current: string[] = [];
  for (const step of resulted) {
    current = step.resultKind === 'success' && step.tool ? [...current, step.tool] : [];
    if (current.length > longest.length) longest = current;
  }
  return longest;
}

function slowestStep(steps: readonly StepFacts[]): string | null {
  const timed = steps.filter((step) => step.latencyMs !== null);
  if (timed.length < 2) return null;
  const slowest = timed.reduce((max, step) => (must(step.latencyMs) > must(max.latencyMs) ? step : max));
  const mean = timed.reduce((sum, step) => sum + must(step.latencyMs), 0) / timed.length;
  const latency = must(slowest.latencyMs);
  if (latency <= THRESHOLDS.slowStepMinMs || latency <= THRESHOLDS.slowStepFactor * mean) return null;
  return `Slowest step #${slowest.stepNumber} ${slowest.tool ?? slowest.kind} took ${latency} ms, ${(latency / mean).toFixed(1)}× the average`;
}

function virtuesWhere(critique: Critique | null, keep: (score: number) => boolean, label: string): string | null {
  const virtues = (critique?.virtueScores ?? [])
    .filter((virtue) => keep(virtue.score))
    // Furthest from a neutral 0.5 first: the strongest of the strong, the weakest of the weak.
    .sort((a, b) => Math.abs(b.score - 0.5) - Math.abs(a.score - 0.5) || compareText(a.name, b.name));
  if (virtues.length === 0) return null;
  return `${label}: ${virtues
    .slice(0, THRESHOLDS.namesShown)
    .map((v) => `${v.name} ${fixed(v.score)}`)
    .join(', ')}`;
}

/** The exhausted resource, from the stop reason or the budget-failure outcome; null if none. */
function exhaustedBudget(input: ReflectionInput): string | null {
  if (input.stopReason?.kind === 'budget_exhausted') return input.stopReason.resource.replaceAll('_', ' ');
  if (input.outcome.kind === 'failure' && input.outcome.reason === BUDGET_EXCEEDED) return 'episode';
  return null;
}

function percent(rate: number): string {
  return `${Math.round(rate * 100)}%`;
}

function fixed(score: number): string {
  return score.toFixed(2);
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}

// Cuts on code points so a surrogate pair is never split.
function clip(text: string, maxChars: number): string {
  const chars = Array.from(text);
  return chars.length <= maxChars ? text : `${chars.slice(0, maxChars - 1).join('')}…`;
}
