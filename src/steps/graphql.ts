// Step journal: the Step type and logSteps / logStep, which go through group commit.
import { builder } from '../builder.ts';
import { episodeField } from '../episodes/graphql.ts';
import { toStepInput, type GqlStepInput } from '../episodes/inputs.ts';
import { checkStepBatchSize, validateStep } from '../episodes/limits.ts';
import { IllegalTransitionError, InputLimitError, NotFoundError, throwIfViolations } from '../schema/errors.ts';
import { isUuid } from '../schema/ids.ts';
import type { Context } from '../schema/context.ts';
import type { StepItemResult } from './apply.ts';
import { OverloadedError } from './ingest.ts';
import { prepareSteps } from './prepare.ts';
import { GraphQLError } from 'graphql';

builder.prismaObject('Step', {
  fields: (t) => ({
    id: t.exposeID('id'),
    stepNumber: t.exposeInt('stepNumber'),
    kind: t.exposeString('kind'),
    tool: t.exposeString('tool', { nullable: true }),
    action: t.exposeString('action', { nullable: true }),
    parameters: t.expose('parameters', { type: 'JSON', nullable: true, description: 'Redacted copy; argsHash is the BLAKE3 of the original.' }),
    argsHash: t.exposeString('argsHash', { nullable: true }),
    resultKind: t.exposeString('resultKind', { nullable: true, description: 'success, error or timeout' }),
    result: t.expose('result', { type: 'JSON', nullable: true }),
    observation: t.exposeString('observation', { nullable: true }),
    latencyMs: t.exposeInt('latencyMs', { nullable: true }),
    tokens: t.exposeInt('tokens'),
    cost: t.exposeFloat('cost'),
    sideEffectKey: t.exposeString('sideEffectKey', { nullable: true }),
    worldBefore: t.expose('worldBefore', { type: 'JSON', nullable: true }),
    worldAfter: t.expose('worldAfter', { type: 'JSON', nullable: true }),
    metadata: t.expose('metadata', { type: 'JSON', nullable: true }),
    contentHash: t.exposeString('contentHash'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const ResultKind = builder.enumType('StepResultKind', { values: ['SUCCESS', 'ERROR', 'TIMEOUT'] as const });
const ItemStatus = builder.enumType('StepItemStatus', { values: ['ACCEPTED', 'DUPLICATE', 'REJECTED'] as const });

const StepResultInput = builder.inputType('StepResultInput', {
  description: 'success {output} | error {message, errorClass} | timeout',
  fields: (t) => ({ kind: t.field({ type: ResultKind, required: true }), output: t.string(), message: t.string(), errorClass: t.string() }),
});

const StepInput = builder.inputType('StepInput', {
  fields: (t) => ({
    kind: t.string({ defaultValue: 'tool_call', description: 'tool_call, llm_call, observation, ... (snake_case)' }),
    tool: t.string(),
    action: t.string(),
    parameters: t.field({ type: 'JSON', description: 'At most 1 MB; stored redacted with a BLAKE3 hash of the original.' }),
    result: t.field({ type: StepResultInput }),
    observation: t.string({ description: 'At most 10 KB.' }),
    latencyMs: t.int(),
    tokens: t.int(),
    cost: t.float(),
    sideEffectKey: t.string({ description: 'Repeating a key returns the original step instead of a second one.' }),
    worldBefore: t.field({ type: 'JSON' }),
    worldAfter: t.field({ type: 'JSON' }),
    metadata: t.field({ type: 'JSON' }),
  }),
});

interface ItemResult {
  index: number;
  item: StepItemResult;
}

const StepItemResultRef = builder.objectRef<ItemResult>('StepItemResult').implement({
  fields: (t) => ({
    index: t.exposeInt('index', { description: 'Position of the step in the request.' }),
    status: t.field({ type: ItemStatus, resolve: (r) => r.item.status.toUpperCase() as 'ACCEPTED' }),
    stepNumber: t.int({ nullable: true, resolve: (r) => ('stepNumber' in r.item ? r.item.stepNumber : null) }),
    step: t.prismaField({
      type: 'Step',
      nullable: true,
      resolve: (query, r, _args, ctx) => ('stepId' in r.item ? ctx.db.step.findUnique({ ...query, where: { id: r.item.stepId } }) : null),
    }),
    reason: t.string({ nullable: true, resolve: (r) => ('reason' in r.item ? r.item.reason : null), description: 'budget_exhausted, step_limit or episode_size_limit' }),
    message: t.string({ nullable: true, resolve: (r) => ('message' in r.item ? r.item.message : null) }),
  }),
});

interface LogResult {
  episodeId: string;
  results: ItemResult[];
  exhausted: string | null;
}

const count = (p: LogResult, status: string) => p.results.filter((r) => r.item.status === status).length;

const LogStepsPayload = builder.objectRef<LogResult>('LogStepsPayload').implement({
  fields: (t) => ({
    episode: episodeField(t),
    results: t.field({ type: [StepItemResultRef], resolve: (p) => p.results }),
    accepted: t.int({ resolve: (p) => count(p, 'accepted') }),
    duplicates: t.int({ resolve: (p) => count(p, 'duplicate') }),
    rejected: t.int({ resolve: (p) => count(p, 'rejected') }),
    budgetExhausted: t.string({ nullable: true, description: 'The resource whose budget this call exhausted, if any.', resolve: (p) => p.exhausted }),
  }),
});

const LogStepPayload = builder.objectRef<LogResult>('LogStepPayload').implement({
  fields: (t) => ({
    episode: episodeField(t),
    result: t.field({ type: StepItemResultRef, resolve: (p) => p.results[0]! }),
    budgetExhausted: t.string({ nullable: true, resolve: (p) => p.exhausted }),
  }),
});

/** @param single logStep: violations name the `step` argument (step.observation), not steps.0.observation */
async function logSteps(ctx: Context, episodeId: string, raw: GqlStepInput[], single: boolean): Promise<LogResult> {
  try {
    ctx.services.ingest.assertRoom(raw.length);
  } catch (err) {
    overloaded(err);
  }
  const steps = raw.map(toStepInput);
  const violations = [...checkStepBatchSize(steps.length, 'steps'), ...steps.flatMap((s, i) => validateStep(s, i, 'steps'))];
  throwIfViolations(single ? violations.map((v) => ({ ...v, field: v.field.replace(/^steps\.0\./, 'step.'), message: v.message.replace(/^steps\.0\./, 'step.') })) : violations);
  if (!isUuid(episodeId)) throw new NotFoundError('Episode', episodeId);
  const prepared = prepareSteps(episodeId, steps, ctx.services.redactKeys);
  const outcome = await ctx.services.ingest.submit(ctx.viewer!.tenantId, { episodeId, steps: prepared }).catch(overloaded);
  if (!outcome.ok) throw outcome.error;
  return { episodeId, results: outcome.items.map((item, index) => ({ index, item })), exhausted: outcome.exhausted };
}

const errors = { types: [InputLimitError, NotFoundError, IllegalTransitionError] };

/** Backpressure: a full ingestion buffer answers at once with a retryable error, never an unbounded queue. */
function overloaded(err: unknown): never {
  if (err instanceof OverloadedError) {
    throw new GraphQLError(err.message, { extensions: { code: 'OVERLOADED', retryAfterMs: 1000, http: { status: 503, headers: { 'retry-after': '1' } } } });
  }
  throw err;
}

builder.mutationFields((t) => ({
  logSteps: t.field({
    type: LogStepsPayload,
    description: 'Journals many steps in one call; one result per step (accepted, duplicate, or rejected with the reason).',
    errors,
    args: { episodeId: t.arg.id({ required: true }), steps: t.arg({ type: [StepInput], required: true }) },
    resolve: (_root, args, ctx) => logSteps(ctx, String(args.episodeId), args.steps as GqlStepInput[], false),
  }),
  logStep: t.field({
    type: LogStepPayload,
    errors,
    args: { episodeId: t.arg.id({ required: true }), step: t.arg({ type: StepInput, required: true }) },
    resolve: (_root, args, ctx) => logSteps(ctx, String(args.episodeId), [args.step as GqlStepInput], true),
  }),
}));
