// The episode inputs of the API, and their conversion to the domain's inputs (enums lower-cased,
// nulls and defaults filled in). The GraphQL shapes are inferred from the refs, never restated.

import { canonicalId } from '../core/ids.ts';
import { sizeText } from '../core/sizes.ts';
import { EPISODE_LIMITS, type StartEpisodeInput } from '../episodes/limits.ts';
import type { Outcome } from '../episodes/outcome.ts';
import type { StartInput } from '../episodes/store.ts';
import type { JsonObject, JsonValue } from '../validation/json.ts';
import { builder } from './builder.ts';
import { ComplexityEnum, lower, ModeEnum, OutcomeKindEnum, PolicyEnum } from './episode-enums.ts';
import { HISTORICAL_START, ImportSourceInput } from './import-source.ts';

const TaskContextInput = builder.inputType('TaskContextInput', {
  fields: (t) => ({
    language: t.string(),
    framework: t.string(),
    complexity: t.field({ type: ComplexityEnum, defaultValue: 'MODERATE' }),
    domain: t.string(),
    tags: t.stringList({ defaultValue: [] }),
  }),
});

const BudgetInput = builder.inputType('BudgetInput', {
  description: 'Limits the server enforces; omitted means unlimited.',
  fields: (t) => ({
    maxTokens: t.int(),
    maxSteps: t.int(),
    maxWallMs: t.int(),
    maxToolCalls: t.int({ description: 'Steps of kind tool_call. Under a lease, each cap the lease limits is lowered to what the episode holds on it.' }),
  }),
});

const ContextPackInput = builder.inputType('ContextPackInput', {
  fields: (t) => ({
    packHash: t.string({ required: true, description: 'BLAKE3 of the pack: 64 lowercase hex digits.' }),
    manifestHash: t.string({ description: 'BLAKE3 of the pack manifest, if any.' }),
  }),
});

// Named ...Ref: the domain's StartEpisodeInput is in scope here too.
export const StartEpisodeInputRef = builder.inputType('StartEpisodeInput', {
  fields: (t) => ({
    taskDescription: t.string({ required: true, description: `At most ${sizeText(EPISODE_LIMITS.descriptionBytes)}, not blank.` }),
    taskType: t.string({ required: true }),
    context: t.field({ type: TaskContextInput }),
    goalSpec: t.field({ type: 'JSON', description: `Text or JSON, at most ${sizeText(EPISODE_LIMITS.goalSpecBytes)}, no NUL bytes.` }),
    agent: t.string(),
    dedupeKey: t.string({ description: 'Repeating a start with the same key returns the same episode.' }),
    maxAttempts: t.int(),
    mode: t.field({ type: ModeEnum, defaultValue: 'LIVE' }),
    budget: t.field({ type: BudgetInput }),
    onBudgetExhausted: t.field({ type: PolicyEnum, defaultValue: 'FAIL' }),
    metadata: t.field({ type: 'JSON' }),
    parentEpisodeId: t.id(),
    workItemId: t.id(),
    leaseId: t.id({ description: 'The lease this episode runs under; its work item is implied.' }),
    episodeNumber: t.int({ description: 'Requested number (a restarted loop); must exceed the last one issued.' }),
    contextPack: t.field({ type: ContextPackInput, description: 'The context pack the agent runs with; the episode ends with a run receipt.' }),
    startedAt: t.field({ type: 'DateTime', description: HISTORICAL_START }),
    importSource: t.field({
      type: ImportSourceInput,
      description:
        "Importing a past run: the file it came from (recorded in the episode.started event). Without startedAt the run's times are unknown (timesKnown false): no wall time, no speed credit, neutral recency.",
    }),
  }),
});

export const OutcomeInput = builder.inputType('OutcomeInput', {
  description:
    'success {verdict, artifacts} | partial {verdict, completed, failed, artifacts} | failure {reason, details, artifacts}. Texts at most 10 KB; lists at most 1,000 items of 1 KB.',
  fields: (t) => ({
    kind: t.field({ type: OutcomeKindEnum, required: true }),
    verdict: t.string(),
    artifacts: t.stringList(),
    completed: t.stringList(),
    failed: t.stringList(),
    reason: t.string(),
    details: t.string(),
  }),
});

export const VirtueScoreInput = builder.inputType('VirtueScoreInput', {
  fields: (t) => ({ name: t.string({ required: true }), score: t.float({ required: true }) }),
});

type GqlStartEpisode = typeof StartEpisodeInputRef.$inferInput;
type GqlOutcome = typeof OutcomeInput.$inferInput;

const idOrNull = (v: string | number | null | undefined) => (v == null ? null : canonicalId(v));

function toStartEpisodeInput(i: GqlStartEpisode): StartEpisodeInput & { episodeNumber: number | null } {
  const c = i.context;
  return {
    taskDescription: i.taskDescription,
    taskType: i.taskType,
    context: {
      language: c?.language ?? null,
      framework: c?.framework ?? null,
      complexity: lower(c?.complexity ?? 'MODERATE'),
      domain: c?.domain ?? null,
      tags: c?.tags ?? [],
    },
    goalSpec: (i.goalSpec ?? null) as JsonValue,
    agent: i.agent ?? null,
    dedupeKey: i.dedupeKey ?? null,
    maxAttempts: i.maxAttempts ?? null,
    mode: lower(i.mode ?? 'LIVE'),
    budget: {
      maxTokens: i.budget?.maxTokens ?? null,
      maxSteps: i.budget?.maxSteps ?? null,
      maxWallMs: i.budget?.maxWallMs ?? null,
      // Left out when unset (not null), so the dedupe input hash of a start is what it was before this field existed.
      ...(i.budget?.maxToolCalls != null ? { maxToolCalls: i.budget.maxToolCalls } : {}),
    },
    onBudgetExhausted: lower(i.onBudgetExhausted ?? 'FAIL'),
    metadata: (i.metadata ?? null) as JsonObject | null,
    parentEpisodeId: idOrNull(i.parentEpisodeId),
    workItemId: idOrNull(i.workItemId),
    leaseId: idOrNull(i.leaseId),
    episodeNumber: i.episodeNumber ?? null,
    // Only when given, so the dedupe input hash of a live start is what it was before they existed.
    ...(i.startedAt ? { startedAt: i.startedAt } : {}),
    ...(i.importSource ? { importSource: { format: i.importSource.format, sourceHash: i.importSource.sourceHash, name: i.importSource.name ?? null } } : {}),
  };
}

function toContextPack(i: GqlStartEpisode) {
  return i.contextPack ? { packHash: i.contextPack.packHash, manifestHash: i.contextPack.manifestHash ?? null } : null;
}

/** A start as the store takes it (its context pack included). */
export function toStartInput(i: GqlStartEpisode): StartInput {
  return { ...toStartEpisodeInput(i), contextPack: toContextPack(i) };
}

export function toOutcome(o: GqlOutcome): Outcome {
  // Artifacts of a partial or failed outcome are left out when none are given, so such an outcome
  // (and its hash in the ledger) is what it was before they were accepted.
  const artifacts = o.artifacts?.length ? { artifacts: o.artifacts } : {};
  if (o.kind === 'SUCCESS') return { kind: 'success', verdict: o.verdict ?? '', artifacts: o.artifacts ?? [] };
  if (o.kind === 'PARTIAL') return { kind: 'partial', verdict: o.verdict ?? '', completed: o.completed ?? [], failed: o.failed ?? [], ...artifacts };
  if (o.kind === 'UNKNOWN') return { kind: 'unknown', verdict: o.verdict ?? '', ...artifacts };
  return { kind: 'failure', reason: o.reason ?? '', ...(o.details == null ? {} : { details: o.details }), ...artifacts };
}
