// relevantFiles in the API: the files runs of similar tasks changed, each with its support and the
// runs as evidence, and a retrievalId (the receipt completeEpisode(usedRetrievals) credits).
import { grantsScope } from '../auth/keys.ts';
import { InputLimitError, throwIfViolations } from '../core/errors.ts';
import type { FileEvidence } from '../retrieval/files.ts';
import { type FileRetrievalResult, retrieveFiles } from '../retrieval/files-store.ts';
import { RETRIEVAL_LIMITS, validateRetrieval } from '../retrieval/inputs.ts';
import { builder } from './builder.ts';
import { listSize } from './page-size.ts';
import { retrievalDeps } from './retrieval.ts';
import { RelevantEpisodeFilter, RetrievalTaskInput, toRetrievalQuery } from './retrieval-inputs.ts';

const DEFAULT_FILES = 10;

const RelevantFileRef = builder.objectRef<FileEvidence>('RelevantFile').implement({
  description: 'A file runs of similar tasks changed (docs/LEARNING.md, relevantFiles).',
  fields: (t) => ({
    path: t.exposeString('path', { nullable: false }),
    score: t.exposeFloat('score', {
      nullable: false,
      description:
        'vote / the best vote + 0.5 × path match / the best match: vote = Σ over the 20 best-ranked runs that changed it of text similarity × outcome (resolved 1, partial 0.8, failed 0.6) / sqrt(files the run changed); path match = the idf-weighted words of its path the task mentions (docs/LEARNING.md).',
    }),
    runs: t.exposeInt('runs', { nullable: false, description: 'Runs among the 50 most similar that changed the file.' }),
    resolved: t.exposeInt('resolved', { nullable: false, description: 'Of those, runs that succeeded.' }),
    failed: t.exposeInt('failed', { nullable: false, description: 'Of those, runs that failed.' }),
    evidence: t.prismaField({
      type: ['Episode'],
      nullable: false,
      description: 'The runs that changed it, best first.',
      resolve: async (query, f, _args, ctx) => {
        const rows = await ctx.db.episode.findMany({ ...query, where: { id: { in: f.evidence } } });
        const order = new Map(f.evidence.map((id, i) => [id, i]));
        return rows.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
      },
    }),
  }),
});

const RelevantFilesRef = builder.objectRef<FileRetrievalResult>('RelevantFiles').implement({
  fields: (t) => ({
    retrievalId: t.exposeID('retrievalId', {
      nullable: true,
      description: 'Pass it to completeEpisode(usedRetrievals) to credit the evidence runs. Null for a key without write scope: nothing is recorded.',
    }),
    files: t.field({ type: [RelevantFileRef], nullable: false, resolve: (r) => r.files, description: 'Best first.' }),
  }),
});

builder.queryFields((t) => ({
  relevantFiles: t.withAuth({ read: true }).field({
    type: RelevantFilesRef,
    description:
      'Where to look: the files that runs of similar tasks changed (ranked as relevantEpisodes ranks runs, failures included), weighted by similarity and outcome, with the files the task names. Records a receipt (retrieval.served).',
    errors: { types: [InputLimitError] },
    ...listSize('limit', DEFAULT_FILES, RETRIEVAL_LIMITS.maxResults),
    args: {
      task: t.arg({ type: RetrievalTaskInput, required: true }),
      limit: t.arg.int({ defaultValue: DEFAULT_FILES }),
      filter: t.arg({ type: RelevantEpisodeFilter }),
    },
    resolve: (_root, args, ctx) => {
      const limit = args.limit ?? DEFAULT_FILES;
      throwIfViolations(validateRetrieval(args.task, limit));
      const filter = { minReward: args.filter?.minReward ?? null, endedAfter: args.filter?.endedAfter ?? null, agent: args.filter?.agent ?? null };
      return retrieveFiles(retrievalDeps(ctx), ctx.viewer.tenantId, {
        query: toRetrievalQuery(args.task),
        limit,
        filter,
        record: grantsScope(ctx.viewer.scopes, 'write'),
      });
    },
  }),
}));
