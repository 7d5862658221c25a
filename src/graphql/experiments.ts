// Experiments on the memory in the API: start, pause and resume one (each with its ledger event),
// list them, and memoryImpact, the answer (src/experiments). A translator: the rules and the
// statistics are the domain's.
import { randomUUID } from 'node:crypto';
import { IllegalTransitionError, InputLimitError, NotFoundError } from '../core/errors.ts';
import { canonicalId, isUuid } from '../core/ids.ts';
import type { CONTROL_RANKINGS, EXPERIMENT_KINDS } from '../experiments/arms.ts';
import { changeExperimentStatus, startExperiment } from '../experiments/experiments.ts';
import { type MemoryImpact, memoryImpact } from '../experiments/impact.ts';
import { EXPERIMENT_LIMITS } from '../experiments/limits.ts';
import { type ArmMeasures, type Experiment, listExperiments } from '../experiments/store.ts';
import type { Writer } from '../write.ts';
import { builder } from './builder.ts';
import { enumValue } from './enum-value.ts';

const KIND_VALUES = ['HOLDOUT', 'INTERLEAVE'] as const;
const CONTROL_VALUES = ['NOTHING', 'FIXED_FORMULA', 'BM25'] as const;
const STATUS_VALUES = ['RUNNING', 'PAUSED'] as const;
const VERDICT_VALUES = ['TOO_FEW_RUNS', 'RAISED', 'LOWERED', 'NO_DIFFERENCE'] as const;

const ExperimentKindEnum = builder.enumType('ExperimentKind', {
  description: 'HOLDOUT serves a seeded share of episodes the control arm; INTERLEAVE serves every episode both rankings merged (team draft).',
  values: KIND_VALUES,
});
const ControlRankingEnum = builder.enumType('ControlRanking', {
  description:
    "What a holdout's control arm is served (or what an interleaving drafts against): NOTHING, FIXED_FORMULA (the ranking without the learned model), BM25 (the same candidates by BM25 over everything a run left, alone).",
  values: CONTROL_VALUES,
});
const ExperimentStatusEnum = builder.enumType('ExperimentStatus', { values: STATUS_VALUES });
const VerdictEnum = builder.enumType('ImpactVerdict', {
  description: 'TOO_FEW_RUNS until the minimum sample; then RAISED or LOWERED when p < 0.05, else NO_DIFFERENCE.',
  values: VERDICT_VALUES,
});

const ExperimentRef = builder.objectRef<Experiment>('Experiment').implement({
  description: 'An experiment on the memory (docs/LEARNING.md, "Does the memory help?"). Started, paused and resumed with ledger events.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    kind: t.field({ type: ExperimentKindEnum, resolve: (x) => enumValue(KIND_VALUES, x.kind) }),
    status: t.field({ type: ExperimentStatusEnum, resolve: (x) => enumValue(STATUS_VALUES, x.status) }),
    controlShare: t.exposeFloat('control_share', { description: 'Holdout: the share of episodes served the control arm (0 for an interleaving).' }),
    control: t.field({ type: ControlRankingEnum, resolve: (x) => enumValue(CONTROL_VALUES, x.control) }),
    minSample: t.exposeInt('min_sample', {
      description: 'Ended runs per arm (holdout) or decided retrievals (interleaving) before the answer claims anything.',
    }),
    seed: t.exposeString('seed', {
      description: 'Assignment seed: an episode is in control when BLAKE3(seed, episode id) as a number in [0, 1) is below controlShare.',
    }),
    scopeWorkItemId: t.exposeID('scope_work_item_id', { nullable: true }),
    scopeAgent: t.exposeString('scope_agent', { nullable: true }),
    scopeTaskType: t.exposeString('scope_task_type', { nullable: true }),
    startedAt: t.field({ type: 'DateTime', resolve: (x) => x.started_at }),
    pausedAt: t.field({ type: 'DateTime', nullable: true, resolve: (x) => x.paused_at }),
  }),
});

const ArmMeasuresRef = builder.objectRef<ArmMeasures>('ArmMeasures').implement({
  description: "One arm's episodes (assigned on their first retrieval) and the measures of those that ended.",
  fields: (t) => ({
    arm: t.exposeString('arm', { description: 'memory, control, interleaved, or unasked (runs in scope that asked for nothing).' }),
    assigned: t.exposeInt('assigned'),
    ended: t.exposeInt('ended', { description: 'Runs with an outcome: what the rates and means are over.' }),
    successes: t.exposeInt('successes'),
    successRate: t.float({ nullable: true, resolve: (a) => (a.ended === 0 ? null : a.successes / a.ended) }),
    meanReward: t.exposeFloat('meanReward', { nullable: true }),
    meanSteps: t.exposeFloat('meanSteps', { nullable: true }),
    meanTokens: t.exposeFloat('meanTokens', { nullable: true }),
    meanCost: t.exposeFloat('meanCost', { nullable: true }),
    meanWallMs: t.exposeFloat('meanWallMs', { nullable: true, description: 'Over runs whose times are known.' }),
  }),
});

const MemoryImpactRef = builder.objectRef<MemoryImpact>('MemoryImpact').implement({
  description:
    "What an experiment found. Holdout: the two-proportion z-test of the success rates (memory − control), a 95 % Wald interval. Interleaving: the exact sign test on the retrievals whose used items were more of one ranking's picks.",
  fields: (t) => ({
    experiment: t.field({ type: ExperimentRef, resolve: (m) => m.experiment }),
    arms: t.field({ type: [ArmMeasuresRef], resolve: (m) => m.arms }),
    unasked: t.field({ type: ArmMeasuresRef, resolve: (m) => m.unasked, description: 'Runs in scope since the start that asked for nothing: in no arm.' }),
    verdict: t.field({ type: VerdictEnum, resolve: (m) => enumValue(VERDICT_VALUES, (m.holdout ?? m.interleaving)?.kind ?? 'too_few_runs') }),
    method: t.string({ resolve: (m) => (m.holdout ? 'two-proportion z-test' : 'exact sign test') }),
    difference: t.float({
      nullable: true,
      resolve: (m) => m.holdout?.comparison?.difference ?? null,
      description: 'Holdout: success rate with memory − in control.',
    }),
    differenceLow: t.float({ nullable: true, resolve: (m) => m.holdout?.comparison?.low ?? null, description: '95 % interval, low end.' }),
    differenceHigh: t.float({ nullable: true, resolve: (m) => m.holdout?.comparison?.high ?? null, description: '95 % interval, high end.' }),
    pValue: t.float({ nullable: true, resolve: (m) => m.holdout?.comparison?.pValue ?? m.interleaving?.pValue ?? null }),
    wins: t.int({ nullable: true, resolve: (m) => m.interleaving?.wins ?? null, description: "Interleaving: retrievals the memory's picks won." }),
    losses: t.int({ nullable: true, resolve: (m) => m.interleaving?.losses ?? null }),
    ties: t.int({ nullable: true, resolve: (m) => m.interleaving?.ties ?? null }),
    sentence: t.exposeString('sentence', { description: 'The answer in one plain sentence.' }),
  }),
});

const ExperimentScopeInput = builder.inputType('ExperimentScopeInput', {
  description: "Narrows the experiment to the tenant's episodes of a work item, an agent or a task type (all given must hold).",
  fields: (t) => ({ workItemId: t.id(), agent: t.string(), taskType: t.string() }),
});

const StartExperimentInput = builder.inputType('StartExperimentInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    kind: t.field({ type: ExperimentKindEnum, defaultValue: 'HOLDOUT' }),
    controlShare: t.float({ defaultValue: 0.1, description: `Holdout: from ${EXPERIMENT_LIMITS.minControlShare} to ${EXPERIMENT_LIMITS.maxControlShare}.` }),
    control: t.field({ type: ControlRankingEnum, defaultValue: 'NOTHING' }),
    minSample: t.int({ defaultValue: EXPERIMENT_LIMITS.defaultMinSample }),
    seed: t.string({ description: 'Default: a random one (stored, so assignments stay reproducible).' }),
    scope: t.field({ type: ExperimentScopeInput }),
  }),
});

const lower = <V extends string>(value: string) => value.toLowerCase() as V;

builder.queryFields((t) => ({
  experiments: t.withAuth({ read: true }).field({
    type: [ExperimentRef],
    description: "The tenant's experiments, newest first (at most 100).",
    resolve: (_root, _args, ctx) => listExperiments(ctx.services.db.pool, ctx.viewer.tenantId),
  }),
  memoryImpact: t.withAuth({ read: true }).field({
    type: MemoryImpactRef,
    description: 'Does the memory help? Per arm the counts and means, and the difference with its interval, p-value and a plain sentence.',
    errors: { types: [NotFoundError] },
    args: { experimentId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => {
      const id = canonicalId(args.experimentId);
      if (!isUuid(id)) throw new NotFoundError('Experiment', id);
      return memoryImpact(ctx.services.db.pool, ctx.viewer.tenantId, id);
    },
  }),
}));

builder.mutationFields((t) => ({
  startExperiment: t.withAuth({ write: true }).field({
    type: ExperimentRef,
    description:
      'Starts an experiment (an experiment.started ledger event): from now on, episodes in its scope that ask relevantEpisodes(episodeId) are assigned an arm.',
    errors: { types: [InputLimitError] },
    args: { input: t.arg({ type: StartExperimentInput, required: true }) },
    resolve: (_root, { input }, ctx) => {
      const scope = input.scope;
      const workItemId = scope?.workItemId == null ? null : canonicalId(scope.workItemId);
      const request = {
        name: input.name,
        kind: lower<(typeof EXPERIMENT_KINDS)[number]>(input.kind ?? 'HOLDOUT'),
        controlShare: input.controlShare ?? 0.1,
        control: lower<(typeof CONTROL_RANKINGS)[number]>(input.control ?? 'NOTHING'),
        minSample: input.minSample ?? EXPERIMENT_LIMITS.defaultMinSample,
        seed: input.seed ?? randomUUID(),
        scope: { workItemId, agent: scope?.agent ?? null, taskType: scope?.taskType ?? null },
      };
      return ctx.services.writer.run(ctx.viewer.tenantId, (w) => startExperiment(w, request));
    },
  }),
  pauseExperiment: t.withAuth({ write: true }).field({
    type: ExperimentRef,
    description: 'Pauses a running experiment (experiment.paused): its episodes are served the memory until it is resumed; what it measured stays.',
    errors: { types: [NotFoundError, IllegalTransitionError] },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => changeStatus(ctx.services.writer, ctx.viewer.tenantId, canonicalId(args.id), 'pause'),
  }),
  resumeExperiment: t.withAuth({ write: true }).field({
    type: ExperimentRef,
    description: 'Resumes a paused experiment (experiment.resumed).',
    errors: { types: [NotFoundError, IllegalTransitionError] },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => changeStatus(ctx.services.writer, ctx.viewer.tenantId, canonicalId(args.id), 'resume'),
  }),
}));

function changeStatus(writer: Writer, tenantId: string, id: string, action: 'pause' | 'resume') {
  if (!isUuid(id)) throw new NotFoundError('Experiment', id);
  return writer.run(tenantId, (w) => changeExperimentStatus(w, id, action));
}
