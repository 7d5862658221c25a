/**
 * Input limits and their validators. Validators never throw: they return every violation, each
 * naming the field by the dotted path the GraphQL client sent (e.g. 'input.steps.3.observation')
 * and the limit, so the API can answer with one typed error that changes nothing.
 *
 * Sizes are UTF-8 bytes; JSON values are measured as JSON.stringify output. "Chars" are Unicode
 * code points. No stored string may contain NUL (U+0000): PostgreSQL rejects it in text and in
 * jsonb, so it is refused here with a clear message instead of failing the insert.
 */

import { isHashHex } from '../ledger/hash.ts';
import type { BudgetExhaustedPolicy } from './budget.ts';
import { type ImportSource, importSourceViolations, timeRangeViolations } from './import-limits.ts';
import type { Outcome } from './outcome.ts';

export const LIMITS = {
  // 256 KB, not 10 KB: 4 of 591 real SWE-bench task descriptions exceed 10 KB (pasted code and logs).
  descriptionBytes: 256 * 1024,
  maxSteps: 1000,
  observationBytes: 10 * 1024,
  parametersBytes: 1024 * 1024,
  episodeBytes: 10 * 1024 * 1024,
  // A goal spec must be bounded. 64 KB holds a structured spec with acceptance criteria (six times
  // a task description) while staying small next to the 10 MB episode, since the spec is re-read
  // to build every episode context.
  goalSpecBytes: 64 * 1024,
  taskTypeChars: 100,
  contextFieldChars: 100,
  tagCount: 32,
  tagChars: 64,
  // One call may carry at most a full episode's worth of steps.
  stepsPerCall: 1000,
  idChars: 128,
  keyChars: 256,
  agentChars: 200,
  stepKindChars: 64,
  toolChars: 200,
  actionBytes: 4 * 1024,
  errorClassChars: 100,
  errorMessageBytes: 10 * 1024,
  // 1 MB, the artifact size limit: a step result is the artifact it produced.
  resultOutputBytes: 1024 * 1024,
  worldStateBytes: 1024 * 1024,
  // A checkpoint's saved state is a world state too.
  checkpointStateBytes: 1024 * 1024,
  metadataBytes: 64 * 1024,
  // Nesting of arrays/objects in any JSON field. V8's JSON.stringify overflows its stack near
  // 4,000 levels, which JSON.parse accepts; 64 is far deeper than real tool arguments.
  jsonDepth: 64,
  maxAttempts: 100,
  // Per step: a thousand steps at the limit still sum to a finite number (an unbounded cost
  // summed to Infinity, which no GraphQL Float can carry, and the episode could not be read).
  stepCost: 1e12,
  outcomeTextBytes: 10 * 1024,
  outcomeItems: 1000,
  outcomeItemBytes: 1024,
  // Free text of lifecycle calls: reasons, verdicts, feedback, comments.
  reasonBytes: 10 * 1024,
  labelBytes: 256,
  virtueScores: 32,
  virtueNameBytes: 100,
} as const;

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

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

export interface LimitViolation {
  field: string;
  limit: number | string;
  actual?: number;
  message: string;
}

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Bytes of the JSON text of `value`; 0 for undefined. */
export function jsonBytes(value: unknown): number {
  const json = JSON.stringify(value);
  return json === undefined ? 0 : utf8Bytes(json);
}

export function charCount(text: string): number {
  let count = 0;
  for (const _codePoint of text) count += 1;
  return count;
}

export function validateEpisodeInput(input: StartEpisodeInput, field = 'input'): LimitViolation[] {
  const at = (name: string): string => `${field}.${name}`;
  const idRule = identifierRule(LIMITS.idChars);
  return [
    ...textViolations(at('taskDescription'), input.taskDescription, { maxBytes: LIMITS.descriptionBytes, nonEmpty: true }),
    ...textViolations(at('taskType'), input.taskType, identifierRule(LIMITS.taskTypeChars)),
    ...contextViolations(at('context'), input.context),
    ...(input.goalSpec === undefined || input.goalSpec === null ? [] : validateGoalSpec(input.goalSpec, at('goalSpec'))),
    ...textViolations(at('agent'), input.agent, identifierRule(LIMITS.agentChars)),
    ...textViolations(at('dedupeKey'), input.dedupeKey, identifierRule(LIMITS.keyChars)),
    ...integerViolations(at('maxAttempts'), input.maxAttempts, 1, LIMITS.maxAttempts),
    ...integerViolations(at('budget.maxTokens'), input.budget.maxTokens, 1),
    ...integerViolations(at('budget.maxSteps'), input.budget.maxSteps, 1, LIMITS.maxSteps),
    ...integerViolations(at('budget.maxWallMs'), input.budget.maxWallMs, 1),
    ...integerViolations(at('budget.maxToolCalls'), input.budget.maxToolCalls, 1),
    ...jsonViolations(at('metadata'), input.metadata, LIMITS.metadataBytes),
    ...textViolations(at('parentEpisodeId'), input.parentEpisodeId, idRule),
    ...textViolations(at('workItemId'), input.workItemId, idRule),
    ...textViolations(at('leaseId'), input.leaseId, idRule),
    ...timeRangeViolations(at('startedAt'), at('startedAt'), input.startedAt, null),
    ...(input.importSource ? importSourceViolations(at('importSource'), input.importSource) : []),
  ];
}

function contextViolations(field: string, context: TaskContextInput): LimitViolation[] {
  const fieldRule = identifierRule(LIMITS.contextFieldChars);
  const tagRule = identifierRule(LIMITS.tagChars);
  return [
    ...textViolations(`${field}.language`, context.language, fieldRule),
    ...textViolations(`${field}.framework`, context.framework, fieldRule),
    ...textViolations(`${field}.domain`, context.domain, fieldRule),
    ...countViolations(`${field}.tags`, context.tags.length, LIMITS.tagCount, 'tags'),
    ...context.tags.flatMap((tag, index) => textViolations(`${field}.tags.${index}`, tag, tagRule)),
  ];
}

/** A goal spec is bounded, and holds no NUL anywhere (nested strings and keys included). */
export function validateGoalSpec(spec: JsonValue, field = 'input.goalSpec'): LimitViolation[] {
  if (typeof spec === 'string') return textViolations(field, spec, { maxBytes: LIMITS.goalSpecBytes });
  return jsonViolations(field, spec, LIMITS.goalSpecBytes);
}

/** A checkpoint's state: any JSON, bounded, no NUL anywhere. */
export function validateCheckpointState(state: JsonValue, field = 'state'): LimitViolation[] {
  return jsonViolations(field, state, LIMITS.checkpointStateBytes);
}

/** @param listField path of the step list; the step's own path is `${listField}.${index}` */
export function validateStep(step: StepInput, index: number, listField = 'input.steps'): LimitViolation[] {
  const at = (name: string): string => `${listField}.${index}.${name}`;
  return [
    ...stepKindViolations(at('kind'), step.kind),
    ...textViolations(at('tool'), step.tool, identifierRule(LIMITS.toolChars)),
    ...textViolations(at('action'), step.action, { maxBytes: LIMITS.actionBytes }),
    ...jsonViolations(at('parameters'), step.parameters, LIMITS.parametersBytes),
    ...(step.result ? resultViolations(at('result'), step.result) : []),
    ...textViolations(at('observation'), step.observation, { maxBytes: LIMITS.observationBytes }),
    ...integerViolations(at('latencyMs'), step.latencyMs, 0),
    ...integerViolations(at('tokens'), step.tokens, 0),
    ...finiteNumberViolations(at('cost'), step.cost, 0, LIMITS.stepCost),
    ...textViolations(at('sideEffectKey'), step.sideEffectKey, identifierRule(LIMITS.keyChars)),
    ...jsonViolations(at('worldBefore'), step.worldBefore, LIMITS.worldStateBytes),
    ...jsonViolations(at('worldAfter'), step.worldAfter, LIMITS.worldStateBytes),
    ...jsonViolations(at('metadata'), step.metadata, LIMITS.metadataBytes),
    ...timeRangeViolations(at('startedAt'), at('endedAt'), step.startedAt, step.endedAt),
  ];
}

const SNAKE_CASE = /^[a-z][a-z0-9_]*$/;

function stepKindViolations(field: string, kind: string): LimitViolation[] {
  const violations = textViolations(field, kind, identifierRule(LIMITS.stepKindChars));
  if (violations.length > 0 || SNAKE_CASE.test(kind)) return violations;
  return [{ field, limit: 'snake_case', message: `${field} must be snake_case (a-z, 0-9, _), like tool_call` }];
}

function resultViolations(field: string, result: StepResult): LimitViolation[] {
  if (result.kind === 'success') {
    return textViolations(`${field}.output`, result.output, { maxBytes: LIMITS.resultOutputBytes });
  }
  if (result.kind === 'error') {
    return [
      ...textViolations(`${field}.output`, result.output, { maxBytes: LIMITS.resultOutputBytes }),
      ...textViolations(`${field}.message`, result.message, { maxBytes: LIMITS.errorMessageBytes, nonEmpty: true }),
      ...textViolations(`${field}.errorClass`, result.errorClass, identifierRule(LIMITS.errorClassChars)),
    ];
  }
  return [];
}

/** A single call may carry at most LIMITS.stepsPerCall steps. */
export function checkStepBatchSize(count: number, field = 'input.steps'): LimitViolation[] {
  return countViolations(field, count, LIMITS.stepsPerCall, 'steps in one call');
}

/** An episode holds at most LIMITS.maxSteps steps. */
export function checkStepCount(existingSteps: number, addedSteps: number, field = 'input.steps'): LimitViolation[] {
  return countViolations(field, existingSteps + addedSteps, LIMITS.maxSteps, 'steps in an episode');
}

/** An episode's stored size (e.g. the jsonBytes of its steps) stays within LIMITS.episodeBytes. */
export function checkEpisodeSize(currentBytes: number, addedBytes: number, field = 'input'): LimitViolation[] {
  const actual = currentBytes + addedBytes;
  if (actual <= LIMITS.episodeBytes) return [];
  return [
    {
      field,
      limit: LIMITS.episodeBytes,
      actual,
      message: `${field} would grow the episode to ${actual} bytes; the limit is ${LIMITS.episodeBytes} bytes`,
    },
  ];
}

export function validateOutcome(outcome: Outcome, field = 'input.outcome'): LimitViolation[] {
  const textRule: TextRule = { maxBytes: LIMITS.outcomeTextBytes, nonEmpty: true };
  if (outcome.kind === 'success') {
    return [...textViolations(`${field}.verdict`, outcome.verdict, textRule), ...listViolations(`${field}.artifacts`, outcome.artifacts)];
  }
  if (outcome.kind === 'partial') {
    return [
      ...textViolations(`${field}.verdict`, outcome.verdict, textRule),
      ...listViolations(`${field}.completed`, outcome.completed),
      ...listViolations(`${field}.failed`, outcome.failed),
      ...listViolations(`${field}.artifacts`, outcome.artifacts ?? []),
    ];
  }
  return [
    ...textViolations(`${field}.reason`, outcome.reason, textRule),
    ...textViolations(`${field}.details`, outcome.details, { maxBytes: LIMITS.outcomeTextBytes }),
    ...listViolations(`${field}.artifacts`, outcome.artifacts ?? []),
  ];
}

function listViolations(field: string, items: readonly string[]): LimitViolation[] {
  const itemRule: TextRule = { maxBytes: LIMITS.outcomeItemBytes, nonEmpty: true };
  return [
    ...countViolations(field, items.length, LIMITS.outcomeItems, 'items'),
    ...items.flatMap((item, index) => textViolations(`${field}.${index}`, item, itemRule)),
  ];
}

// ---- rule primitives ----

export interface TextRule {
  maxBytes?: number;
  maxChars?: number;
  /** When present, the value must not be blank. */
  nonEmpty?: boolean;
  /** Names and keys: no control characters at all, not only NUL. */
  identifier?: boolean;
}

function identifierRule(maxChars: number): TextRule {
  return { maxChars, nonEmpty: true, identifier: true };
}

const NUL = '\u0000';
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

export function textViolations(field: string, value: string | null | undefined, rule: TextRule): LimitViolation[] {
  if (value === undefined || value === null) return [];
  if (rule.nonEmpty && value.trim() === '') {
    return [{ field, limit: 'non-empty', message: `${field} must not be empty` }];
  }
  const violations: LimitViolation[] = [];
  if (rule.maxBytes !== undefined) violations.push(...sizeViolations(field, utf8Bytes(value), rule.maxBytes, 'bytes'));
  if (rule.maxChars !== undefined) violations.push(...sizeViolations(field, charCount(value), rule.maxChars, 'characters'));
  if (rule.identifier && CONTROL_CHARACTER.test(value)) {
    violations.push({ field, limit: 'no control characters', message: `${field} must not contain control characters` });
  } else if (value.includes(NUL)) {
    violations.push(nulViolation(field, 'contains'));
  }
  return violations;
}

function sizeViolations(field: string, actual: number, limit: number, unit: string): LimitViolation[] {
  if (actual <= limit) return [];
  return [{ field, limit, actual, message: `${field} is ${actual} ${unit}; the limit is ${limit} ${unit}` }];
}

export function countViolations(field: string, count: number, limit: number, what: string): LimitViolation[] {
  if (count <= limit) return [];
  return [{ field, limit, actual: count, message: `${field} has ${count} ${what}; the limit is ${limit}` }];
}

function integerViolations(field: string, value: number | null | undefined, min: number, max = Number.MAX_SAFE_INTEGER): LimitViolation[] {
  if (value === undefined || value === null) return [];
  if (Number.isSafeInteger(value) && value >= min && value <= max) return [];
  const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
  const message = `${field} must be an integer ${range}, got ${value}`;
  return [{ field, limit: `integer ${range}`, ...finiteActual(value), message }];
}

function finiteNumberViolations(field: string, value: number | null | undefined, min: number, max = Number.MAX_VALUE): LimitViolation[] {
  if (value === undefined || value === null) return [];
  if (Number.isFinite(value) && value >= min && value <= max) return [];
  const range = max === Number.MAX_VALUE ? `>= ${min}` : `from ${min} to ${max}`;
  const message = `${field} must be a finite number ${range}, got ${value}`;
  return [{ field, limit: `number ${range}`, ...finiteActual(value), message }];
}

// NaN and Infinity cannot travel in a GraphQL Int/Float, so they are left out of `actual`.
function finiteActual(value: number): { actual?: number } {
  return Number.isFinite(value) ? { actual: value } : {};
}

function jsonViolations(field: string, value: JsonValue | undefined, maxBytes: number): LimitViolation[] {
  if (value === undefined) return [];
  // Checked first: stringifying a too-deep value would throw instead of answering.
  if (exceedsJsonDepth(value, LIMITS.jsonDepth)) {
    return [{ field, limit: LIMITS.jsonDepth, message: `${field} nests arrays/objects deeper than ${LIMITS.jsonDepth} levels` }];
  }
  const json = JSON.stringify(value);
  const violations = sizeViolations(field, utf8Bytes(json), maxBytes, 'bytes');
  // JSON.stringify writes NUL as the escape \u0000, so text without that escape has no NUL;
  // when the escape is present (or a literal backslash-u0000 mimics it), walk to find the spot.
  if (json.includes('\\u0000')) {
    const found = findNul(value, field);
    if (found !== null) violations.push(nulViolation(found.path, found.inKey ? 'has a key that contains' : 'contains'));
  }
  return violations;
}

/** Whether arrays/objects nest more than `maxDepth` levels ([] is 1, [[]] is 2); iterative, so any depth is safe. */
export function exceedsJsonDepth(value: JsonValue, maxDepth: number): boolean {
  const pending: Array<[JsonValue, number]> = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, depth] = next;
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > maxDepth) return true;
    for (const item of Array.isArray(current) ? current : Object.values(current)) pending.push([item, depth + 1]);
  }
  return false;
}

function nulViolation(path: string, verb: string): LimitViolation {
  return { field: path, limit: 'no NUL characters', message: `${path} ${verb} a NUL character (U+0000), which cannot be stored` };
}

/** First string or key holding NUL, in document order (keys of an object before its values). */
export function findNul(value: JsonValue, path: string): { path: string; inKey: boolean } | null {
  const pending: Array<[JsonValue, string]> = [[value, path]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, at] = next;
    if (typeof current === 'string') {
      if (current.includes(NUL)) return { path: at, inKey: false };
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    const entries: Array<[string, JsonValue]> = Array.isArray(current) ? current.map((item, index) => [String(index), item]) : Object.entries(current);
    if (entries.some(([key]) => key.includes(NUL))) return { path: at, inKey: true };
    for (const [key, item] of entries.reverse()) pending.push([item, `${at}.${key}`]);
  }
  return null;
}

// ---- lifecycle calls other than start and steps ----

/** Free text of a lifecycle call (a reason, verdict, label): at most maxBytes of UTF-8, no NUL. */
export function freeTextViolations(field: string, value: string | null | undefined, maxBytes: number = LIMITS.reasonBytes): LimitViolation[] {
  return textViolations(field, value, { maxBytes });
}

/** A hash the client sends (context pack, manifest): BLAKE3 in lowercase hex. */
export function hashViolations(field: string, value: string | null | undefined): LimitViolation[] {
  if (value == null) return [];
  const { length } = value; // read before isHashHex narrows a failing value away
  if (isHashHex(value)) return [];
  return [{ field, limit: '64 lowercase hex digits', actual: length, message: `${field} must be a BLAKE3 hash in lowercase hex` }];
}

function unitScoreViolations(field: string, score: number | null | undefined): LimitViolation[] {
  if (score == null || (score >= 0 && score <= 1)) return [];
  return [{ field, limit: '0..1', message: `${field} must be between 0 and 1` }];
}

export interface CritiqueInput {
  verdict: string;
  score?: number | null;
  feedback?: string | null;
  virtueScores: ReadonlyArray<{ name: string; score: number }>;
}

/** A critic result: bounded texts, scores in [0, 1], at most 32 named virtue scores. */
export function validateCritique(c: CritiqueInput): LimitViolation[] {
  return [
    ...freeTextViolations('verdict', c.verdict),
    ...freeTextViolations('feedback', c.feedback),
    ...unitScoreViolations('score', c.score),
    ...countViolations('virtueScores', c.virtueScores.length, LIMITS.virtueScores, 'virtue scores'),
    ...c.virtueScores.flatMap((v, i) => [
      ...textViolations(`virtueScores.${i}.name`, v.name, { maxBytes: LIMITS.virtueNameBytes, nonEmpty: true }),
      ...unitScoreViolations(`virtueScores.${i}.score`, v.score),
    ]),
  ];
}
