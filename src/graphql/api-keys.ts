import { createKey, revokeKey } from '../auth/key-admin.ts';
import { InputLimitError, NotFoundError } from '../core/errors.ts';
import { canonicalId } from '../core/ids.ts';
import { builder } from './builder.ts';

builder.prismaObject('Tenant', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.prismaObject('ApiKey', {
  description: 'An API key. The secret is shown once, when the key is created, and never again.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    prefix: t.exposeString('prefix'),
    scopes: t.exposeStringList('scopes'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true }),
  }),
});

const CreatedApiKey = builder.objectRef<{ token: string; id: string }>('CreatedApiKey').implement({
  fields: (t) => ({
    token: t.exposeString('token', { description: 'The full key. Store it now: it cannot be shown again.' }),
    key: t.prismaField({
      type: 'ApiKey',
      resolve: (query, parent, _args, ctx) => ctx.db.apiKey.findUniqueOrThrow({ ...query, where: { id: parent.id } }),
    }),
  }),
});

builder.queryFields((t) => ({
  viewer: t.withAuth({ read: true }).prismaField({
    type: 'Tenant',
    description: 'The tenant that owns the API key of this request.',
    resolve: (query, _root, _args, ctx) => ctx.db.tenant.findUniqueOrThrow({ ...query, where: { id: ctx.viewer.tenantId } }),
  }),
  viewerKey: t.withAuth({ read: true }).prismaField({
    type: 'ApiKey',
    description: 'The API key of this request: its scopes say which operations it may call (the MCP server lists tools by them).',
    resolve: (query, _root, _args, ctx) => ctx.db.apiKey.findUniqueOrThrow({ ...query, where: { id: ctx.viewer.keyId } }),
  }),
  apiKeys: t.withAuth({ admin: true }).prismaField({
    type: ['ApiKey'],
    resolve: (query, _root, _args, ctx) => ctx.db.apiKey.findMany({ ...query, where: { tenantId: ctx.viewer.tenantId }, orderBy: { createdAt: 'asc' } }),
  }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.withAuth({ admin: true }).field({
    type: CreatedApiKey,
    errors: { types: [InputLimitError] },
    args: {
      name: t.arg.string({ required: true }),
      scopes: t.arg.stringList({ required: true }),
      expiresAt: t.arg({ type: 'DateTime' }),
    },
    // The key and its api_key.created ledger event commit together (auth/key-admin.ts).
    resolve: (_root, args, ctx) => createKey(ctx.services.writer, ctx.viewer.tenantId, args, { keyId: ctx.viewer.keyId }),
  }),
  revokeApiKey: t.withAuth({ admin: true }).prismaField({
    type: 'ApiKey',
    errors: { types: [NotFoundError] },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, { id }, ctx) => {
      const revoked = await revokeKey(ctx.services.writer, ctx.viewer.tenantId, canonicalId(id), { keyId: ctx.viewer.keyId });
      if (!revoked) throw new NotFoundError('ApiKey', String(id));
      return ctx.db.apiKey.findUniqueOrThrow({ ...query, where: { id: revoked } });
    },
  }),
}));
