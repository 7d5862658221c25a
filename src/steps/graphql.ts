// Step journal: the Step type and logSteps / logStep, which go through group commit.

import { GraphQLError } from 'graphql';
import { builder } from '../builder.ts';
import {
  type LimitViolation as ApiViolation,
  IllegalTransitionError,
  InputLimitError,
  NotFoundError,
  throwIfViolations,
  toViolations,
} from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { must } from '../core/must.ts';
import { sizeText } from '../core/sizes.ts';
import { episodeField } from '../episodes/graphql.ts';
import { lower } from '../episodes/inputs.ts';
import { LimitViolationRef } from '../schema/base.ts';
import type { AuthedContext } from '../schema/context.ts';
import type { StepItemResult } from './apply.ts';
import { contentRefList, StepContentRef } from './graphql-blobs.ts';
import { OverloadedError } from './ingest.ts';
import { type GqlStepInput, toStepInput } from './inputs.ts';
import { BLOB_LIMITS, type LargeContentMode, offloadLargeContent } from './large-content.ts';
import { checkStepBatchSize, STEP_LIMITS, validateStep } from './limits.ts';
import { prepareSteps } from './prepare.ts';

/** How far a text field may go past its inline limit (the schema descriptions say it). */
const UP_TO_BLOB = `up to ${sizeText(BLOB_LIMITS.blobBytes)} with largeContent BLOB or TRUNCATE`;

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
    observation: t.exposeString('observation', {
      nullable: true,
      description: `At most ${sizeText(STEP_LIMITS.observationBytes)} inline; a longer one kept as a blob or truncated holds a head + tail preview (see contentRefs).`,
    }),
    latencyMs: t.exposeInt('latencyMs', { nullable: true }),
    tokens: t.exposeInt('tokens'),
    cost: t.exposeFloat('cost'),
    sideEffectKey: t.exposeString('sideEffectKey', { nullable: true }),
    worldBefore: t.expose('worldBefore', { type: 'JSON', nullable: true }),
    worldAfter: t.expose('worldAfter', { type: 'JSON', nullable: true }),
    metadata: t.expose('metadata', { type: 'JSON', nullable: true }),
    contentHash: t.exposeString('contentHash', { description: 'BLAKE3 of the step as stored, covering the hash of every blob it references (contentRefs).' }),
    contentRefs: t.field({ type: [StepContentRef], select: { contentRefs: true }, resolve: (s) => contentRefList(s.contentRefs) }),
    startedAt: t.expose('startedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the step really ran (an imported run); null when journaled live.',
    }),
    endedAt: t.expose('endedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the step was journaled.' }),
  }),
});

const ResultKind = builder.enumType('StepResultKind', { values: ['SUCCESS', 'ERROR', 'TIMEOUT'] as const });
const ItemStatus = builder.enumType('StepItemStatus', { values: ['ACCEPTED', 'DUPLICATE', 'REJECTED'] as const });

const StepResultInput = builder.inputType('StepResultInput', {
  description: 'success {output} | error {message, errorClass, output} | timeout',
  fields: (t) => ({
    kind: t.field({ type: ResultKind, required: true }),
    output: t.string({
      description: `SUCCESS or ERROR (an error keeps its full output). At most ${sizeText(STEP_LIMITS.resultOutputBytes)} inline; ${UP_TO_BLOB}.`,
    }),
    message: t.string({ description: `ERROR: at most ${sizeText(STEP_LIMITS.errorMessageBytes)} inline; ${UP_TO_BLOB}.` }),
    errorClass: t.string({ description: `At most ${STEP_LIMITS.errorClassChars} characters.` }),
  }),
});

const LargeContent = builder.enumType('LargeContentMode', {
  description: 'What logSteps does with a text field (action, observation, result output or message) past its inline limit.',
  values: {
    REFUSE: { description: 'Refuse it as a limit violation (the default).' },
    BLOB: {
      description:
        'Keep it whole as a content-addressed blob (BLAKE3, at most 16 MB per field, BLOB_TOTAL_CAP_BYTES per tenant); the field holds a head + tail preview.',
    },
    TRUNCATE: { description: 'Keep a head + tail preview, recording the original size and BLAKE3 hash in contentRefs (stored: false).' },
  } as const,
});

const InvalidStep = builder.enumType('InvalidStepPolicy', {
  values: {
    REFUSE_CALL: { description: 'A step that breaks a limit refuses the whole call with an InputLimitError (the default).' },
    REJECT_STEP: { description: 'Such a step is REJECTED (reason invalid, with its violations) and the others are journaled.' },
  } as const,
});

const LogStepsOptionsInput = builder.inputType('LogStepsOptions', {
  fields: (t) => ({
    largeContent: t.field({ type: LargeContent, defaultValue: 'REFUSE' }),
    onInvalidStep: t.field({ type: InvalidStep, defaultValue: 'REFUSE_CALL' }),
  }),
});

const StepInput = builder.inputType('StepInput', {
  fields: (t) => ({
    kind: t.string({ defaultValue: 'tool_call', description: 'tool_call, llm_call, observation, ... (snake_case)' }),
    tool: t.string(),
    action: t.string({ description: `At most ${sizeText(STEP_LIMITS.actionBytes)} inline; ${UP_TO_BLOB}.` }),
    parameters: t.field({ type: 'JSON', description: `At most ${sizeText(STEP_LIMITS.parametersBytes)}; stored redacted with a BLAKE3 hash of the original.` }),
    result: t.field({ type: StepResultInput }),
    observation: t.string({ description: `At most ${sizeText(STEP_LIMITS.observationBytes)} inline; ${UP_TO_BLOB}.` }),
    latencyMs: t.int(),
    tokens: t.int(),
    cost: t.float(),
    sideEffectKey: t.string({
      description: `Repeating a key returns the original step instead of a second one. At most ${STEP_LIMITS.sideEffectKeyChars} characters.`,
    }),
    worldBefore: t.field({ type: 'JSON', description: `At most ${sizeText(STEP_LIMITS.worldStateBytes)}.` }),
    worldAfter: t.field({ type: 'JSON', description: `At most ${sizeText(STEP_LIMITS.worldStateBytes)}.` }),
    metadata: t.field({ type: 'JSON', description: `At most ${sizeText(STEP_LIMITS.metadataBytes)}.` }),
    startedAt: t.field({
      type: 'DateTime',
      description: 'When the step really ran (importing a past run): not in the future, not before its episode started.',
    }),
    endedAt: t.field({ type: 'DateTime', description: 'Not in the future, not before startedAt. An imported run measures wall time by these.' }),
  }),
});

interface ItemResult {
  index: number;
  item: StepItemResult;
  violations?: ApiViolation[];
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
    reason: t.string({
      nullable: true,
      resolve: (r) => ('reason' in r.item ? r.item.reason : null),
      description: 'budget_exhausted, step_limit, episode_size_limit, blob_cap, time_order, or invalid (onInvalidStep REJECT_STEP: see violations)',
    }),
    message: t.string({ nullable: true, resolve: (r) => ('message' in r.item ? r.item.message : null) }),
    violations: t.field({
      type: [LimitViolationRef],
      nullable: true,
      resolve: (r) => r.violations ?? null,
      description: 'Why an invalid step was rejected: each field and its limit.',
    }),
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
    result: t.field({ type: StepItemResultRef, resolve: (p) => must(p.results[0]) }),
    budgetExhausted: t.string({ nullable: true, resolve: (p) => p.exhausted }),
  }),
});

export interface LogOptions {
  largeContent: LargeContentMode;
  rejectInvalid: boolean;
}

const DEFAULT_OPTIONS: LogOptions = { largeContent: 'refuse', rejectInvalid: false };

function toLogOptions(raw: { largeContent?: string | null; onInvalidStep?: string | null } | null | undefined): LogOptions {
  return { largeContent: lower<LargeContentMode>(raw?.largeContent ?? 'REFUSE'), rejectInvalid: raw?.onInvalidStep === 'REJECT_STEP' };
}

/** @param single logStep: violations name the `step` argument (step.observation), not steps.0.observation */
async function logSteps(
  ctx: AuthedContext,
  episodeId: string,
  raw: GqlStepInput[],
  single: boolean,
  options: LogOptions = DEFAULT_OPTIONS,
): Promise<LogResult> {
  try {
    ctx.services.ingest.assertRoom(raw.length);
  } catch (err) {
    overloaded(err);
  }
  throwIfViolations(checkStepBatchSize(raw.length, 'steps'));
  const steps = raw.map((s) => offloadLargeContent(toStepInput(s), options.largeContent));
  const perStep = steps.map((s, i) => validateStep(s.step, i, 'steps'));
  if (!options.rejectInvalid) {
    const violations = perStep.flat();
    throwIfViolations(
      single
        ? violations.map((v) => ({ ...v, field: v.field.replace(/^steps\.0\./, 'step.'), message: v.message.replace(/^steps\.0\./, 'step.') }))
        : violations,
    );
  }
  if (!isUuid(episodeId)) throw new NotFoundError('Episode', episodeId);
  const validIndexes = perStep.flatMap((v, i) => (v.length ? [] : [i]));
  const prepared = prepareSteps(
    episodeId,
    validIndexes.map((i) => must(steps[i])),
    ctx.services.redactKeys,
  );
  const request = { episodeId, steps: prepared, blobCapBytes: ctx.services.config.blobTotalCapBytes };
  const outcome = await ctx.services.ingest.submit(ctx.viewer.tenantId, request).catch(overloaded);
  if (!outcome.ok) throw outcome.error;
  const accepted = new Map(validIndexes.map((index, k) => [index, must(outcome.items[k])]));
  const results = perStep.map((violations, index): ItemResult => {
    const item = accepted.get(index);
    if (item) return { index, item };
    const message = `refused: ${violations.map((v) => v.message).join('; ')}`;
    return { index, item: { status: 'rejected', reason: 'invalid', message }, violations: toViolations(violations) };
  });
  return { episodeId, results, exhausted: outcome.exhausted };
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
  logSteps: t.withAuth({ write: true }).field({
    type: LogStepsPayload,
    description: 'Journals many steps in one call; one result per step (accepted, duplicate, or rejected with the reason).',
    errors,
    args: {
      episodeId: t.arg.id({ required: true }),
      steps: t.arg({
        type: [StepInput],
        required: true,
        description: 'At most 1,000 steps per call and per episode; an episode holds at most 10 MB inline (blobs count against BLOB_TOTAL_CAP_BYTES instead).',
      }),
      options: t.arg({ type: LogStepsOptionsInput, description: 'Large content and invalid steps: by default both refuse the call.' }),
    },
    resolve: (_root, args, ctx) => logSteps(ctx, String(args.episodeId), args.steps as GqlStepInput[], false, toLogOptions(args.options)),
  }),
  logStep: t.withAuth({ write: true }).field({
    type: LogStepPayload,
    errors,
    args: { episodeId: t.arg.id({ required: true }), step: t.arg({ type: StepInput, required: true }) },
    resolve: (_root, args, ctx) => logSteps(ctx, String(args.episodeId), [args.step as GqlStepInput], true),
  }),
}));
