// Learning in the API: reward and reflection on Episode, an extraction run (also answered by
// completeEpisode, graphql/finish-payloads.ts), the Pattern type with the episodes it came
// from, patterns(filter) and pattern(id), and on-demand extraction.

import { InputLimitError, NotFoundError } from '../core/errors.ts';
import { canonicalId, isUuid } from '../core/ids.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { ExtractionReport } from '../learning/extract.ts';
import { extractPatternsNow } from '../learning/extract-now.ts';
import { failedProcedureSummary, type PatternKind, patternSummary } from '../learning/patterns.ts';
import type { Reflection } from '../learning/reflection.ts';
import type { Reward } from '../learning/reward.ts';
import { failedProcedures } from '../retrieval/pattern-store.ts';
import { builder } from './builder.ts';
import type { Context } from './context.ts';
import { enumValue } from './enum-value.ts';
import { episodeField } from './episode-payloads.ts';
import { connectionSize } from './page-size.ts';

const PATTERN_KIND_VALUES = [
  'FILE_CHANGE',
  'TASK_OUTCOME',
  'TOOL_OUTCOME',
  'ERROR_OUTCOME',
  'ERROR_FIX',
  'PROCEDURE',
] as const satisfies readonly Uppercase<PatternKind>[];
const PATTERN_STATUSES = ['CANDIDATE', 'ACTIVE', 'SUPERSEDED'] as const;
const LEARNING_STATES = ['NONE', 'PENDING', 'QUEUED', 'DONE', 'SKIPPED'] as const;

const PatternKindEnum = builder.enumType('PatternKind', {
  description:
    'FILE_CHANGE: tasks mentioning a term change a file; TASK_OUTCOME: tasks mentioning a term succeed more or less often; TOOL_OUTCOME: runs using a tool; ERROR_OUTCOME: runs hitting an error class or name; ERROR_FIX: runs whose failed steps showed an error name changed a file (served to tasks mentioning the error); PROCEDURE: a command that worked in most runs of a repository that ran it, normalised (`python tests/runtests.py`, `npm test`): how to run its tests or build it (served to tasks of that domain).',
  values: PATTERN_KIND_VALUES,
});
const PatternStatusEnum = builder.enumType('PatternStatus', {
  description:
    'ACTIVE: its counts meet the bar now (support, comparable episodes, lift; docs/LEARNING.md); CANDIDATE: counts kept, bar never met; SUPERSEDED: met the bar once, no longer does.',
  values: PATTERN_STATUSES,
});
const LearningStateEnum = builder.enumType('LearningState', {
  description: 'Pattern extraction of an ended episode: NONE (no candidates), PENDING, QUEUED, DONE, SKIPPED (queue full; see the ledger).',
  values: LEARNING_STATES,
});

const RewardRef = builder.objectRef<Reward>('Reward').implement({
  description: 'total = base × efficiency × complexityBonus × qualityMultiplier + learningBonus; normalized = total / 3.2 in [0, 1] (docs/LEARNING.md).',
  fields: (t) => ({
    total: t.exposeFloat('total'),
    normalized: t.exposeFloat('normalized'),
    base: t.exposeFloat('base'),
    efficiency: t.exposeFloat('efficiency'),
    complexityBonus: t.exposeFloat('complexityBonus'),
    qualityMultiplier: t.exposeFloat('qualityMultiplier'),
    learningBonus: t.exposeFloat('learningBonus'),
  }),
});

const ReflectionRef = builder.objectRef<Reflection>('Reflection').implement({
  description: 'Derived from the steps, outcome and critique; at most 5 items each.',
  fields: (t) => ({
    successes: t.exposeStringList('successes'),
    improvements: t.exposeStringList('improvements'),
    insights: t.exposeStringList('insights'),
  }),
});

builder.prismaObjectFields('Episode', (t) => ({
  reward: t.field({ type: RewardRef, nullable: true, select: { reward: true }, resolve: (e) => e.reward as Reward | null }),
  reflection: t.field({ type: ReflectionRef, nullable: true, select: { reflection: true }, resolve: (e) => e.reflection as Reflection | null }),
  learningState: t.field({
    type: LearningStateEnum,
    nullable: true,
    select: { learningState: true },
    resolve: (e) => (e.learningState ? enumValue(LEARNING_STATES, e.learningState) : null),
  }),
  feedbackCredit: t.exposeFloat('feedbackCredit', {
    description: 'Overall retrieval feedback in [-1, 1] over every query. Ranking uses the query-relative credit (RelevanceScore.feedback).',
  }),
}));

const RejectedCounts = builder.objectRef<ExtractionReport['rejected']>('PatternRejections').implement({
  fields: (t) => ({
    tooFewOccurrences: t.int({
      resolve: (r) => r.too_few_occurrences,
      description: 'Too few episodes with the antecedent (or, for a file pattern, with the file changed too).',
    }),
    uninformativeCue: t.int({
      resolve: (r) => r.uninformative_cue,
      description: 'Its cue term is in more than 20 % of the scope’s tasks: too common to say anything about one task (the idf floor).',
    }),
    noComparableEpisodes: t.int({
      resolve: (r) => r.no_comparable_episodes,
      description: 'Too few episodes of the same scope and harness without it to compare with.',
    }),
    lowLift: t.int({ resolve: (r) => r.low_lift, description: 'Lift over comparable episodes below the bar.' }),
  }),
});

export const ExtractionRef = builder.objectRef<ExtractionReport>('PatternExtraction').implement({
  description: 'One extraction run, as its patterns.extracted ledger event records it: candidates = kept + rejected.',
  fields: (t) => ({
    mode: t.string({ resolve: (r) => r.mode }),
    candidates: t.exposeInt('candidates'),
    kept: t.exposeInt('kept'),
    rejected: t.field({ type: RejectedCounts, resolve: (r) => r.rejected }),
    activated: t.exposeInt('activated'),
    confirmed: t.exposeInt('confirmed'),
    revived: t.exposeInt('revived'),
    superseded: t.exposeInt('superseded'),
    patterns: t.prismaField({
      type: ['Pattern'],
      description: 'The patterns kept.',
      resolve: (query, r, _args, ctx) =>
        ctx.db.pattern.findMany({ ...query, where: { id: { in: r.keptPatternIds } }, orderBy: [{ effectiveness: 'desc' }, { id: 'asc' }] }),
    }),
  }),
});

// ---- patterns ----

const PatternContext = builder
  .objectRef<{ domain: string | null; language: string | null; framework: string | null; tags: string[] }>('PatternContext')
  .implement({
    description: 'Context of the episode that first produced the pattern.',
    fields: (t) => ({
      domain: t.exposeString('domain', { nullable: true }),
      language: t.exposeString('language', { nullable: true }),
      framework: t.exposeString('framework', { nullable: true }),
      tags: t.exposeStringList('tags'),
    }),
  });

builder.prismaObject('PatternEpisode', {
  description: 'One observation of a pattern: the episode, whether it succeeded, its reward, and whether that run kept the pattern.',
  fields: (t) => ({
    episode: t.relation('episode'),
    success: t.exposeBoolean('success'),
    reward: t.exposeFloat('reward'),
    kept: t.exposeBoolean('kept'),
    observedAt: t.expose('observedAt', { type: 'DateTime' }),
  }),
});

// The served procedures of one scope share its failed ones: read once per request and scope, not per pattern.
const failedByRequest = new WeakMap<Context, Map<string, ReturnType<typeof failedProcedures>>>();

function failedInScope(ctx: Context, tenantId: string, scope: string): ReturnType<typeof failedProcedures> {
  let scopes = failedByRequest.get(ctx);
  if (!scopes) failedByRequest.set(ctx, (scopes = new Map()));
  const key = `${tenantId}\u0000${scope}`;
  let read = scopes.get(key);
  if (!read) scopes.set(key, (read = failedProcedures(ctx.services.db.pool, tenantId, scope)));
  return read;
}

builder.prismaObject('Pattern', {
  fields: (t) => ({
    id: t.exposeID('id'),
    key: t.exposeString('key'),
    kind: t.field({ type: PatternKindEnum, select: { kind: true }, resolve: (p) => enumValue(PATTERN_KIND_VALUES, p.kind) }),
    signature: t.exposeStringList('signature'),
    description: t.exposeString('description'),
    occurrences: t.exposeInt('occurrences', {
      description: 'Episodes of the scope with the antecedent (the term, tool or error class; for PROCEDURE, the runs that ran it).',
    }),
    successes: t.exposeInt('successes', {
      description:
        'Of the occurrences, those where the consequent held (the run succeeded; for FILE_CHANGE, the file changed; for PROCEDURE, it worked: a step running it succeeded).',
    }),
    successRate: t.exposeFloat('successRate', { description: 'successes / occurrences.' }),
    meanReward: t.exposeFloat('meanReward'),
    effectiveness: t.exposeFloat('effectiveness', {
      description: '|lift|, in [0, 1]; for PROCEDURE, the share of the scope’s runs it worked in.',
    }),
    status: t.field({ type: PatternStatusEnum, select: { status: true }, resolve: (p) => enumValue(PATTERN_STATUSES, p.status) }),
    supersededAt: t.expose('supersededAt', { type: 'DateTime', nullable: true }),
    feedbackCredit: t.exposeFloat('feedbackCredit'),
    scope: t.exposeString('scope', { description: 'Where it was learnt: the domain, else language:<language>, else *.' }),
    cue: t.exposeString('cue', { description: 'The term (or tool, error class) a task or run is matched by; for PROCEDURE, the command.' }),
    changedFile: t.string({
      nullable: true,
      select: { target: true },
      description: 'FILE_CHANGE and ERROR_FIX: the file the runs changed.',
      resolve: (p) => (p.target.startsWith('file:') ? p.target.slice(5) : null),
    }),
    lift: t.exposeFloat('lift', {
      nullable: true,
      description: 'successRate (shrunk) minus baselineRate, stratified by harness; null without comparable episodes, and for PROCEDURE (not compared).',
    }),
    baselineRate: t.exposeFloat('baselineRate', {
      description: 'How often the consequent holds in comparable episodes (same scope and harness) without the antecedent.',
    }),
    summary: t.string({
      select: { kind: true, scope: true, cue: true, target: true, occurrences: true, successes: true, baselineRate: true, lift: true, effectiveness: true },
      description: 'The pattern and its numbers in one sentence.',
      resolve: (p) => patternSummary({ ...p, kind: p.kind as PatternKind }),
    }),
    failedInstead: t.stringList({
      select: { kind: true, scope: true, tenantId: true },
      description:
        'PROCEDURE: the commands runs of its scope tried that usually failed there (worked in fewer than half the runs that ran them), with their counts, most often tried first: what not to run instead. Empty for the other kinds.',
      resolve: async (p, _args, ctx) => (p.kind === 'procedure' ? (await failedInScope(ctx, p.tenantId, p.scope)).map(failedProcedureSummary) : []),
    }),
    context: t.field({
      type: PatternContext,
      select: { domain: true, language: true, framework: true, tags: true },
      resolve: (p) => ({ domain: p.domain, language: p.language, framework: p.framework, tags: p.tags }),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    episodes: t.relatedConnection('episodes', {
      description: 'The episodes the pattern was observed in, oldest first.',
      cursor: 'patternId_episodeId',
      ...connectionSize(20, 100, 2),
      query: { orderBy: [{ observedAt: 'asc' }, { episodeId: 'asc' }] },
    }),
  }),
});

const PatternFilter = builder.inputType('PatternFilter', {
  fields: (t) => ({
    kind: t.field({ type: [PatternKindEnum], description: 'Any of these kinds.' }),
    status: t.field({ type: [PatternStatusEnum], description: 'Any of these statuses; default ACTIVE.' }),
    minEffectiveness: t.float(),
    episodeId: t.id({ description: 'Patterns observed in this episode.' }),
  }),
});

function patternWhere(
  tenantId: string,
  f: { kind?: string[] | null; status?: string[] | null; minEffectiveness?: number | null; episodeId?: string | number | null } | null,
): Prisma.PatternWhereInput {
  const episodeId = f?.episodeId == null ? null : String(f.episodeId);
  return {
    tenantId,
    status: { in: (f?.status?.length ? f.status : ['ACTIVE']).map((s) => s.toLowerCase()) },
    ...(f?.kind?.length ? { kind: { in: f.kind.map((k) => k.toLowerCase()) } } : {}),
    ...(f?.minEffectiveness != null ? { effectiveness: { gte: f.minEffectiveness } } : {}),
    // A malformed id matches nothing rather than failing the query.
    ...(episodeId !== null ? { episodes: { some: { episodeId: isUuid(episodeId) ? episodeId : '00000000-0000-0000-0000-000000000000' } } } : {}),
  };
}

builder.queryFields((t) => ({
  patterns: t.withAuth({ read: true }).prismaConnection({
    type: 'Pattern',
    cursor: 'id',
    ...connectionSize(20, 100),
    description: 'Patterns of this tenant, most effective first.',
    args: { filter: t.arg({ type: PatternFilter }) },
    resolve: (query, _root, args, ctx) =>
      ctx.db.pattern.findMany({
        ...query,
        where: patternWhere(ctx.viewer.tenantId, args.filter ?? null),
        orderBy: [{ effectiveness: 'desc' }, { id: 'asc' }],
      }),
  }),
  pattern: t.withAuth({ read: true }).prismaField({
    type: 'Pattern',
    errors: { types: [NotFoundError] },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, { id }, ctx) => {
      const pattern = isUuid(id) ? await ctx.db.pattern.findFirst({ ...query, where: { id, tenantId: ctx.viewer.tenantId } }) : null;
      if (!pattern) throw new NotFoundError('Pattern', String(id));
      return pattern;
    },
  }),
}));

const ExtractPayload = builder.objectRef<{ episodeId: string; extraction: ExtractionReport | null }>('ExtractEpisodePatternsPayload').implement({
  fields: (t) => ({
    episode: episodeField(t),
    extraction: t.field({
      type: ExtractionRef,
      nullable: true,
      description: 'null when extraction already ran for this episode.',
      resolve: (p) => p.extraction,
    }),
  }),
});

builder.mutationFields((t) => ({
  extractEpisodePatterns: t.withAuth({ write: true }).field({
    type: ExtractPayload,
    description: 'Runs pattern extraction for an ended episode now (for example one whose queued extraction was skipped).',
    errors: { types: [NotFoundError, InputLimitError] },
    args: { episodeId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const episodeId = canonicalId(args.episodeId);
      const extraction = await extractPatternsNow(ctx.services.writer, ctx.viewer.tenantId, episodeId);
      return { episodeId, extraction };
    },
  }),
}));
