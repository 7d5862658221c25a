// Limits of an episode: what startEpisode accepts, and what an episode may hold in all (its steps,
// its stored bytes, a checkpoint's state). Step limits are in src/steps/limits.ts, outcome limits
// in outcome-limits.ts, the other lifecycle calls' in call-limits.ts; the rule primitives in
// src/validation/.
import { type JsonObject, type JsonValue, jsonViolations, textOrJsonViolations } from '../validation/json.ts';
import { countViolations, identifierRule, integerViolations, type LimitViolation, textViolations } from '../validation/violations.ts';
import type { BudgetExhaustedPolicy } from './budget.ts';
import { type ImportSource, importSourceViolations, timeRangeViolations } from './import-limits.ts';

export const EPISODE_LIMITS = {
  // 256 KB, not 10 KB: 4 of 591 real SWE-bench task descriptions exceed 10 KB (pasted code and logs).
  descriptionBytes: 256 * 1024,
  maxSteps: 1000,
  episodeBytes: 10 * 1024 * 1024,
  // A goal spec must be bounded. 64 KB holds a structured spec with acceptance criteria (six times
  // a task description) while staying small next to the 10 MB episode, since the spec is re-read
  // to build every episode context.
  goalSpecBytes: 64 * 1024,
  taskTypeChars: 100,
  contextFieldChars: 100,
  tagCount: 32,
  tagChars: 64,
  idChars: 128,
  keyChars: 256,
  agentChars: 200,
  metadataBytes: 64 * 1024,
  maxAttempts: 100,
  // A checkpoint's saved state is a world state too (as large as a step's, src/steps/limits.ts).
  checkpointStateBytes: 1024 * 1024,
} as const;

export const COMPLEXITIES = ['simple', 'moderate', 'complex'] as const;
export type Complexity = (typeof COMPLEXITIES)[number];

export const EPISODE_MODES = ['live', 'dry_run'] as const;
export type EpisodeMode = (typeof EPISODE_MODES)[number];

// Optional fields accept null as well as undefined: GraphQL resolvers hand over both.
export interface TaskContextInput {
  language?: string | null;
  framework?: string | null;
  complexity: Complexity;
  domain?: string | null;
  tags: string[];
}

export interface BudgetInput {
  maxTokens?: number | null;
  maxSteps?: number | null;
  maxWallMs?: number | null;
  maxToolCalls?: number | null;
}

export interface StartEpisodeInput {
  taskDescription: string;
  taskType: string;
  context: TaskContextInput;
  /** Free text or structured JSON; null/undefined means none. */
  goalSpec?: JsonValue;
  agent?: string | null;
  dedupeKey?: string | null;
  maxAttempts?: number | null;
  mode: EpisodeMode;
  budget: BudgetInput;
  onBudgetExhausted: BudgetExhaustedPolicy;
  metadata?: JsonObject | null;
  parentEpisodeId?: string | null;
  workItemId?: string | null;
  leaseId?: string | null;
  /** A past run's real start (importing it): not in the future. */
  startedAt?: Date | null;
  /** Where an imported run came from. */
  importSource?: ImportSource | null;
}

export function validateEpisodeInput(input: StartEpisodeInput, field = 'input'): LimitViolation[] {
  const at = (name: string): string => `${field}.${name}`;
  const idRule = identifierRule(EPISODE_LIMITS.idChars);
  return [
    ...textViolations(at('taskDescription'), input.taskDescription, { maxBytes: EPISODE_LIMITS.descriptionBytes, nonEmpty: true }),
    ...textViolations(at('taskType'), input.taskType, identifierRule(EPISODE_LIMITS.taskTypeChars)),
    ...contextViolations(at('context'), input.context),
    ...(input.goalSpec === undefined || input.goalSpec === null ? [] : validateGoalSpec(input.goalSpec, at('goalSpec'))),
    ...textViolations(at('agent'), input.agent, identifierRule(EPISODE_LIMITS.agentChars)),
    ...textViolations(at('dedupeKey'), input.dedupeKey, identifierRule(EPISODE_LIMITS.keyChars)),
    ...integerViolations(at('maxAttempts'), input.maxAttempts, 1, EPISODE_LIMITS.maxAttempts),
    ...integerViolations(at('budget.maxTokens'), input.budget.maxTokens, 1),
    ...integerViolations(at('budget.maxSteps'), input.budget.maxSteps, 1, EPISODE_LIMITS.maxSteps),
    ...integerViolations(at('budget.maxWallMs'), input.budget.maxWallMs, 1),
    ...integerViolations(at('budget.maxToolCalls'), input.budget.maxToolCalls, 1),
    ...jsonViolations(at('metadata'), input.metadata, EPISODE_LIMITS.metadataBytes),
    ...textViolations(at('parentEpisodeId'), input.parentEpisodeId, idRule),
    ...textViolations(at('workItemId'), input.workItemId, idRule),
    ...textViolations(at('leaseId'), input.leaseId, idRule),
    ...timeRangeViolations(at('startedAt'), at('startedAt'), input.startedAt, null),
    ...(input.importSource ? importSourceViolations(at('importSource'), input.importSource) : []),
  ];
}

function contextViolations(field: string, context: TaskContextInput): LimitViolation[] {
  const fieldRule = identifierRule(EPISODE_LIMITS.contextFieldChars);
  const tagRule = identifierRule(EPISODE_LIMITS.tagChars);
  return [
    ...textViolations(`${field}.language`, context.language, fieldRule),
    ...textViolations(`${field}.framework`, context.framework, fieldRule),
    ...textViolations(`${field}.domain`, context.domain, fieldRule),
    ...countViolations(`${field}.tags`, context.tags.length, EPISODE_LIMITS.tagCount, 'tags'),
    ...context.tags.flatMap((tag, index) => textViolations(`${field}.tags.${index}`, tag, tagRule)),
  ];
}

/** A goal spec is bounded, and holds no NUL anywhere (nested strings and keys included). */
export function validateGoalSpec(spec: JsonValue, field = 'input.goalSpec'): LimitViolation[] {
  return textOrJsonViolations(field, spec, EPISODE_LIMITS.goalSpecBytes);
}

/** A checkpoint's state: any JSON, bounded, no NUL anywhere. */
export function validateCheckpointState(state: JsonValue, field = 'state'): LimitViolation[] {
  return jsonViolations(field, state, EPISODE_LIMITS.checkpointStateBytes);
}

/** An episode's stored size (e.g. the jsonBytes of its steps) stays within EPISODE_LIMITS.episodeBytes. */
export function checkEpisodeSize(currentBytes: number, addedBytes: number, field = 'input'): LimitViolation[] {
  const actual = currentBytes + addedBytes;
  if (actual <= EPISODE_LIMITS.episodeBytes) return [];
  return [
    {
      field,
      limit: EPISODE_LIMITS.episodeBytes,
      actual,
      message: `${field} would grow the episode to ${actual} bytes; the limit is ${EPISODE_LIMITS.episodeBytes} bytes`,
    },
  ];
}
