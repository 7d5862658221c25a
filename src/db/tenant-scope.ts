// Tenant isolation in the data layer: every Prisma operation a request makes goes through a client
// that adds `tenantId = viewer's tenant` to the model's filter (and to what it creates), for every
// model that has a tenantId column, found from the datamodel so a new model cannot be forgotten.
import { GraphQLError } from 'graphql';
import type pg from 'pg';
import { must } from '../core/must.ts';
import { getDatamodel } from '../generated/pothos-types.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { byIdTables, type TableNames, withByIdReads } from './by-id-read.ts';

const TENANT_MODELS: ReadonlySet<string> = new Set(
  Object.entries(getDatamodel().datamodel.models)
    .filter(([, model]) => model.fields.some((f) => f.name === 'tenantId'))
    .map(([name]) => name),
);

const FILTERED = new Set([
  'findUnique',
  'findUniqueOrThrow',
  'findFirst',
  'findFirstOrThrow',
  'findMany',
  'count',
  'aggregate',
  'groupBy',
  'update',
  'updateMany',
  'updateManyAndReturn',
  'delete',
  'deleteMany',
  'upsert',
]);
const CREATING = new Set(['create', 'createMany', 'createManyAndReturn', 'upsert']);

export class TenantScopeError extends Error {
  override name = 'TenantScopeError';
}

function withTenant(data: unknown, tenantId: string): unknown {
  if (Array.isArray(data)) return data.map((d) => withTenant(d, tenantId));
  const row = data as Record<string, unknown>;
  if (row.tenantId !== undefined && row.tenantId !== tenantId) throw new TenantScopeError('refused to write a row of another tenant');
  return { ...row, tenantId };
}

export function isTenantModel(model: string): boolean {
  return TENANT_MODELS.has(model);
}

/** The parts of a Prisma operation's arguments the tenant scope reads and sets. */
interface ScopableArgs {
  where?: object;
  data?: unknown;
  create?: unknown;
}

/** The operation's arguments with the tenant added to its filter and to the rows it creates (same shape as given). */
function scopeArgs<A>(model: string, operation: string, args: A, tenantId: string): A {
  if (!TENANT_MODELS.has(model)) return args;
  const given = (args ?? {}) as ScopableArgs;
  const next: ScopableArgs = { ...given };
  if (FILTERED.has(operation)) next.where = { ...(given.where ?? {}), tenantId };
  if (CREATING.has(operation)) {
    if (operation === 'upsert') next.create = withTenant(given.create, tenantId);
    else next.data = withTenant(given.data, tenantId);
  }
  return next as A;
}

export type ScopedPrisma = PrismaClient;

type FindFirst = { findFirst(args: object): Promise<unknown> };

/**
 * A page cursor must name a row of the tenant. Prisma positions a page by reading the cursor row's
 * sort values without our tenant filter, so another tenant's id as `after` returned rows placed
 * around that tenant's row (an oracle); an id that is not the tenant's is refused instead.
 */
async function checkCursor(prisma: PrismaClient, model: string, cursor: object, tenantId: string): Promise<void> {
  const delegate = (prisma as unknown as Record<string, FindFirst>)[model.charAt(0).toLowerCase() + model.slice(1)];
  const row = await delegate?.findFirst({ where: { ...cursor, tenantId }, select: { tenantId: true } });
  if (!row) {
    throw new GraphQLError("The page cursor (after/before) does not point into this list: use a cursor from this list's pageInfo or edges.", {
      extensions: { code: 'BAD_USER_INPUT', field: 'after', http: { status: 400 } },
    });
  }
}

/** Prisma's own model and column names (the runtime data model every client carries). */
function tableNamesOf(prisma: PrismaClient): TableNames {
  return (prisma as unknown as { _runtimeDataModel: TableNames })._runtimeDataModel;
}

const tablesOfClient = new WeakMap<PrismaClient, ReturnType<typeof byIdTables>>();

/** The by-id tables of a client's models, built once per client. */
function tablesOf(prisma: PrismaClient): ReturnType<typeof byIdTables> {
  let tables = tablesOfClient.get(prisma);
  if (!tables) tablesOfClient.set(prisma, (tables = byIdTables(tableNamesOf(prisma))));
  return tables;
}

/**
 * A client whose every query on a tenant-owned model is confined to `tenantId`. With `pool`, a
 * findUnique by id of scalar fields is read with one prepared statement before it reaches Prisma
 * (by-id-read.ts), confined to the tenant in its SQL.
 */
export function tenantScoped(prisma: PrismaClient, tenantId: string, pool?: pg.Pool): ScopedPrisma {
  const scoped = prisma.$extends({
    query: {
      $allModels: {
        async $allOperations({ model, operation, args, query }) {
          const cursor = (args as { cursor?: object } | undefined)?.cursor;
          if (operation === 'findMany' && cursor && TENANT_MODELS.has(model)) await checkCursor(prisma, model, cursor, tenantId);
          return query(scopeArgs(model, operation, args, tenantId));
        },
      },
    },
  }) as unknown as PrismaClient;
  return pool ? withByIdReads(scoped, { pool, tables: tablesOf(prisma), tenantId }) : scoped;
}

/** Scoped clients are cheap to keep and costly to rebuild per request: keep the recent ones. */
export class ScopedClients {
  private readonly cache = new Map<string, ScopedPrisma>();
  constructor(
    private readonly prisma: PrismaClient,
    private readonly pool?: pg.Pool,
    private readonly max = 1_000,
  ) {}

  for(tenantId: string): ScopedPrisma {
    let client = this.cache.get(tenantId);
    if (client) {
      this.cache.delete(tenantId);
    } else {
      client = tenantScoped(this.prisma, tenantId, this.pool);
      if (this.cache.size >= this.max) this.cache.delete(must(this.cache.keys().next().value));
    }
    this.cache.set(tenantId, client);
    return client;
  }
}
