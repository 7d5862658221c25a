// Work items and leases (seed 000).
import { builder } from '../builder.ts';
import { InputLimitError, LeaseError, NotFoundError, throwIfViolations } from '../schema/errors.ts';
import { isUuid } from '../schema/ids.ts';
import { createWorkItem, issueLease, revokeLease } from './store.ts';
import { validateGoalSpec, type JsonValue } from '../episodes/limits.ts';

const num = (v: bigint | number | null) => (v === null ? null : Number(v));

builder.prismaObject('WorkItem', {
  fields: (t) => ({
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    description: t.exposeString('description', { nullable: true }),
    lastEpisodeNumber: t.exposeInt('lastEpisodeNumber', { description: 'Highest episode number issued; the next is higher.' }),
    metadata: t.expose('metadata', { type: 'JSON' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    leases: t.relation('leases', { query: { orderBy: { createdAt: 'asc' } } }),
    episodes: t.relatedConnection('episodes', { cursor: 'id', query: { orderBy: [{ episodeNumber: 'asc' }] } }),
  }),
});

const LeaseBudgetRef = builder.objectRef<{ episodes: number | null; toolCalls: number | null; tokens: number | null; wallMs: number | null }>('LeaseBudget').implement({
  fields: (t) => ({
    episodes: t.exposeFloat('episodes', { nullable: true }),
    toolCalls: t.exposeFloat('toolCalls', { nullable: true }),
    tokens: t.exposeFloat('tokens', { nullable: true }),
    wallMs: t.exposeFloat('wallMs', { nullable: true }),
  }),
});

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
      select: { usedEpisodes: true, usedToolCalls: true, usedTokens: true, usedWallMs: true },
      resolve: (l) => ({ episodes: l.usedEpisodes, toolCalls: l.usedToolCalls, tokens: Number(l.usedTokens), wallMs: Number(l.usedWallMs) }),
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

function checkText(field: string, value: string | null | undefined, maxChars: number, required = false) {
  if (value == null) return;
  if ((required && !value.trim()) || value.length > maxChars || value.includes('\u0000')) {
    throw new InputLimitError([{ field, limit: `1..${maxChars} characters, no NUL`, actual: String(value.length), message: `${field} must have 1 to ${maxChars} characters and no NUL bytes` }]);
  }
}

function checkBudget(b: Record<string, number | null | undefined>) {
  for (const [k, v] of Object.entries(b)) {
    if (v != null && v < 0) throw new InputLimitError([{ field: `budget.${k}`, limit: '>= 0', actual: String(v), message: `budget.${k} must not be negative` }]);
  }
}

builder.queryFields((t) => ({
  workItem: t.prismaField({
    type: 'WorkItem',
    errors: { types: [NotFoundError] },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, { id }, ctx) => {
      const item = isUuid(id) ? await ctx.db.workItem.findFirst({ ...query, where: { id, tenantId: ctx.viewer!.tenantId } }) : null;
      if (!item) throw new NotFoundError('WorkItem', String(id));
      return item;
    },
  }),
  lease: t.prismaField({
    type: 'Lease',
    errors: { types: [NotFoundError] },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, { id }, ctx) => {
      const lease = isUuid(id) ? await ctx.db.lease.findFirst({ ...query, where: { id, tenantId: ctx.viewer!.tenantId } }) : null;
      if (!lease) throw new NotFoundError('Lease', String(id));
      return lease;
    },
  }),
}));

builder.mutationFields((t) => ({
  createWorkItem: t.field({
    type: WorkItemPayload,
    errors: { types: [InputLimitError] },
    args: { title: t.arg.string({ required: true }), description: t.arg.string(), metadata: t.arg({ type: 'JSON' }) },
    resolve: async (_root, args, ctx) => {
      checkText('title', args.title, 500, true);
      checkText('description', args.description, 10_000);
      throwIfViolations(args.metadata == null ? [] : validateGoalSpec(args.metadata as JsonValue, 'metadata'));
      const id = await ctx.services.writer.run(ctx.viewer!.tenantId, (w) =>
        createWorkItem(w.client, w.tenantId, { title: args.title, description: args.description ?? null, metadata: args.metadata ?? {} }, w.now, w.events),
      );
      return { id };
    },
  }),
  issueLease: t.field({
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
      checkText('issuer', args.issuer, 200, true);
      checkText('holder', args.holder, 200, true);
      const scope = args.scope ?? ['*'];
      if (scope.length > 100) throw new InputLimitError([{ field: 'scope', limit: '100 entries', actual: String(scope.length), message: 'at most 100 scope entries' }]);
      scope.forEach((s, i) => checkText(`scope.${i}`, s, 200, true));
      const b = args.budget ?? {};
      checkBudget(b);
      const budget = { episodes: b.episodes ?? null, toolCalls: b.toolCalls ?? null, tokens: b.tokens ?? null, wallMs: b.wallMs ?? null };
      const id = await ctx.services.writer.run(ctx.viewer!.tenantId, (w) =>
        issueLease(w.client, w.tenantId, { workItemId: String(args.workItemId), parentLeaseId: args.parentLeaseId == null ? null : String(args.parentLeaseId), issuer: args.issuer, holder: args.holder, scope, expiresAt: args.expiresAt, budget }, w.now, w.events),
      );
      return { id };
    },
  }),
  revokeLease: t.field({
    type: LeasePayload,
    description: 'Revokes a lease and every lease derived from it.',
    errors: { types: [NotFoundError] },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      await ctx.services.writer.run(ctx.viewer!.tenantId, (w) => revokeLease(w.client, w.tenantId, String(id), w.now, w.events));
      return { id: String(id) };
    },
  }),
}));
