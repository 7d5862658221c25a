// The monitor's API: the dashboard's aggregates, one step in full, retrieval receipts with the
// credit they got, an episode's used retrievals. Reads only; tenant-scoped.

import { InputLimitError, NotFoundError } from '../core/errors.ts';
import { canonicalId, isUuid } from '../core/ids.ts';
import { allTimeFrom, type Bucket, MAX_RANGE_DAYS, rangeEnd, type ToolStats, type Totals, validateDashboardFilter } from '../monitor/dashboard.ts';
import { findLastError, LAST_LINE_CHARS, type LastError } from '../monitor/last-error.ts';
import { usageByModelOfRange } from '../monitor/model-usage.ts';
import {
  creditsOfEpisode,
  creditsOfRetrieval,
  findReceipt,
  inOrder,
  listReceipts,
  MAX_RECEIPTS_PAGE,
  type ReceiptRow,
  type RetrievalCredit,
} from '../monitor/receipts.ts';
import { type BudgetExhaustion, type Dashboard, loadDashboard, runSpan } from '../monitor/store.ts';
import { ResponseBudgetError } from '../steps/read-budget.ts';
import { builder } from './builder.ts';
import type { Context } from './context.ts';
import { ModelUsageRef } from './model-usage.ts';
import { listSize } from './page-size.ts';
import { chargeStepRows, selectsOwnStepContent } from './step-page.ts';

/** Receipts of a page unless first says otherwise. */
const DEFAULT_RECEIPTS_PAGE = 20;

const DashboardFilterInput = builder.inputType('DashboardFilter', {
  fields: (t) => ({
    from: t.field({ type: 'DateTime', description: "Omitted: all time, from the hour of the tenant's first run." }),
    to: t.field({
      type: 'DateTime',
      description: `Exclusive; at most ${MAX_RANGE_DAYS} days after from. Omitted: the end of the current hour, or for all time (from omitted too) the end of the hour of the tenant's latest run.`,
    }),
    taskType: t.string(),
    domain: t.string(),
  }),
});

const BucketRef = builder.objectRef<Bucket>('DashboardBucket').implement({
  description: 'One hour (ranges up to 14 days), one UTC day (up to 731 days) or one week of the range. Every figure counts the runs started in it.',
  fields: (t) => ({
    start: t.field({ type: 'DateTime', resolve: (b) => b.start }),
    runs: t.exposeInt('runs', { description: 'Episodes started in the bucket.' }),
    running: t.int({ resolve: (b) => b.byStatus.running ?? 0 }),
    blocked: t.int({ resolve: (b) => b.byStatus.blocked ?? 0 }),
    completed: t.int({ resolve: (b) => b.byStatus.completed ?? 0 }),
    failed: t.int({ resolve: (b) => b.byStatus.failed ?? 0 }),
    cancelled: t.int({ resolve: (b) => b.byStatus.cancelled ?? 0 }),
    escalated: t.int({ resolve: (b) => b.byStatus.escalated ?? 0 }),
    successes: t.exposeInt('successes', { description: 'Outcome success.' }),
    partials: t.exposeInt('partials', { description: 'Outcome partial.' }),
    failures: t.exposeInt('failures', { description: 'Outcome failure.' }),
    tokens: t.exposeFloat('tokens'),
    cost: t.exposeFloat('cost'),
    budgetExhaustions: t.exposeInt('budgetExhaustions'),
    patternsLearned: t.exposeInt('patternsLearned', { description: 'Active patterns first seen in the bucket.' }),
    retrievalsServed: t.exposeInt('retrievalsServed', { description: "The tenant's receipts (they record no task type or domain)." }),
    retrievalsCredited: t.exposeInt('retrievalsCredited', { description: 'Retrievals a completion credited or debited.' }),
    steps: t.exposeInt('steps', { description: 'Steps of the runs started in the bucket.' }),
    latencyP50: t.exposeFloat('latencyP50', { nullable: true }),
    latencyP95: t.exposeFloat('latencyP95', { nullable: true }),
  }),
});

const TotalsRef = builder.objectRef<Totals>('DashboardTotals').implement({
  fields: (t) => ({
    runs: t.exposeInt('runs'),
    ended: t.exposeInt('ended', { description: 'Runs with an outcome.' }),
    successes: t.exposeInt('successes'),
    partials: t.exposeInt('partials'),
    failures: t.exposeInt('failures'),
    successRate: t.exposeFloat('successRate', { nullable: true, description: 'successes / ended; null when nothing ended.' }),
    tokens: t.exposeFloat('tokens'),
    cost: t.exposeFloat('cost'),
    budgetExhaustions: t.exposeInt('budgetExhaustions'),
    patternsLearned: t.exposeInt('patternsLearned'),
    retrievalsServed: t.exposeInt('retrievalsServed'),
    retrievalsCredited: t.exposeInt('retrievalsCredited'),
  }),
});

const ToolStatsRef = builder.objectRef<ToolStats>('ToolStats').implement({
  fields: (t) => ({
    tool: t.exposeString('tool'),
    calls: t.exposeInt('calls'),
    errors: t.exposeInt('errors'),
    timeouts: t.exposeInt('timeouts'),
    errorRate: t.exposeFloat('errorRate', { description: '(errors + timeouts) / calls' }),
  }),
});

const BudgetExhaustionRef = builder.objectRef<BudgetExhaustion>('BudgetExhaustionCount').implement({
  fields: (t) => ({ resource: t.exposeString('resource'), count: t.exposeInt('count') }),
});

const DashboardRef = builder.objectRef<Dashboard>('Dashboard').implement({
  description:
    'Aggregates over the episodes started in [from, to), widened to whole hours, computed in PostgreSQL from an hourly rollup. Steps, tokens, latency and tool errors count with their run, by when it started.',
  fields: (t) => ({
    from: t.field({ type: 'DateTime', resolve: (d) => d.filter.from }),
    to: t.field({ type: 'DateTime', resolve: (d) => d.filter.to }),
    bucketSeconds: t.int({ resolve: (d) => d.bucketMs / 1000 }),
    series: t.field({ type: [BucketRef], resolve: (d) => d.series }),
    totals: t.field({ type: TotalsRef, resolve: (d) => d.totals }),
    steps: t.exposeInt('steps'),
    latencyP50: t.exposeFloat('latencyP50', { nullable: true, description: 'Step latency, ms, from a histogram with 10% wide buckets (within 5%).' }),
    latencyP95: t.exposeFloat('latencyP95', { nullable: true, description: 'Step latency, ms, from a histogram with 10% wide buckets (within 5%).' }),
    tools: t.field({ type: [ToolStatsRef], resolve: (d) => d.tools, description: 'The most used tools, with their error rates.' }),
    budgetExhaustions: t.field({ type: [BudgetExhaustionRef], resolve: (d) => d.budgetExhaustions, description: 'Per resource.' }),
    usageByModel: t.field({
      type: [ModelUsageRef],
      description: 'Tokens and cost of the model calls of the runs started in the range, per model, the most used first (at most 50).',
      resolve: (d, _args, ctx) => usageByModelOfRange(ctx.services.db.pool, tenantOf(ctx), d.filter),
    }),
  }),
});

const CreditRef = builder.objectRef<RetrievalCredit>('RetrievalCredit').implement({
  description: 'A completion that used retrievals, and the credit it gave what they served (a retrieval.feedback ledger event).',
  fields: (t) => ({
    seq: t.field({ type: 'BigInt', resolve: (c) => c.seq }),
    episode: t.prismaField({
      type: 'Episode',
      nullable: true,
      resolve: (query, c, _args, ctx) => (c.episodeId ? ctx.db.episode.findFirst({ ...query, where: { id: c.episodeId } }) : null),
    }),
    retrievalIds: t.idList({ resolve: (c) => c.retrievalIds }),
    target: t.float({ nullable: true, resolve: (c) => c.target, description: '+1 success, -1 failure, in between for partial.' }),
    outcome: t.string({ nullable: true, resolve: (c) => c.outcome }),
    episodesCredited: t.int({ nullable: true, resolve: (c) => c.episodesCredited }),
    patternsCredited: t.int({ nullable: true, resolve: (c) => c.patternsCredited }),
    createdAt: t.field({ type: 'DateTime', resolve: (c) => c.createdAt }),
  }),
});

const ReceiptRef = builder.objectRef<ReceiptRow>('RetrievalReceipt').implement({
  description: 'What one relevantEpisodes / relevantPatterns call served, best first.',
  fields: (t) => ({
    id: t.exposeID('id'),
    kind: t.exposeString('kind', { description: 'episodes, patterns or files (relevantFiles: its episodeIds are the evidence runs)' }),
    queryHash: t.exposeString('queryHash'),
    resultsHash: t.exposeString('resultsHash'),
    arm: t.exposeString('arm', {
      nullable: true,
      description: 'The experiment arm that served it: memory, control or interleaved; null outside an experiment.',
    }),
    experimentId: t.exposeID('experimentId', { nullable: true }),
    createdAt: t.field({ type: 'DateTime', resolve: (r) => r.createdAt }),
    episodes: t.prismaField({
      type: ['Episode'],
      resolve: async (query, r, _a, ctx) =>
        inOrder(r.episodeIds, await ctx.db.episode.findMany({ ...query, where: { id: { in: r.episodeIds }, forgottenAt: null } })),
    }),
    warnings: t.prismaField({
      type: ['Episode'],
      resolve: async (query, r, _a, ctx) =>
        inOrder(r.warningIds, await ctx.db.episode.findMany({ ...query, where: { id: { in: r.warningIds }, forgottenAt: null } })),
    }),
    patterns: t.prismaField({
      type: ['Pattern'],
      resolve: async (query, r, _a, ctx) => inOrder(r.patternIds, await ctx.db.pattern.findMany({ ...query, where: { id: { in: r.patternIds } } })),
    }),
    credits: t.field({ type: [CreditRef], resolve: (r, _a, ctx) => creditsOfRetrieval(ctx.services.db.pool, tenantOf(ctx), r.id) }),
  }),
});

/** The viewer's tenant; the Query type's read scope already refused a request without one. */
function tenantOf(ctx: Context): string {
  if (!ctx.viewer) throw new Error('monitor query without a viewer');
  return ctx.viewer.tenantId;
}

const LastErrorRef = builder.objectRef<LastError>('LastError').implement({
  description: "An episode's last step that ended in an error or a timeout: what went wrong, in the run's own words.",
  fields: (t) => ({
    stepNumber: t.exposeInt('stepNumber'),
    tool: t.exposeString('tool', { nullable: true }),
    kind: t.exposeString('kind', { description: 'error or timeout' }),
    message: t.exposeString('message', { description: 'errorClass: message, as the step reported it.' }),
    lastLine: t.exposeString('lastLine', {
      nullable: true,
      description: `The last non-empty line of the step's output (at most ${LAST_LINE_CHARS} characters).`,
    }),
  }),
});

builder.prismaObjectFields('Episode', (t) => ({
  lastError: t.field({
    type: LastErrorRef,
    nullable: true,
    description: 'The last step that ended in an error or a timeout; null when none did. A warning about a failed run shows it.',
    resolve: (e, _args, ctx) => findLastError(ctx.services.db.pool, e.tenantId, e.id),
  }),
  retrievalCredits: t.field({
    type: [CreditRef],
    description: 'The retrievals this episode used (completeEpisode usedRetrievals) and the credit its outcome gave them.',
    resolve: (e, _args, ctx) => creditsOfEpisode(ctx.services.db.pool, e.tenantId, e.id),
  }),
}));

builder.queryFields((t) => ({
  dashboard: t.field({
    type: DashboardRef,
    description: 'Runs, outcomes, spend, step latency, tool errors, budget exhaustions, patterns and retrievals over a time range, per hour or day.',
    errors: { types: [InputLimitError] },
    args: { filter: t.arg({ type: DashboardFilterInput, required: true }) },
    resolve: async (_root, { filter: f }, ctx) => {
      const pool = ctx.services.db.pool;
      const span = f.from && f.to ? null : await runSpan(pool, tenantOf(ctx));
      const to = f.to ?? rangeEnd(span?.latest ?? null, !f.from, new Date());
      const from = f.from ?? allTimeFrom(span?.first ?? null, to);
      const filter = { from, to, taskType: f.taskType || null, domain: f.domain || null };
      const violations = validateDashboardFilter(filter);
      if (violations.length) throw new InputLimitError(violations);
      return loadDashboard(pool, tenantOf(ctx), filter);
    },
  }),
  episodeStep: t.prismaField({
    type: 'Step',
    description:
      "One step in full (parameters, result, observation, world state), for a row the monitor expands. Its content counts against the request's MAX_RESPONSE_BYTES at its stored size before it is read.",
    errors: { types: [NotFoundError, ResponseBudgetError] },
    args: { episodeId: t.arg.id({ required: true }), stepNumber: t.arg.int({ required: true }) },
    resolve: async (query, _root, { episodeId, stepNumber }, ctx, info) => {
      const id = canonicalId(episodeId);
      const where = { episodeId: id, stepNumber, tenantId: tenantOf(ctx) };
      if (isUuid(id) && selectsOwnStepContent(info)) await chargeStepRows(ctx, { where }, () => `Step ${stepNumber} of episode ${id}`);
      const step = isUuid(id) ? await ctx.db.step.findFirst({ ...query, where }) : null;
      if (!step) throw new NotFoundError('Step', `${id}#${stepNumber}`);
      return step;
    },
  }),
  retrievalReceipts: t.field({
    type: [ReceiptRef],
    description: 'Retrieval receipts, newest first; pass the createdAt of the last one as before for the next page.',
    errors: { types: [InputLimitError] },
    ...listSize('first', DEFAULT_RECEIPTS_PAGE, MAX_RECEIPTS_PAGE),
    args: { first: t.arg.int({ defaultValue: DEFAULT_RECEIPTS_PAGE }), before: t.arg({ type: 'DateTime' }) },
    resolve: (_root, args, ctx) => {
      const first = args.first ?? DEFAULT_RECEIPTS_PAGE;
      if (first < 1 || first > MAX_RECEIPTS_PAGE) {
        throw new InputLimitError([
          { field: 'first', limit: `1..${MAX_RECEIPTS_PAGE}`, actual: String(first), message: `first must lie between 1 and ${MAX_RECEIPTS_PAGE}` },
        ]);
      }
      return listReceipts(ctx.services.db.pool, tenantOf(ctx), first, args.before ?? null);
    },
  }),
  retrievalReceipt: t.field({
    type: ReceiptRef,
    errors: { types: [NotFoundError] },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      const receipt = isUuid(String(id)) ? await findReceipt(ctx.services.db.pool, tenantOf(ctx), canonicalId(id)) : null;
      if (!receipt) throw new NotFoundError('Retrieval', String(id));
      return receipt;
    },
  }),
}));
