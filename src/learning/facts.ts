/**
 * The facts about a finished episode that reward, reflection and pattern extraction read, and the
 * step helpers they share. Pure: callers build these from stored rows.
 *
 * Steps whose resultKind is null (observations, checkpoints, approvals) did no work that could
 * succeed or fail: they count towards the step total but are left out of every rate and of the
 * success/failure sequences, so an observation between an error and its fix does not hide the fix.
 */

import { must } from '../core/must.ts';
import type { Outcome } from '../episodes/outcome.ts';

export type StepResultKind = 'success' | 'error' | 'timeout';

export interface StepFacts {
  stepNumber: number;
  kind: string;
  tool: string | null;
  resultKind: StepResultKind | null;
  latencyMs: number | null;
  tokens: number | null;
  /** The step result's error class, when it reported one; keys error-recovery patterns. */
  errorClass?: string | null;
  /** Error and exception names a failed step's output shows (`TypeError`, `IntegrityError`): errorNames(). */
  errorNames?: string[];
  /** The shell command the step ran (its parameters' `command`), when it ran one: procedures are learnt from it. */
  command?: string | null;
}

const ERROR_NAME = /\b[A-Z][A-Za-z0-9_]*(?:Error|Exception)\b/g;

/** The distinct error and exception names a text shows (a traceback's last line, a test failure). */
export function errorNames(text: string | null): string[] {
  return text ? [...new Set(text.match(ERROR_NAME) ?? [])] : [];
}

export interface VirtueScore {
  name: string;
  /** 0..1, as recordCritique enforces. */
  score: number;
}

/** A critic result as recordCritique stores it; scores are 0..1. */
export interface Critique {
  verdict?: string | null;
  score: number | null;
  feedback?: string | null;
  virtueScores: VirtueScore[];
}

export interface ContextFacts {
  domain: string | null;
  language: string | null;
  framework: string | null;
  tags: string[];
}

/** A step that ran and has a result. */
export type ResultedStep = StepFacts & { resultKind: StepResultKind };

/** A failed step followed (past any result-less steps) by the step that succeeded next. */
export interface Recovery {
  failed: ResultedStep;
  recovered: ResultedStep;
}

export function inStepOrder(steps: readonly StepFacts[]): StepFacts[] {
  return [...steps].sort((a, b) => a.stepNumber - b.stepNumber);
}

export function resultedSteps(steps: readonly StepFacts[]): ResultedStep[] {
  return inStepOrder(steps).filter((step): step is ResultedStep => step.resultKind !== null);
}

export function isFailure(step: StepFacts): boolean {
  return step.resultKind === 'error' || step.resultKind === 'timeout';
}

/** Successful steps / resulted steps; null when no step has a result. */
export function stepSuccessRate(steps: readonly StepFacts[]): number | null {
  const resulted = resultedSteps(steps);
  if (resulted.length === 0) return null;
  return resulted.filter((step) => step.resultKind === 'success').length / resulted.length;
}

/** Every failure immediately followed (among resulted steps) by a success, in step order. */
export function findRecoveries(steps: readonly StepFacts[]): Recovery[] {
  const resulted = resultedSteps(steps);
  const recoveries: Recovery[] = [];
  for (let index = 1; index < resulted.length; index += 1) {
    const failed = must(resulted[index - 1]);
    const recovered = must(resulted[index]);
    if (isFailure(failed) && recovered.resultKind === 'success') recoveries.push({ failed, recovered });
  }
  return recoveries;
}

/** Distinct tool names of the steps, in first-use order. */
export function distinctTools(steps: readonly StepFacts[]): string[] {
  return [...new Set(inStepOrder(steps).flatMap((step) => (step.tool ? [step.tool] : [])))];
}

/** Only a success outcome counts as success for pattern statistics; partial and failure do not. */
export function episodeSucceeded(outcome: Outcome): boolean {
  return outcome.kind === 'success';
}

export function clamp(value: number, min: number, max: number): number {
  if (Number.isNaN(value)) return min;
  return Math.min(max, Math.max(min, value));
}

/** Code-unit order, not locale order, so every process breaks ties the same way. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
