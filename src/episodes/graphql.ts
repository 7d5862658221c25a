// Episode types, queries and lifecycle mutations. Resolvers translate and delegate to the store.
import { builder } from '../builder.ts';
import { IdempotencyConflictError, IllegalTransitionError, InputLimitError, LeaseError, NotFoundError, throwIfViolations } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { sizeText } from '../core/sizes.ts';
import type { WriteContext } from '../core/write-context.ts';
import { ExtractPatternsModeEnum } from '../learning/enums.ts';
import type { EpisodeLeaseCharge } from '../leases/charge.ts';
import { LoopStoppedError } from '../leases/errors.ts';
import { LeaseChargeRef } from '../leases/graphql-types.ts';
import { blockEpisode, resumeEpisode } from '../lifecycle/approval.ts';
import { type CompletionResult, completeAndLearn } from '../lifecycle/complete.ts';
import { recordCritique } from '../lifecycle/critique.ts';
import { scheduleDeadline, stopIfOverdue } from '../lifecycle/deadlines.ts';
import { endEpisode } from '../lifecycle/end.ts';
import type { AuthedContext } from '../schema/context.ts';
import type { StopReason } from '../stops/stop-reason.ts';
import type { JsonValue } from '../validation/json.ts';
import { hashViolations } from '../validation/violations.ts';
import { CALL_LIMITS, freeTextViolations, validateCritique } from './call-limits.ts';
import { EpisodeStatusEnum, OutcomeKindEnum } from './enums.ts';
import { EpisodeFilterInput, episodeWhere } from './filter.ts';
import { HISTORICAL_END, HISTORICAL_START, ImportSourceInput } from './graphql-import.ts';
import { StopReasonRef } from './graphql-stop.ts';
import { timeRangeViolations } from './import-limits.ts';
import { type GqlOutcomeInput, type GqlStartEpisodeInput, toOutcome, toStartEpisodeInput } from './inputs.ts';
import { EPISODE_LIMITS, validateCheckpointState, validateEpisodeInput, validateGoalSpec } from './limits.ts';
import type { Outcome } from './outcome.ts';
import * as store from './store.ts';

export const ComplexityEnum = builder.enumType('Complexity', { values: ['SIMPLE', 'MODERATE', 'COMPLEX'] as const });
const ModeEnum = builder.enumType('EpisodeMode', { values: ['LIVE', 'DRY_RUN'] as const });
const PolicyEnum = builder.enumType('BudgetExhaustedPolicy', {
  description: 'What the server does when a token or step budget runs out (wall time always fails).',
  values: ['FAIL', 'CONVERGE'] as const,
});

// ---- output types ----

const TaskContext = builder
  .objectRef<{ language: string | null; framework: string | null; complexity: string; domain: string | null; tags: string[] }>('TaskContext')
  .implement({
    fields: (t) => ({
      language: t.exposeString('language', { nullable: true }),
      framework: t.exposeString('framework', { nullable: true }),
      complexity: t.field({ type: ComplexityEnum, resolve: (c) => c.complexity.toUpperCase() as 'MODERATE' }),
      domain: t.exposeString('domain', { nullable: true }),
      tags: t.exposeStringList('tags'),
    }),
  });

interface BudgetLine {
  resource: string;
  used: number;
  limit: number | null;
}

const BudgetLineRef = builder.objectRef<BudgetLine>('BudgetUsage').implement({
  description: 'One budgeted resource: how much is used against its limit (null limit = unlimited).',
  fields: (t) => ({
    resource: t.exposeString('resource', { description: 'tokens, tool_calls, steps or wall_time' }),
    used: t.exposeFloat('used'),
    limit: t.exposeFloat('limit', { nullable: true }),
    remaining: t.float({ nullable: true, resolve: (b) => (b.limit === null ? null : Math.max(0, b.limit - b.used)) }),
    fraction: t.float({ nullable: true, description: 'used / limit, for progress bars', resolve: (b) => (b.limit ? b.used / b.limit : null) }),
  }),
});

const OutcomeRef = builder.objectRef<Outcome>('Outcome').implement({
  fields: (t) => ({
    kind: t.field({ type: OutcomeKindEnum, resolve: (o) => o.kind.toUpperCase() as 'SUCCESS' }),
    verdict: t.string({ nullable: true, resolve: (o) => ('verdict' in o ? o.verdict : null) }),
    artifacts: t.stringList({ nullable: true, resolve: (o) => ('artifacts' in o ? (o.artifacts ?? null) : null) }),
    completed: t.stringList({ nullable: true, resolve: (o) => ('completed' in o ? o.completed : null) }),
    failed: t.stringList({ nullable: true, resolve: (o) => ('failed' in o ? o.failed : null) }),
    reason: t.string({ nullable: true, resolve: (o) => ('reason' in o ? o.reason : null) }),
    details: t.string({ nullable: true, resolve: (o) => ('details' in o ? (o.details ?? null) : null) }),
  }),
});

interface Critique {
  verdict: string;
  score: number | null;
  feedback: string | null;
  virtueScores: Array<{ name: string; score: number }>;
}

const VirtueScoreRef = builder.objectRef<{ name: string; score: number }>('VirtueScore').implement({
  fields: (t) => ({ name: t.exposeString('name'), score: t.exposeFloat('score') }),
});

const CritiqueRef = builder.objectRef<Critique>('Critique').implement({
  description: 'The critic result: verdict, score, feedback and named virtue scores.',
  fields: (t) => ({
    verdict: t.exposeString('verdict'),
    score: t.exposeFloat('score', { nullable: true }),
    feedback: t.exposeString('feedback', { nullable: true }),
    virtueScores: t.field({ type: [VirtueScoreRef], resolve: (c) => c.virtueScores }),
  }),
});

const num = (v: bigint | number | null) => (v === null ? null : Number(v));

builder.prismaObject('Checkpoint', {
  fields: (t) => ({
    id: t.exposeID('id'),
    stepNumber: t.exposeInt('stepNumber', { description: 'Steps journaled when the checkpoint was saved.' }),
    label: t.exposeString('label', { nullable: true }),
    state: t.expose('state', { type: 'JSON' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.prismaObject('Episode', {
  fields: (t) => ({
    id: t.exposeID('id'),
    episodeNumber: t.exposeInt('episodeNumber', { nullable: true, description: 'Monotonic per work item, from 1.' }),
    agent: t.exposeString('agent', { nullable: true }),
    taskDescription: t.exposeString('taskDescription'),
    taskType: t.exposeString('taskType'),
    context: t.field({ type: TaskContext, select: { language: true, framework: true, complexity: true, domain: true, tags: true }, resolve: (e) => e }),
    goalSpec: t.expose('goalSpec', { type: 'JSON', nullable: true }),
    dedupeKey: t.exposeString('dedupeKey', { nullable: true }),
    attempt: t.exposeInt('attempt'),
    maxAttempts: t.exposeInt('maxAttempts'),
    mode: t.field({ type: ModeEnum, select: { mode: true }, resolve: (e) => e.mode.toUpperCase() as 'LIVE' }),
    status: t.field({ type: EpisodeStatusEnum, select: { status: true }, resolve: (e) => e.status.toUpperCase() as 'RUNNING' }),
    phase: t.exposeString('phase', { nullable: true }),
    onBudgetExhausted: t.field({ type: PolicyEnum, select: { onBudgetExhausted: true }, resolve: (e) => e.onBudgetExhausted.toUpperCase() as 'FAIL' }),
    budgetUsage: t.field({
      type: [BudgetLineRef],
      description: 'Usage against budget for tokens, tool calls, steps and wall time.',
      select: {
        usedTokens: true,
        maxTokens: true,
        usedToolCalls: true,
        maxToolCalls: true,
        stepCount: true,
        maxSteps: true,
        maxWallMs: true,
        startedAt: true,
        endedAt: true,
      },
      resolve: (e) => [
        { resource: 'tokens', used: Number(e.usedTokens), limit: num(e.maxTokens) },
        { resource: 'steps', used: e.stepCount, limit: e.maxSteps },
        { resource: 'tool_calls', used: e.usedToolCalls, limit: e.maxToolCalls },
        { resource: 'wall_time', used: (e.endedAt ?? new Date()).getTime() - e.startedAt.getTime(), limit: num(e.maxWallMs) },
      ],
    }),
    stepCount: t.exposeInt('stepCount'),
    usedTokens: t.field({ type: 'BigInt', select: { usedTokens: true }, resolve: (e) => e.usedTokens }),
    usedToolCalls: t.exposeInt('usedToolCalls'),
    usedCost: t.exposeFloat('usedCost'),
    outcome: t.field({ type: OutcomeRef, nullable: true, select: { outcome: true }, resolve: (e) => e.outcome as Outcome | null }),
    stopReason: t.field({ type: StopReasonRef, nullable: true, select: { stopReason: true }, resolve: (e) => e.stopReason as StopReason | null }),
    blockedReason: t.exposeString('blockedReason', { nullable: true }),
    approvalRequest: t.expose('approvalRequest', { type: 'JSON', nullable: true }),
    critique: t.field({ type: CritiqueRef, nullable: true, select: { critique: true }, resolve: (e) => e.critique as Critique | null }),
    metadata: t.expose('metadata', { type: 'JSON' }),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    deadlineAt: t.expose('deadlineAt', { type: 'DateTime', nullable: true }),
    endedAt: t.expose('endedAt', { type: 'DateTime', nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    steps: t.relatedConnection('steps', { cursor: 'id', defaultSize: 50, maxSize: 1000, query: { orderBy: { stepNumber: 'asc' } } }),
    checkpoints: t.relation('checkpoints', { query: { orderBy: { createdAt: 'asc' } } }),
    workItem: t.relation('workItem', { nullable: true }),
    lease: t.relation('lease', { nullable: true }),
    parentEpisode: t.relation('parentEpisode', { nullable: true }),
  }),
});

// ---- queries ----

builder.queryFields((t) => ({
  episode: t.withAuth({ read: true }).prismaField({
    type: 'Episode',
    errors: { types: [NotFoundError] },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, { id }, ctx) => {
      const episode = isUuid(id) ? await ctx.db.episode.findFirst({ ...query, where: { id, tenantId: ctx.viewer.tenantId } }) : null;
      if (!episode) throw new NotFoundError('Episode', String(id));
      return episode;
    },
  }),
  episodes: t.withAuth({ read: true }).prismaConnection({
    type: 'Episode',
    cursor: 'id',
    defaultSize: 20,
    maxSize: 100,
    args: { filter: t.arg({ type: EpisodeFilterInput }) },
    resolve: (query, _root, args, ctx) =>
      ctx.db.episode.findMany({
        ...query,
        where: episodeWhere(ctx.viewer.tenantId, args.filter ?? null),
        orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
      }),
  }),
}));

// ---- mutations ----

const EpisodePayload = builder.objectRef<{ episodeId: string }>('EpisodePayload').implement({
  fields: (t) => ({ episode: episodeField(t) }),
});

/** The builder's own types, for helpers that take a field builder. */
type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The `episode` field of a payload that names its episode by id. */
export function episodeField<Parent extends { episodeId: string }>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, Parent>) {
  return t.prismaField({
    type: 'Episode',
    resolve: (query, parent, _args, ctx) => ctx.db.episode.findUniqueOrThrow({ ...query, where: { id: parent.episodeId } }),
  });
}

const StartEpisodePayload = builder.objectRef<{ episodeId: string; deduplicated: boolean }>('StartEpisodePayload').implement({
  fields: (t) => ({
    episode: episodeField(t),
    deduplicated: t.exposeBoolean('deduplicated', { description: 'True when dedupeKey matched an earlier start with the same input.' }),
  }),
});

type FinishShape = { episodeId: string } & Partial<CompletionResult> & { leaseCharge: EpisodeLeaseCharge | null; stopCondition: StopReason | null };

export const FinishPayload = builder.objectRef<FinishShape>('FinishEpisodePayload').implement({
  fields: (t) => ({
    episode: episodeField(t),
    leaseCharge: t.field({ type: LeaseChargeRef, nullable: true, resolve: (p) => p.leaseCharge }),
    stopCondition: t.field({
      type: StopReasonRef,
      nullable: true,
      description:
        "The work item loop's stop condition after this episode (in priority order: budget > the holon's stop > max episodes); null: the loop may go on, or the episode has no work item.",
      resolve: (p) => p.stopCondition,
    }),
  }),
});

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

const StartEpisodeInput = builder.inputType('StartEpisodeInput', {
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
    importSource: t.field({ type: ImportSourceInput, description: 'Importing a past run: the file it came from (recorded in the episode.started event).' }),
  }),
});

const ContextPackInput = builder.inputType('ContextPackInput', {
  fields: (t) => ({
    packHash: t.string({ required: true, description: 'BLAKE3 of the pack: 64 lowercase hex digits.' }),
    manifestHash: t.string({ description: 'BLAKE3 of the pack manifest, if any.' }),
  }),
});

const PackMissPayload = builder.objectRef<{ episodeId: string; defectRecorded: boolean; occurrences: number }>('RecordPackMissPayload').implement({
  fields: (t) => ({
    episode: episodeField(t),
    defectRecorded: t.exposeBoolean('defectRecorded', { description: 'True only for the first miss of this stable id in the episode.' }),
    occurrences: t.exposeInt('occurrences'),
  }),
});

const OutcomeInput = builder.inputType('OutcomeInput', {
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

const VirtueScoreInput = builder.inputType('VirtueScoreInput', {
  fields: (t) => ({ name: t.string({ required: true }), score: t.float({ required: true }) }),
});

const transitionErrors = [NotFoundError, IllegalTransitionError, InputLimitError];

/**
 * Runs a change of a live episode, after stopping it if its wall-time deadline has passed: the
 * budget comes first even when the deadline job has not run yet, so a late ending finds the episode
 * failed (budget_exhausted wall_time) and is refused as an illegal transition.
 */
async function changeEpisode<T>(ctx: AuthedContext, episodeId: string, change: (w: WriteContext) => Promise<T>): Promise<T> {
  await stopIfOverdue(ctx.services.db.pool, ctx.services.writer, ctx.viewer.tenantId, episodeId);
  return ctx.services.writer.run(ctx.viewer.tenantId, change);
}

builder.mutationFields((t) => ({
  startEpisode: t.withAuth({ write: true }).field({
    type: StartEpisodePayload,
    errors: { types: [InputLimitError, IdempotencyConflictError, NotFoundError, LeaseError, LoopStoppedError] },
    args: { input: t.arg({ type: StartEpisodeInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const domain = toStartEpisodeInput(input as GqlStartEpisodeInput);
      throwIfViolations(validateEpisodeInput(domain));
      throwIfViolations([
        ...hashViolations('input.contextPack.packHash', input.contextPack?.packHash),
        ...hashViolations('input.contextPack.manifestHash', input.contextPack?.manifestHash),
      ]);
      const contextPack = input.contextPack ? { packHash: input.contextPack.packHash, manifestHash: input.contextPack.manifestHash ?? null } : null;
      const { services, viewer } = ctx;
      const result = await services.writer.run(viewer.tenantId, (w) => store.startEpisode(w, { ...domain, contextPack }));
      if (result.deadlineAt && !result.deduplicated) {
        await scheduleDeadline(services.jobs, { tenantId: viewer.tenantId, episodeId: result.episodeId }, result.deadlineAt);
      }
      return result;
    },
  }),
  blockEpisode: t.withAuth({ write: true }).field({
    type: EpisodePayload,
    errors: { types: transitionErrors },
    args: { episodeId: t.arg.id({ required: true }), reason: t.arg.string({ required: true }), approvalRequest: t.arg({ type: 'JSON' }) },
    resolve: async (_root, args, ctx) => {
      throwIfViolations([
        ...freeTextViolations('reason', args.reason),
        ...(args.approvalRequest == null ? [] : validateGoalSpec(args.approvalRequest as JsonValue, 'approvalRequest')),
      ]);
      const episodeId = String(args.episodeId);
      await changeEpisode(ctx, episodeId, (w) => blockEpisode(w, episodeId, args.reason, (args.approvalRequest ?? null) as JsonValue));
      return { episodeId };
    },
  }),
  resumeEpisode: t.withAuth({ write: true }).field({
    type: EpisodePayload,
    errors: { types: transitionErrors },
    args: {
      episodeId: t.arg.id({ required: true }),
      approved: t.arg.boolean({ required: true, description: 'The approval decision; journaled as an approval_resolved step.' }),
      decidedBy: t.arg.string(),
      comment: t.arg.string(),
    },
    resolve: async (_root, args, ctx) => {
      throwIfViolations([...freeTextViolations('decidedBy', args.decidedBy, CALL_LIMITS.labelBytes), ...freeTextViolations('comment', args.comment)]);
      const episodeId = String(args.episodeId);
      await changeEpisode(ctx, episodeId, (w) =>
        resumeEpisode(w, episodeId, { approved: args.approved, decidedBy: args.decidedBy ?? null, comment: args.comment ?? null }),
      );
      return { episodeId };
    },
  }),
  saveCheckpoint: t.withAuth({ write: true }).field({
    type: EpisodePayload,
    errors: { types: transitionErrors },
    args: { episodeId: t.arg.id({ required: true }), label: t.arg.string(), state: t.arg({ type: 'JSON', required: true }) },
    resolve: async (_root, args, ctx) => {
      throwIfViolations([...freeTextViolations('label', args.label, CALL_LIMITS.labelBytes), ...validateCheckpointState(args.state as JsonValue)]);
      const episodeId = String(args.episodeId);
      await changeEpisode(ctx, episodeId, (w) => store.saveCheckpoint(w, episodeId, args.label ?? null, args.state as JsonValue));
      return { episodeId };
    },
  }),
  recordCritique: t.withAuth({ write: true }).field({
    type: EpisodePayload,
    errors: { types: transitionErrors },
    args: {
      episodeId: t.arg.id({ required: true }),
      verdict: t.arg.string({ required: true }),
      score: t.arg.float(),
      feedback: t.arg.string(),
      virtueScores: t.arg({ type: [VirtueScoreInput] }),
    },
    resolve: async (_root, args, ctx) => {
      const scores = args.virtueScores ?? [];
      throwIfViolations(validateCritique({ verdict: args.verdict, score: args.score, feedback: args.feedback, virtueScores: scores }));
      const episodeId = String(args.episodeId);
      await changeEpisode(ctx, episodeId, (w) =>
        recordCritique(w, episodeId, { verdict: args.verdict, score: args.score ?? null, feedback: args.feedback ?? null, virtueScores: scores }),
      );
      return { episodeId };
    },
  }),
  completeEpisode: t.withAuth({ write: true }).field({
    type: FinishPayload,
    errors: { types: transitionErrors },
    args: {
      episodeId: t.arg.id({ required: true }),
      outcome: t.arg({ type: OutcomeInput, required: true }),
      extractPatterns: t.arg({ type: ExtractPatternsModeEnum, defaultValue: 'ASYNC' }),
      usedRetrievals: t.arg.idList({
        description:
          'Retrievals (relevantEpisodes / relevantPatterns retrievalId) this episode used: what they served is credited on success, debited on failure.',
      }),
      endedAt: t.arg({ type: 'DateTime', description: HISTORICAL_END }),
    },
    resolve: async (_root, args, ctx) => {
      const episodeId = String(args.episodeId);
      throwIfViolations(timeRangeViolations('endedAt', 'endedAt', args.endedAt, null));
      const options = {
        extractPatterns: args.extractPatterns === 'SYNC' ? ('sync' as const) : ('async' as const),
        usedRetrievals: (args.usedRetrievals ?? []).map(String),
        endedAt: args.endedAt ?? null,
      };
      const result = await changeEpisode(ctx, episodeId, (w) => completeAndLearn(w, episodeId, toOutcome(args.outcome as GqlOutcomeInput), options));
      return { episodeId, ...result };
    },
  }),
  recordPackMiss: t.withAuth({ write: true }).field({
    type: PackMissPayload,
    description: 'Records that the agent needed something its context pack lacked; the first miss of a stable id is a defect record.',
    errors: { types: [NotFoundError, InputLimitError] },
    args: {
      episodeId: t.arg.id({ required: true }),
      stableId: t.arg.string({ required: true }),
      reason: t.arg.string({ required: true }),
      packHash: t.arg.string(),
    },
    resolve: async (_root, args, ctx) => {
      throwIfViolations([
        ...freeTextViolations('stableId', args.stableId, CALL_LIMITS.labelBytes),
        ...freeTextViolations('reason', args.reason),
        ...hashViolations('packHash', args.packHash),
      ]);
      const episodeId = String(args.episodeId);
      const result = await ctx.services.writer.run(ctx.viewer.tenantId, (w) =>
        store.recordPackMiss(w, episodeId, { stableId: args.stableId, reason: args.reason, packHash: args.packHash ?? null }),
      );
      return { episodeId, ...result };
    },
  }),
  failEpisode: endMutation(t, 'fail'),
  cancelEpisode: endMutation(t, 'cancel'),
  escalateEpisode: endMutation(t, 'escalate'),
}));

function endMutation(t: PothosSchemaTypes.MutationFieldBuilder<Types, Types['Root']>, action: 'fail' | 'cancel' | 'escalate') {
  return t.withAuth({ write: true }).field({
    type: FinishPayload,
    errors: { types: transitionErrors },
    args: {
      episodeId: t.arg.id({ required: true }),
      reason: t.arg.string({ required: action !== 'cancel' }),
      ...(action === 'fail' ? { recoverable: t.arg.boolean({ defaultValue: false }) } : {}),
    },
    resolve: async (_root, args, ctx) => {
      throwIfViolations(freeTextViolations('reason', args.reason));
      const episodeId = String(args.episodeId);
      const result = await changeEpisode(ctx, episodeId, (w: WriteContext) => endEpisode(w, episodeId, action, args.reason ?? '', args.recoverable ?? false));
      return { episodeId, ...result };
    },
  });
}
