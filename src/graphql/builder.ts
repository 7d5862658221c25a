// The Pothos schema builder. Plugin order matters: scope auth runs outermost, and the errors plugin
// must come before the Prisma plugin (Pothos docs).
import SchemaBuilder from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { GraphQLError } from 'graphql';
import { AUTH_FAILURE_MESSAGES, grantsScope } from '../auth/keys.ts';
import type PrismaTypes from '../generated/pothos-types.ts';
import { getDatamodel } from '../generated/pothos-types.ts';
import type { AuthedContext, Context } from './context.ts';

export type Scalars = {
  DateTime: { Input: Date; Output: Date | string };
  JSON: { Input: unknown; Output: unknown };
  BigInt: { Input: bigint; Output: bigint | number | string };
};

function unauthorized(ctx: Context): GraphQLError {
  if (!ctx.viewer) {
    const failure = ctx.authFailure ?? 'missing';
    return new GraphQLError(AUTH_FAILURE_MESSAGES[failure], {
      extensions: { code: 'UNAUTHENTICATED', reason: failure.toUpperCase(), http: { status: 401 } },
    });
  }
  return new GraphQLError('This API key lacks the scope this operation needs.', {
    extensions: { code: 'FORBIDDEN', http: { status: 403 } },
  });
}

export const builder = new SchemaBuilder<{
  Context: Context;
  AuthContexts: { read: AuthedContext; write: AuthedContext; admin: AuthedContext };
  AuthScopes: { read: boolean; write: boolean; admin: boolean };
  PrismaTypes: PrismaTypes;
  Scalars: Scalars;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
}>({
  plugins: [ScopeAuthPlugin, ErrorsPlugin, PrismaPlugin, RelayPlugin],
  scopeAuth: {
    authorizeOnSubscribe: true,
    authScopes: (ctx) => ({
      read: !!ctx.viewer && grantsScope(ctx.viewer.scopes, 'read'),
      write: !!ctx.viewer && grantsScope(ctx.viewer.scopes, 'write'),
      admin: !!ctx.viewer && grantsScope(ctx.viewer.scopes, 'admin'),
    }),
    unauthorizedError: (_parent, ctx) => unauthorized(ctx),
  },
  errors: { defaultTypes: [], directResult: true },
  prisma: {
    // Every Prisma query of a request is confined to the viewer's tenant (src/db/tenant-scope.ts).
    client: (ctx) => ctx.db,
    dmmf: getDatamodel(),
    exposeDescriptions: true,
    filterConnectionTotalCount: true,
  },
  relay: {
    edgesFieldOptions: { nullable: false },
    nodeFieldOptions: { nullable: false },
    clientMutationId: 'omit',
    cursorType: 'String',
    nodeQueryOptions: false,
    nodesQueryOptions: false,
  },
});

export type Builder = typeof builder;
