/**
 * Pattern candidates (seed 003's four kinds), their statistics, and which of them are kept.
 *
 * One episode yields candidates; each carries one observation (did the episode succeed, its
 * normalised reward). A candidate's key is its kind plus a canonical signature, so the same pattern
 * found in another episode has the same key and its statistics are merged, never duplicated.
 * Statistics are kept for every key, kept or not: that is the history that lets a pattern seen
 * once now reach two occurrences later.
 *
 * Only steps with a result and a tool take part; other steps are transparent (an llm_call or an
 * observation between two tool calls neither breaks nor joins a sequence). Names are trimmed and
 * lower-cased. Success is the episode's: a pattern's success rate is the share of the episodes it
 * appeared in that succeeded, which is what "this worked" means to an agent reading it.
 */
import type { Outcome } from '../episodes/outcome.ts';
import { clamp, compareText, episodeSucceeded, isFailure, resultedSteps, type ContextFacts, type ResultedStep, type StepFacts } from './facts.ts';

export const PATTERN_KINDS = ['tool_sequence', 'decision_point', 'error_recovery', 'context_pattern'] as const;
export type PatternKind = (typeof PATTERN_KINDS)[number];

export const PATTERN_RULES = {
  // seed 003 constants.rs: at least 2 occurrences, success rate 0.6, at most 10 per episode.
  minOccurrences: 2,
  minSuccessRate: 0.6,
  maxKeptPerEpisode: 10,
  /** Bounds the statistics rows one episode can touch. */
  maxCandidatesPerKind: 25,
  sequenceLengths: [2, 3],
  /** Context patterns pair each context feature with the episode's most-used successful tools. */
  contextTools: 3,
  /** A window of at least this many recent observations can contradict a pattern on its own. */
  recentWindow: 5,
} as const;

export interface PatternEpisode {
  outcome: Outcome;
  context: ContextFacts;
  steps: StepFacts[];
  /** The episode's normalised reward, in [0, 1]. */
  reward: number;
}

export interface PatternObservation {
  success: boolean;
  episodeReward: number;
}

export interface PatternCandidate {
  /** `${kind}:${JSON.stringify(signature)}`: stable across episodes, unambiguous whatever the names hold. */
  key: string;
  kind: PatternKind;
  signature: string[];
  /** Human-readable form of the signature. */
  description: string;
  observation: PatternObservation;
}

export interface PatternStats {
  occurrences: number;
  successes: number;
  successRate: number;
  meanReward: number;
  /** patternEffectiveness(successRate, meanReward, occurrences), in [0, 1]. */
  effectiveness: number;
}

export type RejectionReason = 'too_few_occurrences' | 'low_success_rate' | 'over_episode_limit';

export interface CandidateDecision<T> {
  kept: T[];
  rejected: Array<{ key: string; reason: RejectionReason }>;
}

type Signature = { signature: string[]; description: string };

export function extractCandidates(episode: PatternEpisode): PatternCandidate[] {
  const toolSteps = resultedSteps(episode.steps).filter((step): step is ToolStep => Boolean(step.tool));
  const observation = { success: episodeSucceeded(episode.outcome), episodeReward: clamp(episode.reward, 0, 1) };
  const byKind: Record<PatternKind, Signature[]> = {
    tool_sequence: toolSequences(toolSteps),
    decision_point: decisionPoints(toolSteps),
    error_recovery: errorRecoveries(toolSteps),
    context_pattern: contextPatterns(episode.context, toolSteps),
  };
  return PATTERN_KINDS.flatMap((kind) =>
    uniqueBySignature(byKind[kind])
      .slice(0, PATTERN_RULES.maxCandidatesPerKind)
      .map((found) => ({ key: patternKey(kind, found.signature), kind, ...found, observation })),
  );
}

export function patternKey(kind: PatternKind, signature: readonly string[]): string {
  return `${kind}:${JSON.stringify(signature)}`;
}

type ToolStep = ResultedStep & { tool: string };

/** n-grams of tools inside each stretch of consecutive successful tool steps; one tool repeated is no sequence. */
function toolSequences(steps: readonly ToolStep[]): Signature[] {
  return successfulStretches(steps).flatMap((tools) =>
    PATTERN_RULES.sequenceLengths.flatMap((length) =>
      windows(tools, length)
        .filter((gram) => new Set(gram).size > 1)
        .map((gram) => ({ signature: gram, description: gram.join(' → ') })),
    ),
  );
}

/** After a failed step the agent chose what to do next (retry or switch); that branch is the decision. */
function decisionPoints(steps: readonly ToolStep[]): Signature[] {
  return adjacentPairs(steps)
    .filter(([before]) => isFailure(before))
    .map(([before, after]) => {
      const [from, result, to] = [name(before.tool), before.resultKind, name(after.tool)];
      return { signature: [from, result, to], description: `after ${from} ${result} → ${to}` };
    });
}

/** A failed step fixed by a different tool succeeding right after it, keyed by the error class. */
function errorRecoveries(steps: readonly ToolStep[]): Signature[] {
  return adjacentPairs(steps)
    .filter(([failed, fixed]) => isFailure(failed) && fixed.resultKind === 'success' && name(failed.tool) !== name(fixed.tool))
    .map(([failed, fixed]) => {
      const problem = failed.errorClass ? name(failed.errorClass) : failed.resultKind;
      const [from, to] = [name(failed.tool), name(fixed.tool)];
      return { signature: [from, problem, to], description: `${from} ${problem} → recover with ${to}` };
    });
}

/** Each context feature (domain, language, framework, every tag) paired with a tool that succeeded. */
function contextPatterns(context: ContextFacts, steps: readonly ToolStep[]): Signature[] {
  const tools = mostUsedSuccessfulTools(steps).slice(0, PATTERN_RULES.contextTools);
  return contextFeatures(context).flatMap(([field, value]) =>
    tools.map((tool) => ({ signature: [field, value, tool], description: `${field}=${value} → ${tool}` })),
  );
}

function contextFeatures(context: ContextFacts): Array<[string, string]> {
  const fields: Array<[string, string | null]> = [
    ['domain', context.domain],
    ['language', context.language],
    ['framework', context.framework],
  ];
  const tags = [...new Set(context.tags.map(name))].sort().map((tag): [string, string] => ['tag', tag]);
  return [...fields.flatMap(([field, value]): Array<[string, string]> => (value ? [[field, name(value)]] : [])), ...tags];
}

function mostUsedSuccessfulTools(steps: readonly ToolStep[]): string[] {
  const counts = new Map<string, number>();
  for (const step of steps) {
    if (step.resultKind === 'success') counts.set(name(step.tool), (counts.get(name(step.tool)) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || compareText(a[0], b[0])).map(([tool]) => tool);
}

function successfulStretches(steps: readonly ToolStep[]): string[][] {
  const stretches: string[][] = [[]];
  for (const step of steps) {
    if (step.resultKind === 'success') stretches.at(-1)!.push(name(step.tool));
    else stretches.push([]);
  }
  return stretches.filter((stretch) => stretch.length > 0);
}

function windows<T>(items: readonly T[], length: number): T[][] {
  return items.length < length ? [] : items.slice(0, items.length - length + 1).map((_, start) => items.slice(start, start + length));
}

function adjacentPairs<T>(items: readonly T[]): Array<[T, T]> {
  return items.slice(1).map((item, index) => [items[index]!, item]);
}

function uniqueBySignature(found: readonly Signature[]): Signature[] {
  const seen = new Set<string>();
  return found.filter((item) => {
    const id = JSON.stringify(item.signature);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

function name(text: string): string {
  return text.trim().toLowerCase();
}

// ---- statistics ----

/** Adds one observation to a pattern's statistics (null: the first time the key is seen). */
export function mergePattern(existing: PatternStats | null, observation: PatternObservation): PatternStats {
  const occurrences = (existing?.occurrences ?? 0) + 1;
  const successes = (existing?.successes ?? 0) + (observation.success ? 1 : 0);
  const reward = clamp(observation.episodeReward, 0, 1);
  const meanReward = ((existing?.meanReward ?? 0) * (occurrences - 1) + reward) / occurrences;
  const successRate = successes / occurrences;
  return { occurrences, successes, successRate, meanReward, effectiveness: patternEffectiveness(successRate, meanReward, occurrences) };
}

/**
 * seed 003's effectiveness_score, success_rate × (1 + clamp(ln n, 0, 3)/3) × max(0, 1 + reward_delta),
 * rescaled to [0, 1]: the confidence factor is halved to [0.5, 1] (full at n ≈ 20), and the reward
 * factor is 0.5 + 0.5 × mean normalised reward, since we have the reward itself, not a delta.
 */
export function patternEffectiveness(successRate: number, meanReward: number, occurrences: number): number {
  const confidence = (1 + clamp(Math.log(Math.max(1, occurrences)), 0, 3) / 3) / 2;
  return clamp(successRate, 0, 1) * confidence * (0.5 + 0.5 * clamp(meanReward, 0, 1));
}

export function meetsAcceptanceBar(stats: PatternStats): boolean {
  return stats.occurrences >= PATTERN_RULES.minOccurrences && stats.successRate >= PATTERN_RULES.minSuccessRate;
}

/**
 * Which candidates (with statistics after merging) become patterns. Too few occurrences is checked
 * before the success rate; of those that pass both, the best maxKeptPerEpisode by effectiveness
 * (then occurrences, then key) are kept. Rejections list the first two reasons in input order,
 * then the over-limit ones in rank order.
 */
export function decideCandidates<T extends { key: string; stats: PatternStats }>(candidates: readonly T[]): CandidateDecision<T> {
  const rejected: CandidateDecision<T>['rejected'] = [];
  const eligible: T[] = [];
  for (const candidate of candidates) {
    const reason = acceptanceFailure(candidate.stats);
    if (reason === null) eligible.push(candidate);
    else rejected.push({ key: candidate.key, reason });
  }
  const ranked = [...eligible].sort(
    (a, b) => b.stats.effectiveness - a.stats.effectiveness || b.stats.occurrences - a.stats.occurrences || compareText(a.key, b.key),
  );
  const kept = ranked.slice(0, PATTERN_RULES.maxKeptPerEpisode);
  for (const over of ranked.slice(PATTERN_RULES.maxKeptPerEpisode)) rejected.push({ key: over.key, reason: 'over_episode_limit' });
  return { kept, rejected };
}

function acceptanceFailure(stats: PatternStats): RejectionReason | null {
  if (stats.occurrences < PATTERN_RULES.minOccurrences) return 'too_few_occurrences';
  if (stats.successRate < PATTERN_RULES.minSuccessRate) return 'low_success_rate';
  return null;
}

/**
 * Whether newer evidence contradicts a pattern that met the bar: `stats` are its statistics before
 * `recent`. Contradicted when merging `recent` drives its success rate below minSuccessRate, or
 * when `recent` alone holds at least recentWindow observations whose success rate is below it
 * (a long-established pattern that stopped working). A contradicted pattern is marked superseded.
 */
export function isContradicted(stats: PatternStats, recent: readonly PatternObservation[]): boolean {
  if (recent.length === 0 || !meetsAcceptanceBar(stats)) return false;
  const merged = recent.reduce<PatternStats>(mergePattern, stats);
  if (merged.successRate < PATTERN_RULES.minSuccessRate) return true;
  const recentRate = recent.filter((observation) => observation.success).length / recent.length;
  return recent.length >= PATTERN_RULES.recentWindow && recentRate < PATTERN_RULES.minSuccessRate;
}
