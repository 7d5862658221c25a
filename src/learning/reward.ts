/**
 * Episode reward: the RewardCalculator of d-o-hub/rust-self-learning-memory
 * (memory-core/src/reward/mod.rs), with the critic's result folded into the quality multiplier and a
 * normalised value that ranking uses.
 *
 *   total      = base × efficiency × complexityBonus × qualityMultiplier + learningBonus
 *   normalized = clamp(total / MAX_REWARD_TOTAL, 0, 1),  MAX_REWARD_TOTAL = 1 × 1.5 × 1.2 × 1.5 + 0.5 = 3.2
 *
 * MAX_REWARD_TOTAL is the formula's upper bound (each factor at its cap), so normalisation is a
 * fixed linear map: no reward is ever clipped, and the order of totals is the order of normalised
 * values. (A hybrid retriever that divided total by 100 instead let reward barely count.)
 *
 * base:        success 1; partial completed/(completed+failed), 0.5 when both lists are empty; failure 0.
 * efficiency:  clamp(0.5·d + 0.5·s, 0.5, 1.5) with
 *              d = 1.5 if durationMs <= 0, else 0.5 + exp(-(seconds/60)/2);
 *              d = s when durationMs is null (times unknown) and there are steps: the duration
 *              its steps take at the formula's own reference pace (60 s per 10 steps, 6 s a step), so
 *              the missing time is neither a fast run nor a slow one; d = 1 with no steps either
 *              s = 0.5 if there are no steps, else 0.5 + exp(-(steps/10)/2)
 * complexity:  simple 1.0, moderate 1.1, complex 1.2.
 * quality:     clamp(1 + Σ adjustments, 0.5, 1.5); see QUALITY and qualityMultiplier().
 * learning:    min(0.5, Σ bonuses); see LEARNING and learningBonus(); no quick-run bonus when times are unknown.
 *
 * Deviations from that calculator, all deliberate: rates count only steps that have a result (see
 * facts.ts); seconds are fractional, not truncated; artifact names match case-insensitively; the
 * lint bonus reads `lint_warnings` as well as `clippy_warnings`; its abstention outcome does
 * not exist here, so its abstention term is dropped (it never changes a failure's base of 0); its
 * per-pattern bonus is dropped (learningBonus says why).
 */

import type { Complexity } from '../episodes/limits.ts';
import type { Outcome } from '../episodes/outcome.ts';
import { type Critique, clamp, distinctTools, findRecoveries, isFailure, resultedSteps, type StepFacts, stepSuccessRate } from './facts.ts';

export interface RewardInput {
  outcome: Outcome;
  complexity: Complexity;
  steps: StepFacts[];
  /** Null when the run's times are unknown (an imported run without them): speed neither helps nor hurts. */
  durationMs: number | null;
  critique: Pick<Critique, 'score' | 'virtueScores'> | null;
  /** Patterns this episode produced or confirmed: recorded, never rewarded (learningBonus). */
  patternsDiscovered: number;
  /** Episode metadata; reads test_coverage (percent), lint_warnings / clippy_warnings. */
  metadata: Record<string, unknown>;
}

export interface Reward {
  total: number;
  /** total / MAX_REWARD_TOTAL, in [0, 1]: what ranking and retrieval credit use. */
  normalized: number;
  base: number;
  efficiency: number;
  complexityBonus: number;
  qualityMultiplier: number;
  learningBonus: number;
}

const EFFICIENCY = { min: 0.5, max: 1.5, referenceSeconds: 60, referenceSteps: 10, unknownWithoutSteps: 1 } as const;
const COMPLEXITY_BONUS: Record<Complexity, number> = { simple: 1.0, moderate: 1.1, complex: 1.2 };
const QUALITY = {
  min: 0.5,
  max: 1.5,
  testArtifact: 0.1,
  manyArtifacts: 0.05,
  manyArtifactsAt: 3,
  coverageAbove80: 0.15,
  coverageAbove60: 0.1,
  errorRateAbove30: -0.2,
  errorRateAbove10: -0.1,
  noErrors: 0.1,
  noLintWarnings: 0.05,
  // A critic score and mean virtue score of 0.5 are neutral; 1 adds, 0 subtracts.
  criticWeight: 0.4,
  virtueWeight: 0.2,
} as const;
export const LEARNING = {
  max: 0.5,
  fiveTools: 0.15,
  threeTools: 0.1,
  reliable: 0.2,
  perfect: 0.15,
  recovery: 0.15,
  quick: 0.1,
} as const;

export const MAX_REWARD_TOTAL = 1 * EFFICIENCY.max * COMPLEXITY_BONUS.complex * QUALITY.max + LEARNING.max;

export function computeReward(input: RewardInput): Reward {
  const parts = {
    base: baseReward(input.outcome),
    efficiency: efficiencyMultiplier(input.durationMs, input.steps.length),
    complexityBonus: COMPLEXITY_BONUS[input.complexity],
    qualityMultiplier: qualityMultiplier(input),
    learningBonus: learningBonus(input),
  };
  const total = parts.base * parts.efficiency * parts.complexityBonus * parts.qualityMultiplier + parts.learningBonus;
  // total lies in [0, MAX_REWARD_TOTAL] by construction; the clamp only absorbs floating-point error.
  return { total, normalized: clamp(total / MAX_REWARD_TOTAL, 0, 1), ...parts };
}

export function baseReward(outcome: Outcome): number {
  if (outcome.kind === 'success') return 1;
  if (outcome.kind === 'failure') return 0;
  // Unknown: no evidence either way, the midpoint (neither a success's 1 nor a failure's 0).
  if (outcome.kind === 'unknown') return 0.5;
  const items = outcome.completed.length + outcome.failed.length;
  return items === 0 ? 0.5 : outcome.completed.length / items;
}

export function efficiencyMultiplier(durationMs: number | null, stepCount: number): number {
  const steps = stepCount > 0 ? decayScore(stepCount / EFFICIENCY.referenceSteps) : EFFICIENCY.min;
  // An unknown duration is its steps' at the reference pace: a fixed value (it was 1, an 83 s run,
  // faster than nearly every timed agent run) rewarded runs for having no times.
  const unknown = stepCount > 0 ? steps : EFFICIENCY.unknownWithoutSteps;
  const duration = durationMs === null ? unknown : durationMs > 0 ? decayScore(durationMs / 1000 / EFFICIENCY.referenceSeconds) : EFFICIENCY.max;
  return clamp(0.5 * duration + 0.5 * steps, EFFICIENCY.min, EFFICIENCY.max);
}

// Maps a ratio to the efficiency range: 0 → max, growing ratio → min.
function decayScore(ratio: number): number {
  return EFFICIENCY.min + Math.exp(-ratio / 2) * (EFFICIENCY.max - EFFICIENCY.min);
}

export function qualityMultiplier(input: RewardInput): number {
  const adjustments = [
    ...artifactAdjustments(input.outcome, input.metadata),
    errorRateAdjustment(input.steps),
    lintAdjustment(input.metadata),
    criticAdjustment(input.critique),
  ];
  return clamp(1 + sum(adjustments), QUALITY.min, QUALITY.max);
}

// Artifacts and coverage are credited only on a full success.
function artifactAdjustments(outcome: Outcome, metadata: Record<string, unknown>): number[] {
  if (outcome.kind !== 'success') return [];
  const names = outcome.artifacts.map((artifact) => artifact.toLowerCase());
  const coverage = numberIn(metadata.test_coverage);
  return [
    names.some((name) => name.includes('coverage') || name.includes('test')) ? QUALITY.testArtifact : 0,
    names.length >= QUALITY.manyArtifactsAt ? QUALITY.manyArtifacts : 0,
    coverage === null ? 0 : coverage > 80 ? QUALITY.coverageAbove80 : coverage > 60 ? QUALITY.coverageAbove60 : 0,
  ];
}

function errorRateAdjustment(steps: readonly StepFacts[]): number {
  const resulted = resultedSteps(steps);
  if (resulted.length === 0) return 0;
  const errorRate = resulted.filter(isFailure).length / resulted.length;
  if (errorRate > 0.3) return QUALITY.errorRateAbove30;
  if (errorRate > 0.1) return QUALITY.errorRateAbove10;
  return errorRate === 0 ? QUALITY.noErrors : 0;
}

function lintAdjustment(metadata: Record<string, unknown>): number {
  const warnings = numberIn(metadata.lint_warnings) ?? numberIn(metadata.clippy_warnings);
  return warnings === 0 ? QUALITY.noLintWarnings : 0;
}

function criticAdjustment(critique: RewardInput['critique']): number {
  if (critique === null) return 0;
  const score = critique.score === null ? 0 : QUALITY.criticWeight * (clamp(critique.score, 0, 1) - 0.5);
  const virtues = critique.virtueScores.map((virtue) => clamp(virtue.score, 0, 1));
  const virtue = virtues.length === 0 ? 0 : QUALITY.virtueWeight * (sum(virtues) / virtues.length - 0.5);
  return score + virtue;
}

/**
 * What the run itself shows it learned: varied tools, reliable steps, a recovery, a quick finish.
 * Patterns it led to earn nothing: whether a run's cue became a pattern depends on which runs
 * ended before it, so the same history imported in another order gave other rewards, another
 * ranking and another learned ranker (issue 51). A run's reward is a function of the run alone.
 */
export function learningBonus(input: RewardInput): number {
  const bonuses = [
    toolNoveltyBonus(input.steps),
    reliabilityBonus(input.steps),
    findRecoveries(input.steps).length > 0 ? LEARNING.recovery : 0,
    input.durationMs !== null && input.durationMs < 30_000 && input.steps.length > 0 && input.steps.length < 10 ? LEARNING.quick : 0,
  ];
  return Math.min(LEARNING.max, sum(bonuses));
}

// "Novel tool sequences": a varied toolset over at least three steps.
function toolNoveltyBonus(steps: readonly StepFacts[]): number {
  if (steps.length < 3) return 0;
  const tools = distinctTools(steps).length;
  if (tools >= 5) return LEARNING.fiveTools;
  return tools >= 3 ? LEARNING.threeTools : 0;
}

function reliabilityBonus(steps: readonly StepFacts[]): number {
  const rate = stepSuccessRate(steps);
  const resulted = resultedSteps(steps).length;
  if (rate === null) return 0;
  if (rate > 0.9 && resulted >= 5) return LEARNING.reliable;
  return rate === 1 && resulted >= 3 ? LEARNING.perfect : 0;
}

/** A finite number, or a string holding one (metadata arrives as JSON). */
function numberIn(value: unknown): number | null {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : null;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
