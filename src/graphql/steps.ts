// Step journal: the Step type and logSteps / logStep, which go through group commit.

import { GraphQLError } from 'graphql';
import { IllegalTransitionError, InputLimitError, NotFoundError } from '../core/errors.ts';
import { canonicalId } from '../core/ids.ts';
import { must } from '../core/must.ts';
import { sizeText } from '../core/sizes.ts';
import { STEP_HASH_FIELDS, STEP_OPTIONAL_FIELDS, stepHashedMembers, stepRowFromRecord } from '../ledger/format/step-hash.ts';
import type { Services } from '../services.ts';
import { OverloadedError } from '../steps/ingest.ts';
import { type ItemResult, type JournalDeps, journalSteps, type LogOptions, type LogResult } from '../steps/journal.ts';
import { STEP_LIMITS } from '../steps/limits.ts';
import { LimitViolationRef } from './base.ts';
import { builder } from './builder.ts';
import type { AuthedContext } from './context.ts';
import { enumValue } from './enum-value.ts';
import { episodeField } from './episode-payloads.ts';
import { contentRefList, StepContentRef } from './step-blobs.ts';
import { LogStepsOptionsInput, StepInputRef, toLogOptions, toStepInput } from './step-inputs.ts';
import { chargeStep, selectsOwnStepContent } from './step-page.ts';

/** Every column hashedContent reads: the hashed members, the step number, and whether the content is forgotten. */
const HASHED_COLUMNS = Object.fromEntries([...STEP_HASH_FIELDS, ...STEP_OPTIONAL_FIELDS, 'stepNumber', 'forgottenAt'].map((f) => [f, true]));

/** The step's hashed members, null once forgotten. */
const hashedContentOf = (row: Record<string, unknown>) => (row.forgottenAt ? null : stepHashedMembers(stepRowFromRecord(row)));

builder.prismaObject('Step', {
  // Each field selects its own columns (exposed ones by themselves): a page of step numbers does not
  // read the steps' inline content, which only the content fields read (and Episode.steps charges).
  select: { id: true },
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
    contentHash: t.exposeString('contentHash', {
      description:
        'BLAKE3 of the RFC 8785 JSON of hashedContent (docs/LEDGER.md §3.2), covering the hash of every blob it references (contentRefs). The fields above are a view (times as DateTime, result split into resultKind and result): check this hash against hashedContent, not against them.',
    }),
    hashedContent: t.field({
      type: 'JSON',
      nullable: true,
      select: HASHED_COLUMNS,
      description:
        'Exactly the members contentHash covers, as hashed: contentHash = BLAKE3(RFC 8785 JSON of this value), for steps with blobs, truncated fields or imported times too. Null once the content is forgotten (forgottenAt).',
      resolve: (s) => hashedContentOf(s as unknown as Record<string, unknown>),
    }),
    forgottenAt: t.expose('forgottenAt', {
      type: 'DateTime',
      nullable: true,
      description: "When forgetSteps deleted this step's content (its steps.forgotten ledger event names it); null while it is kept.",
    }),
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

const ITEM_STATUSES = ['ACCEPTED', 'DUPLICATE', 'REJECTED'] as const;
const ItemStatus = builder.enumType('StepItemStatus', { values: ITEM_STATUSES });
const StepItemResultRef = builder.objectRef<ItemResult>('StepItemResult').implement({
  fields: (t) => ({
    index: t.exposeInt('index', { description: 'Position of the step in the request.' }),
    status: t.field({ type: ItemStatus, resolve: (r) => enumValue(ITEM_STATUSES, r.item.status) }),
    stepNumber: t.int({ nullable: true, resolve: (r) => ('stepNumber' in r.item ? r.item.stepNumber : null) }),
    step: t.prismaField({
      type: 'Step',
      nullable: true,
      description: "The step as stored (a duplicate's is the original): its content counts against the request's MAX_RESPONSE_BYTES before it is read.",
      resolve: async (query, r, _args, ctx, info) => {
        if (!('stepId' in r.item)) return null;
        const where = { id: r.item.stepId };
        if (selectsOwnStepContent(info)) await chargeStep(ctx, where.id, `Step ${r.index} of this answer`);
        return ctx.db.step.findUnique({ ...query, where });
      },
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

const count = (p: LogResult, status: string) => p.results.filter((r) => r.item.status === status).length;

export const LogStepsPayload = builder.objectRef<LogResult>('LogStepsPayload').implement({
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

/** What journalSteps needs, from the services. */
export const journalDeps = (services: Services): JournalDeps => ({
  ingest: services.ingest,
  redactKeys: services.redactKeys,
  blobCapBytes: services.config.blobTotalCapBytes,
});

/** Journals the steps of a logSteps or logStep call; a full ingestor answers OVERLOADED. */
function logSteps(ctx: AuthedContext, episodeId: string, steps: Array<typeof StepInputRef.$inferInput>, single: boolean, options?: LogOptions) {
  return journalSteps(journalDeps(ctx.services), ctx.viewer.tenantId, episodeId, steps.map(toStepInput), options, single).catch(overloaded);
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
        type: [StepInputRef],
        required: true,
        description: 'At most 1,000 steps per call and per episode; an episode holds at most 10 MB inline (blobs count against BLOB_TOTAL_CAP_BYTES instead).',
      }),
      options: t.arg({ type: LogStepsOptionsInput, description: 'Large content and invalid steps: by default both refuse the call.' }),
    },
    resolve: (_root, args, ctx) => logSteps(ctx, canonicalId(args.episodeId), args.steps, false, toLogOptions(args.options)),
  }),
  logStep: t.withAuth({ write: true }).field({
    type: LogStepPayload,
    errors,
    args: { episodeId: t.arg.id({ required: true }), step: t.arg({ type: StepInputRef, required: true }) },
    resolve: (_root, args, ctx) => logSteps(ctx, canonicalId(args.episodeId), [args.step], true),
  }),
}));
