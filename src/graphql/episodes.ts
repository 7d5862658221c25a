// The Episode type and the object types its fields return (context, budget usage, outcome,
// critique, checkpoints).

import type { Outcome } from '../episodes/outcome.ts';
import type { StopReason } from '../stops/stop-reason.ts';
import { builder } from './builder.ts';
import { enumValue } from './enum-value.ts';
import {
  BUDGET_POLICIES,
  COMPLEXITIES,
  ComplexityEnum,
  EPISODE_MODES,
  EPISODE_STATUSES,
  EpisodeStatusEnum,
  ModeEnum,
  OUTCOME_KINDS,
  OutcomeKindEnum,
  PolicyEnum,
} from './episode-enums.ts';
import { connectionSize } from './page-size.ts';
import { chargeStepPage, selectsStepContent } from './step-page.ts';
import { StopReasonRef } from './stop-reasons.ts';

const TaskContext = builder
  .objectRef<{ language: string | null; framework: string | null; complexity: string; domain: string | null; tags: string[] }>('TaskContext')
  .implement({
    fields: (t) => ({
      language: t.exposeString('language', { nullable: true }),
      framework: t.exposeString('framework', { nullable: true }),
      complexity: t.field({ type: ComplexityEnum, resolve: (c) => enumValue(COMPLEXITIES, c.complexity) }),
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
    kind: t.field({ type: OutcomeKindEnum, resolve: (o) => enumValue(OUTCOME_KINDS, o.kind) }),
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
const wallTimeMs = (e: { startedAt: Date; endedAt: Date | null }) => (e.endedAt ?? new Date()).getTime() - e.startedAt.getTime();

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
    mode: t.field({ type: ModeEnum, select: { mode: true }, resolve: (e) => enumValue(EPISODE_MODES, e.mode) }),
    status: t.field({ type: EpisodeStatusEnum, select: { status: true }, resolve: (e) => enumValue(EPISODE_STATUSES, e.status) }),
    phase: t.exposeString('phase', { nullable: true }),
    onBudgetExhausted: t.field({ type: PolicyEnum, select: { onBudgetExhausted: true }, resolve: (e) => enumValue(BUDGET_POLICIES, e.onBudgetExhausted) }),
    budgetUsage: t.field({
      type: [BudgetLineRef],
      description: 'Usage against budget for tokens, tool calls, steps and wall time (no wall_time line when timesKnown is false).',
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
        timesKnown: true,
      },
      resolve: (e) => [
        { resource: 'tokens', used: Number(e.usedTokens), limit: num(e.maxTokens) },
        { resource: 'steps', used: e.stepCount, limit: e.maxSteps },
        { resource: 'tool_calls', used: e.usedToolCalls, limit: e.maxToolCalls },
        ...(e.timesKnown ? [{ resource: 'wall_time', used: wallTimeMs(e), limit: num(e.maxWallMs) }] : []),
      ],
    }),
    timesKnown: t.exposeBoolean('timesKnown', {
      description:
        'False for an imported run whose format records no times (e.g. SWE-agent .traj): startedAt and endedAt are then when it was imported, wallTimeMs is null, its reward has no speed terms and retrieval gives it neutral recency.',
    }),
    wallTimeMs: t.float({
      nullable: true,
      description: 'Milliseconds from start to end (to now while it runs); null when timesKnown is false.',
      select: { startedAt: true, endedAt: true, timesKnown: true },
      resolve: (e) => (e.timesKnown ? wallTimeMs(e) : null),
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
    startedAt: t.expose('startedAt', { type: 'DateTime', description: 'When the episode started; when it was imported if timesKnown is false.' }),
    deadlineAt: t.expose('deadlineAt', { type: 'DateTime', nullable: true }),
    endedAt: t.expose('endedAt', { type: 'DateTime', nullable: true, description: 'When the episode ended; when it was imported if timesKnown is false.' }),
    forgottenAt: t.expose('forgottenAt', {
      type: 'DateTime',
      nullable: true,
      description:
        'When forgetEpisode (or RUN_RETENTION_DAYS) deleted its texts, outcome, critique, reward, reflection, checkpoints and step content; its episode.forgotten ledger event names each. Null while kept. A forgotten run is no longer listed or retrieved.',
    }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    // Resolved on its own, not joined into the episode's query: its inline content is charged
    // before it is read (step-page.ts).
    steps: t.prismaConnection({
      type: 'Step',
      cursor: 'id',
      nullable: true,
      ...connectionSize(50, 1000),
      resolve: async (query, episode, _args, ctx, info) => {
        if (selectsStepContent(info)) await chargeStepPage(ctx, episode.id, query);
        return ctx.db.step.findMany({ ...query, where: { episodeId: episode.id }, orderBy: { stepNumber: 'asc' } });
      },
    }),
    checkpoints: t.relation('checkpoints', { query: { orderBy: { createdAt: 'asc' } } }),
    workItem: t.relation('workItem', { nullable: true }),
    lease: t.relation('lease', { nullable: true }),
    parentEpisode: t.relation('parentEpisode', { nullable: true }),
  }),
});
