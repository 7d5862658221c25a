// Work items and leases: the GraphQL types, queries and mutations.
import { pastExpiryViolations } from '../auth/keys.ts';
import { InputLimitError, LeaseError, NotFoundError, throwIfViolations } from '../core/errors.ts';
import { canonicalId, isUuid } from '../core/ids.ts';
import { must } from '../core/must.ts';
import type { LeaseStanding } from '../leases/accounting.ts';
import { validateLeaseInput, validateResumeWorkItem, validateWorkItem } from '../leases/limits.ts';
import { resumeWorkItem } from '../leases/loop.ts';
import { createWorkItem, issueLease, revokeLease } from '../leases/store.ts';
import { readLeaseStanding } from '../leases/tree.ts';
import type { StopReason } from '../stops/stop-reason.ts';
import { builder } from './builder.ts';
import { type Context, viewerOf } from './context.ts';
import { LeaseBudgetRef } from './lease-types.ts';
import { connectionSize } from './page-size.ts';
import { StopReasonRef } from './stop-reasons.ts';

const num = (v: bigint | number | null) => (v === null ? null : Number(v));

builder.prismaObject('WorkItem', {
  fields: (t) => ({
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    description: t.exposeString('description', { nullable: true }),
    lastEpisodeNumber: t.exposeInt('lastEpisodeNumber', { description: 'Highest episode number issued; the next is higher.' }),
    maxEpisodes: t.exposeInt('maxEpisodes', { nullable: true, description: 'How many episodes the loop may run in all; null is unlimited.' }),
    stopCondition: t.field({
      type: StopReasonRef,
      nullable: true,
      description: 'Why the loop of episodes stopped, decided by the server when an episode ended; null while it may go on. No episode starts while set.',
      select: { stopCondition: true },
      resolve: (w) => w.stopCondition as StopReason | null,
    }),
    stoppedAt: t.expose('stoppedAt', { type: 'DateTime', nullable: true }),
    metadata: t.expose('metadata', { type: 'JSON' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    leases: t.relation('leases', { query: { orderBy: { createdAt: 'asc' } } }),
    episodes: t.relatedConnection('episodes', { cursor: 'id', ...connectionSize(20, 100), query: { orderBy: [{ episodeNumber: 'asc' }] } }),
  }),
});

// reserved and remaining of one resolved lease come from one tree query. Keyed by the lease row
// object, not the request: a document with several mutations must not see a standing from before
// a later one.
const standings = new WeakMap<object, Promise<LeaseStanding | null>>();

function standing(ctx: Context, lease: { id: string }): Promise<LeaseStanding | null> {
  let read = standings.get(lease);
  if (!read) {
    read = readLeaseStanding(ctx.services.db.pool, viewerOf(ctx).tenantId, lease.id, new Date());
    standings.set(lease, read);
  }
  return read;
}

builder.prismaObject('Lease', {
  fields: (t) => ({
    id: t.exposeID('id'),
    issuer: t.exposeString('issuer'),
    holder: t.exposeString('holder'),
    scope: t.exposeStringList('scope'),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    budget: t.field({
      type: LeaseBudgetRef,
      description: 'Granted amounts; null is unlimited.',
      select: { maxEpisodes: true, maxToolCalls: true, maxTokens: true, maxWallMs: true },
      resolve: (l) => ({ episodes: l.maxEpisodes, toolCalls: l.maxToolCalls, tokens: num(l.maxTokens), wallMs: num(l.maxWallMs) }),
    }),
    consumed: t.field({
      type: LeaseBudgetRef,
      description: 'What ended episodes used, under this lease and under every lease derived from it.',
      select: { usedEpisodes: true, usedToolCalls: true, usedTokens: true, usedWallMs: true },
      resolve: (l) => ({ episodes: l.usedEpisodes, toolCalls: l.usedToolCalls, tokens: Number(l.usedTokens), wallMs: Number(l.usedWallMs) }),
    }),
    reserved: t.field({
      type: LeaseBudgetRef,
      description: 'Held but not spent yet: the holds of running and blocked episodes, and what each usable child lease may still spend. Null where unlimited.',
      resolve: async (l, _a, ctx) => must(await standing(ctx, l)).reserved,
    }),
    remaining: t.field({
      type: LeaseBudgetRef,
      description: 'budget - consumed - reserved, at least 0: what a new episode or child lease can take. Null where unlimited.',
      resolve: async (l, _a, ctx) => must(await standing(ctx, l)).remaining,
    }),
    workItem: t.relation('workItem'),
    parent: t.relation('parent', { nullable: true }),
    children: t.relation('children'),
  }),
});

const LeaseBudgetInput = builder.inputType('LeaseBudgetInput', {
  description: 'Omitted fields are unlimited (a child lease must set every field its parent limits).',
  fields: (t) => ({ episodes: t.int(), toolCalls: t.int(), tokens: t.int(), wallMs: t.int() }),
});

const WorkItemPayload = builder.objectRef<{ id: string }>('WorkItemPayload').implement({
  fields: (t) => ({
    workItem: t.prismaField({ type: 'WorkItem', resolve: (q, p, _a, ctx) => ctx.db.workItem.findUniqueOrThrow({ ...q, where: { id: p.id } }) }),
  }),
});

const LeasePayload = builder.objectRef<{ id: string }>('LeasePayload').implement({
  fields: (t) => ({
    lease: t.prismaField({ type: 'Lease', resolve: (q, p, _a, ctx) => ctx.db.lease.findUniqueOrThrow({ ...q, where: { id: p.id } }) }),
  }),
});

builder.queryFields((t) => ({
  workItem: t.withAuth({ read: true }).prismaField({
    type: 'WorkItem',
    errors: { types: [NotFoundError] },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, { id }, ctx) => {
      const item = isUuid(id) ? await ctx.db.workItem.findFirst({ ...query, where: { id, tenantId: ctx.viewer.tenantId } }) : null;
      if (!item) throw new NotFoundError('WorkItem', String(id));
      return item;
    },
  }),
  lease: t.withAuth({ read: true }).prismaField({
    type: 'Lease',
    errors: { types: [NotFoundError] },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, { id }, ctx) => {
      const lease = isUuid(id) ? await ctx.db.lease.findFirst({ ...query, where: { id, tenantId: ctx.viewer.tenantId } }) : null;
      if (!lease) throw new NotFoundError('Lease', String(id));
      return lease;
    },
  }),
}));

builder.mutationFields((t) => ({
  createWorkItem: t.withAuth({ write: true }).field({
    type: WorkItemPayload,
    errors: { types: [InputLimitError] },
    args: {
      title: t.arg.string({ required: true }),
      description: t.arg.string(),
      metadata: t.arg({ type: 'JSON' }),
      maxEpisodes: t.arg.int({ description: 'How many episodes the loop may run in all; omitted is unlimited.' }),
    },
    resolve: async (_root, args, ctx) => {
      throwIfViolations(validateWorkItem(args));
      const input = { title: args.title, description: args.description ?? null, metadata: args.metadata ?? {}, maxEpisodes: args.maxEpisodes ?? null };
      const id = await ctx.services.writer.run(ctx.viewer.tenantId, (w) => createWorkItem(w.client, w.tenantId, input, w.now, w.events));
      return { id };
    },
  }),
  resumeWorkItem: t.withAuth({ write: true }).field({
    type: WorkItemPayload,
    description: 'Lets a stopped loop of episodes go on (an operator decision, in the ledger), optionally with a higher maxEpisodes.',
    errors: { types: [InputLimitError, NotFoundError] },
    args: { id: t.arg.id({ required: true }), maxEpisodes: t.arg.int() },
    resolve: async (_root, args, ctx) => {
      throwIfViolations(validateResumeWorkItem(args.maxEpisodes));
      const id = canonicalId(args.id);
      await ctx.services.writer.run(ctx.viewer.tenantId, (w) => resumeWorkItem(w.client, w.tenantId, id, args.maxEpisodes ?? null, w.now, w.events));
      return { id };
    },
  }),
  issueLease: t.withAuth({ write: true }).field({
    type: LeasePayload,
    description: 'Issues a lease on a work item; with parentLeaseId, a child lease that may only narrow its parent.',
    errors: { types: [InputLimitError, NotFoundError, LeaseError] },
    args: {
      workItemId: t.arg.id({ required: true }),
      parentLeaseId: t.arg.id(),
      issuer: t.arg.string({ required: true }),
      holder: t.arg.string({ required: true }),
      scope: t.arg.stringList({ defaultValue: ['*'] }),
      expiresAt: t.arg({ type: 'DateTime', required: true }),
      budget: t.arg({ type: LeaseBudgetInput }),
    },
    resolve: async (_root, args, ctx) => {
      const scope = args.scope ?? ['*'];
      const b = args.budget ?? {};
      throwIfViolations(validateLeaseInput({ issuer: args.issuer, holder: args.holder, scope, budget: b }));
      const past = pastExpiryViolations('expiresAt', args.expiresAt, new Date());
      if (past.length) throw new InputLimitError(past);
      const budget = { episodes: b.episodes ?? null, toolCalls: b.toolCalls ?? null, tokens: b.tokens ?? null, wallMs: b.wallMs ?? null };
      const id = await ctx.services.writer.run(ctx.viewer.tenantId, (w) =>
        issueLease(
          w.client,
          w.tenantId,
          {
            workItemId: canonicalId(args.workItemId),
            parentLeaseId: args.parentLeaseId == null ? null : canonicalId(args.parentLeaseId),
            issuer: args.issuer,
            holder: args.holder,
            scope,
            expiresAt: args.expiresAt,
            budget,
          },
          w.now,
          w.events,
        ),
      );
      return { id };
    },
  }),
  revokeLease: t.withAuth({ write: true }).field({
    type: LeasePayload,
    description: 'Revokes a lease and every lease derived from it.',
    errors: { types: [NotFoundError] },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const id = canonicalId(args.id);
      await ctx.services.writer.run(ctx.viewer.tenantId, (w) => revokeLease(w.client, w.tenantId, id, w.now, w.events));
      return { id };
    },
  }),
}));
