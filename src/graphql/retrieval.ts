// Retrieval in the API: relevantEpisodes and relevantPatterns, each answer with its score
// breakdown and a retrievalId (the receipt completeEpisode(usedRetrievals) credits).
import { grantsScope } from '../auth/keys.ts';
import { InputLimitError, NotFoundError, throwIfViolations } from '../core/errors.ts';
import { canonicalId } from '../core/ids.ts';
import { retrieveForEpisode } from '../experiments/serve.ts';
import { strengthWord } from '../retrieval/calibration.ts';
import { loadInBatch, sharedRows } from '../retrieval/episode-loader.ts';
import { patternTaskViolations, RETRIEVAL_LIMITS, validateRetrieval } from '../retrieval/inputs.ts';
import type { ScoredPattern } from '../retrieval/pattern-store.ts';
import { type EpisodeRetrievalResult, type PatternRetrievalResult, type RetrievalDeps, retrievePatterns } from '../retrieval/retrieve.ts';
import { RETRIEVAL_SIGNALS, type RetrievalSignal, type Signal, scoreFormula } from '../retrieval/signals.ts';
import type { ScoredEpisode } from '../retrieval/store.ts';
import { builder } from './builder.ts';
import { type Context, viewerOf } from './context.ts';
import { listSize } from './page-size.ts';
import { RelevantEpisodeFilter, RetrievalContextInput, RetrievalTaskInput, toContextFacts, toRetrievalQuery } from './retrieval-inputs.ts';

/** What retrieval reads and writes: the pool for ranking, the writer for receipts. */
/** Results of a retrieval unless limit says otherwise (at most RETRIEVAL_LIMITS.maxResults). */
const DEFAULT_RESULTS = 10;

export const retrievalDeps = (ctx: Context): RetrievalDeps => ({
  pool: ctx.services.db.pool,
  writer: ctx.services.writer,
  beforeAnswer: (write) => ctx.writesBeforeAnswer.add(write),
  turn: () => ctx.pacedRetrievals.turn(ctx.viewer?.keyId, 1),
});

interface FeatureContribution {
  name: string;
  value: number;
  contribution: number;
}

const FeatureContributionRef = builder.objectRef<FeatureContribution>('FeatureContribution').implement({
  description: "One feature of the tenant's learned ranker: its value for this episode and its part of the model's score (weight × standardised value).",
  fields: (t) => ({
    name: t.exposeString('name', {
      description: 'taskText, work, change (log1p of BM25), their Relative shares of the best candidate, sameRepository, contextMatch, trigram.',
    }),
    value: t.exposeFloat('value'),
    contribution: t.exposeFloat('contribution'),
  }),
});

const RelevanceScoreRef = builder.objectRef<ScoredEpisode>('RelevanceScore').implement({
  description: scoreFormula(),
  fields: (t) => ({
    total: t.float({
      resolve: (s) => s.score.total,
      description: 'The ranking total, relative to the best candidate (the top hit is always near 1): see strength for how good a match it is.',
    }),
    strength: t.float({
      resolve: (s) => s.strength,
      description:
        "The calibrated chance, in [0, 1], that this run is useful to the task (that it changed a file the task's run will change), fitted on the tenant's own history; the same scale for every query, and never higher below in the list (docs/LEARNING.md).",
    }),
    strengthWord: t.string({
      resolve: (s) => strengthWord(s.strength),
      description: 'The strength in a word: strong (>= 0.5), moderate (>= 0.25), weak (>= 0.1), none.',
    }),
    evidence: t.float({ resolve: (s) => s.score.evidence, description: 'The task evidence in [0, 1]; reward, recency and feedback only scale it.' }),
    learned: t.boolean({
      resolve: (s) => s.contributions !== null,
      description: "Whether the tenant's learned ranker gave the evidence (else the fixed formula).",
    }),
    contributions: t.field({
      type: [FeatureContributionRef],
      resolve: (s) =>
        Object.entries(s.features).map(([name, value]) => ({ name, value, contribution: s.contributions?.[name as keyof typeof s.features] ?? 0 })),
      description: 'Each feature of the learned ranker with its contribution (0 for every feature when the fixed formula ranked).',
    }),
    // One field per declared signal (signals.ts): a weighted signal's value is in the breakdown, a measure's beside it.
    ...Object.fromEntries(
      RETRIEVAL_SIGNALS.map((signal) => {
        const { name, type, description }: RetrievalSignal = signal;
        const resolve = (s: ScoredEpisode) => signalValue(s, signal);
        return [name, type === 'Int' ? t.int({ resolve, description }) : t.float({ resolve, description })];
      }),
    ),
  }),
});

const ScoredEpisodeRef = builder.objectRef<ScoredEpisode>('ScoredEpisode').implement({
  fields: (t) => ({
    episode: t.prismaField({
      type: 'Episode',
      // One read for every episode of the answer (up to 2 × limit with warnings), not one each.
      resolve: (query, s, _args, ctx) =>
        loadInBatch(
          ctx,
          query,
          s.id,
          sharedRows(ctx.services.db.pool, viewerOf(ctx).tenantId, (args) => ctx.db.episode.findMany(args)),
        ),
    }),
    score: t.field({ type: RelevanceScoreRef, resolve: (s) => s }),
    failed: t.exposeBoolean('failed', { description: 'A failed episode: evidence of what did not work.' }),
    whatWentWrong: t.exposeString('whatWentWrong', { nullable: true, description: "A failed episode's outcome reason and details." }),
  }),
});

const RelevantEpisodesRef = builder.objectRef<EpisodeRetrievalResult>('RelevantEpisodes').implement({
  fields: (t) => ({
    retrievalId: t.exposeID('retrievalId', {
      nullable: true,
      description: 'Pass it to completeEpisode(usedRetrievals) to credit what helped. Null for a key without write scope: nothing is recorded.',
    }),
    episodes: t.field({
      type: [ScoredEpisodeRef],
      resolve: (r) => r.episodes,
      description: 'Completed episodes, best first; with includeFailures, failed ones ranked among them (marked failed).',
    }),
    warnings: t.field({ type: [ScoredEpisodeRef], resolve: (r) => r.warnings, description: 'Similar failed episodes (includeFailures).' }),
  }),
});

const PatternScoreRef = builder.objectRef<ScoredPattern['score']>('PatternScore').implement({
  description: 'total = relevance × (0.5 + 0.5 strength) + 0.1 feedback; relevance = 0.5 cue + 0.5 scope, floor 0.5 (docs/LEARNING.md).',
  fields: (t) => ({
    total: t.exposeFloat('total'),
    relevance: t.exposeFloat('relevance', {
      description: 'How well the pattern fits the task: the task mentions its cue, its domain (or language) is the scope.',
    }),
    strength: t.exposeFloat('strength', { description: 'min(1, |lift| / 0.5).' }),
    lift: t.exposeFloat('lift', { description: 'Over comparable episodes without the antecedent; negative: a warning.' }),
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
    retrievalId: t.exposeID('retrievalId', { nullable: true, description: 'Null for a key without write scope: nothing is recorded.' }),
    patterns: t.field({ type: [ScoredPatternRef], resolve: (r) => r.patterns }),
  }),
});

builder.queryFields((t) => ({
  relevantEpisodes: t.withAuth({ read: true }).field({
    type: RelevantEpisodesRef,
    description: 'Completed episodes ranked by the signals of RelevanceScore (its description gives the formula). Records a receipt (retrieval.served).',
    errors: { types: [InputLimitError, NotFoundError] },
    ...listSize('limit', DEFAULT_RESULTS, RETRIEVAL_LIMITS.maxResults),
    args: {
      task: t.arg({ type: RetrievalTaskInput, required: true }),
      limit: t.arg.int({ defaultValue: DEFAULT_RESULTS }),
      includeFailures: t.arg.boolean({ defaultValue: false }),
      filter: t.arg({ type: RelevantEpisodeFilter }),
      episodeId: t.arg.id({
        description:
          'The episode asking (its run). Under a running experiment (memoryImpact) it is assigned an arm on its first retrieval; the answer has the same shape in every arm.',
      }),
    },
    resolve: (_root, args, ctx) => {
      const limit = args.limit ?? DEFAULT_RESULTS;
      throwIfViolations(validateRetrieval(args.task, limit));
      const filter = { minReward: args.filter?.minReward ?? null, endedAfter: args.filter?.endedAfter ?? null, agent: args.filter?.agent ?? null };
      // Receipts are writes: only a key that may write records one.
      const record = grantsScope(ctx.viewer.scopes, 'write');
      const request = { query: toRetrievalQuery(args.task), limit, includeFailures: args.includeFailures ?? false, filter, record };
      return retrieveForEpisode(retrievalDeps(ctx), ctx.viewer.tenantId, request, args.episodeId == null ? null : canonicalId(args.episodeId));
    },
  }),
  relevantPatterns: t.withAuth({ read: true }).field({
    type: RelevantPatternsRef,
    description:
      'Active patterns relevant to the task (it mentions their term; its domain or language is their scope), ranked by relevance and lift, with a relevance floor. Records a receipt (retrieval.served).',
    errors: { types: [InputLimitError] },
    ...listSize('limit', DEFAULT_RESULTS, RETRIEVAL_LIMITS.maxResults),
    args: {
      task: t.arg({ type: RetrievalTaskInput, description: 'The task: its description and context. Required unless context is given.' }),
      context: t.arg({ type: RetrievalContextInput, description: 'Context only (no description): the tool and error patterns of its domain. Prefer task.' }),
      limit: t.arg.int({ defaultValue: DEFAULT_RESULTS }),
    },
    resolve: (_root, args, ctx) => {
      const limit = args.limit ?? DEFAULT_RESULTS;
      const task = args.task ?? { description: '', context: args.context };
      throwIfViolations([...patternTaskViolations(args.task, args.context), ...validateRetrieval(task, limit)]);
      const query = { description: task.description, context: toContextFacts(task.context) };
      return retrievePatterns(retrievalDeps(ctx), ctx.viewer.tenantId, query, limit, grantsScope(ctx.viewer.scopes, 'write'));
    },
  }),
}));

function signalValue(s: ScoredEpisode, signal: Signal): number {
  return signal.role === 'measure' ? s[signal.name] : s.score[signal.name];
}
