// Retrieval in the API: relevantEpisodes and relevantPatterns, each answer with its score
// breakdown and a retrievalId (the receipt completeEpisode(usedRetrievals) credits).
import { builder } from '../builder.ts';
import { ComplexityEnum } from '../episodes/graphql.ts';
import { InputLimitError, throwIfViolations } from '../schema/errors.ts';
import { toContextFacts, toRetrievalQuery, validateContext, validateLimit, validateRetrieval } from './inputs.ts';
import type { ScoredPattern } from './pattern-store.ts';
import { retrieveEpisodes, retrievePatterns, type EpisodeRetrievalResult, type PatternRetrievalResult } from './retrieve.ts';
import type { ScoredEpisode } from './store.ts';

const RetrievalContextInput = builder.inputType('RetrievalContextInput', {
  fields: (t) => ({
    language: t.string(),
    framework: t.string(),
    domain: t.string(),
    tags: t.stringList(),
    complexity: t.field({ type: ComplexityEnum, description: 'Accepted for symmetry with TaskContext; ranking does not use it.' }),
  }),
});

const RetrievalTaskInput = builder.inputType('RetrievalTaskInput', {
  fields: (t) => ({
    description: t.string({ required: true, description: 'Any language: full-text (simple configuration) and trigram similarity.' }),
    taskType: t.string(),
    context: t.field({ type: RetrievalContextInput }),
  }),
});

const RelevantEpisodeFilter = builder.inputType('RelevantEpisodeFilter', {
  description: 'Hard filters, applied before ranking.',
  fields: (t) => ({
    minReward: t.float({ description: 'Normalised reward at least this.' }),
    endedAfter: t.field({ type: 'DateTime' }),
    agent: t.string(),
  }),
});

const RelevanceScoreRef = builder.objectRef<ScoredEpisode>('RelevanceScore').implement({
  description: 'total = 0.35 contextMatch + 0.20 reward + 0.30 similarity + 0.05 recency + 0.10 feedback (docs/LEARNING.md).',
  fields: (t) => ({
    total: t.float({ resolve: (s) => s.score.total }),
    contextMatch: t.float({ resolve: (s) => s.score.contextMatch }),
    reward: t.float({ resolve: (s) => s.score.reward }),
    similarity: t.float({ resolve: (s) => s.score.similarity, description: 'max(textRank, trigramSimilarity)' }),
    recency: t.float({ resolve: (s) => s.score.recency }),
    feedback: t.float({ resolve: (s) => s.score.feedback }),
    textRank: t.exposeFloat('textRank'),
    trigramSimilarity: t.exposeFloat('trigramSimilarity'),
  }),
});

const ScoredEpisodeRef = builder.objectRef<ScoredEpisode>('ScoredEpisode').implement({
  fields: (t) => ({
    episode: t.prismaField({ type: 'Episode', resolve: (query, s, _args, ctx) => ctx.db.episode.findUniqueOrThrow({ ...query, where: { id: s.id } }) }),
    score: t.field({ type: RelevanceScoreRef, resolve: (s) => s }),
  }),
});

const RelevantEpisodesRef = builder.objectRef<EpisodeRetrievalResult>('RelevantEpisodes').implement({
  fields: (t) => ({
    retrievalId: t.exposeID('retrievalId', { description: 'Pass it to completeEpisode(usedRetrievals) to credit what helped.' }),
    episodes: t.field({ type: [ScoredEpisodeRef], resolve: (r) => r.episodes, description: 'Completed episodes, best first.' }),
    warnings: t.field({ type: [ScoredEpisodeRef], resolve: (r) => r.warnings, description: 'Similar failed episodes (includeFailures).' }),
  }),
});

const PatternScoreRef = builder.objectRef<ScoredPattern['score']>('PatternScore').implement({
  description: 'total = 0.5 effectiveness + 0.4 fit + 0.1 feedback (docs/LEARNING.md).',
  fields: (t) => ({
    total: t.exposeFloat('total'),
    effectiveness: t.exposeFloat('effectiveness'),
    fit: t.exposeFloat('fit'),
    feedback: t.exposeFloat('feedback'),
  }),
});

const ScoredPatternRef = builder.objectRef<ScoredPattern>('ScoredPattern').implement({
  fields: (t) => ({
    pattern: t.prismaField({ type: 'Pattern', resolve: (query, s, _args, ctx) => ctx.db.pattern.findUniqueOrThrow({ ...query, where: { id: s.id } }) }),
    score: t.field({ type: PatternScoreRef, resolve: (s) => s.score }),
  }),
});

const RelevantPatternsRef = builder.objectRef<PatternRetrievalResult>('RelevantPatterns').implement({
  fields: (t) => ({
    retrievalId: t.exposeID('retrievalId'),
    patterns: t.field({ type: [ScoredPatternRef], resolve: (r) => r.patterns }),
  }),
});

builder.queryFields((t) => ({
  relevantEpisodes: t.field({
    type: RelevantEpisodesRef,
    description: 'Completed episodes ranked by context match, reward, description similarity, recency and retrieval feedback. Records a receipt (retrieval.served).',
    errors: { types: [InputLimitError] },
    args: {
      task: t.arg({ type: RetrievalTaskInput, required: true }),
      limit: t.arg.int({ defaultValue: 10 }),
      includeFailures: t.arg.boolean({ defaultValue: false }),
      filter: t.arg({ type: RelevantEpisodeFilter }),
    },
    resolve: (_root, args, ctx) => {
      const limit = args.limit ?? 10;
      throwIfViolations(validateRetrieval(args.task, limit));
      const filter = { minReward: args.filter?.minReward ?? null, endedAfter: args.filter?.endedAfter ?? null, agent: args.filter?.agent ?? null };
      return retrieveEpisodes(ctx.services, ctx.viewer!.tenantId, { query: toRetrievalQuery(args.task), limit, includeFailures: args.includeFailures ?? false, filter });
    },
  }),
  relevantPatterns: t.field({
    type: RelevantPatternsRef,
    description: 'Active patterns ranked by effectiveness and fit to the context. Records a receipt (retrieval.served).',
    errors: { types: [InputLimitError] },
    args: { context: t.arg({ type: RetrievalContextInput, required: true }), limit: t.arg.int({ defaultValue: 10 }) },
    resolve: (_root, args, ctx) => {
      const limit = args.limit ?? 10;
      throwIfViolations([...validateContext(args.context, 'context'), ...validateLimit(limit)]);
      return retrievePatterns(ctx.services, ctx.viewer!.tenantId, toContextFacts(args.context), limit);
    },
  }),
}));
