// The by-id read (src/db/by-id-read.ts) answers exactly what Prisma answers, types included (Date,
// bigint, lists, JSON), for every model it takes, and stays inside the tenant: another tenant's id
// is not found, and a findUniqueOrThrow that finds nothing throws Prisma's own error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createTenant } from '../../src/auth/store.ts';
import { byIdStatement, byIdTables, type TableNames } from '../../src/db/by-id-read.ts';
import { type ScopedPrisma, tenantScoped } from '../../src/db/tenant-scope.ts';
import { getDatamodel } from '../../src/generated/pothos-types.ts';
import { createMigratedDatabase, type MigratedDatabase } from '../support/db.ts';

let database: MigratedDatabase;
let a: string;
let b: string;
/** Model name (as the client's property) to one row id of tenant a, every nullable scalar set. */
const rows: Record<string, string> = {};
let foreignEpisode: string;
let fast: ScopedPrisma;
let prisma: ScopedPrisma;

type Delegate = {
  findUnique(args: object): Promise<unknown>;
  findUniqueOrThrow(args: object): Promise<unknown>;
  findMany(args: object): Promise<Array<{ id: string }>>;
};
const delegate = (client: ScopedPrisma, model: string) => (client as unknown as Record<string, Delegate>)[model] as Delegate;

async function seed(tenantId: string): Promise<void> {
  const p = database.db.prisma;
  const at = new Date('2026-11-27T10:11:12.345Z');
  rows.apiKey = (await createApiKey(p, { tenantId, name: 'k', scopes: ['read', 'write'], expiresAt: at })).id;
  const workItem = await p.workItem.create({ data: { tenantId, title: 'w', description: 'd', maxEpisodes: 3, stopCondition: { n: 1 }, stoppedAt: at } });
  rows.workItem = workItem.id;
  const lease = await p.lease.create({
    data: { tenantId, workItemId: workItem.id, issuer: 'i', holder: 'h', scope: ['a', 'b'], expiresAt: at, maxTokens: 9_007_199_254_740_993n, revokedAt: at },
  });
  rows.lease = lease.id;
  const episode = await p.episode.create({
    data: {
      tenantId,
      workItemId: workItem.id,
      leaseId: lease.id,
      taskDescription: 'fix the flaky test',
      taskType: 'coding',
      tags: ['x', 'y'],
      goalSpec: { goal: 'green', nested: [1, 2.5, null, 'é'] },
      maxTokens: 123_456_789_012n,
      usedCost: 0.125,
      rewardScore: -0.5,
      historical: true,
      outcome: { kind: 'success', artifacts: ['a.py'] },
      startedAt: at,
      endedAt: new Date(at.getTime() + 1),
      deadlineAt: new Date('1969-12-31T23:59:59.999Z'),
    },
  });
  rows.episode = episode.id;
  rows.step = (
    await p.step.create({
      data: {
        tenantId,
        episodeId: episode.id,
        stepNumber: 1,
        kind: 'tool_call',
        tool: 'bash',
        parameters: { command: 'ls' },
        result: [1, 'two', { three: 3 }],
        latencyMs: 7,
        cost: 0.1,
        contentHash: 'h',
        sizeBytes: 10,
        startedAt: at,
      },
    })
  ).id;
  rows.pattern = (
    await p.pattern.create({
      data: {
        tenantId,
        key: 'k',
        kind: 'tool',
        signature: ['bash'],
        description: 'd',
        tags: ['t'],
        firstEpisodeId: episode.id,
        successRate: 0.75,
        supersededAt: at,
      },
    })
  ).id;
  rows.retrieval = (
    await p.retrieval.create({ data: { tenantId, kind: 'episodes', queryHash: 'q', resultsHash: 'r', episodeIds: [episode.id], queryWeights: [0.5, 1] } })
  ).id;
}

beforeAll(async () => {
  database = await createMigratedDatabase();
  a = (await createTenant(database.db.prisma, 'a')).id;
  b = (await createTenant(database.db.prisma, 'b')).id;
  rows.tenant = a;
  await seed(a);
  foreignEpisode = (await database.db.prisma.episode.create({ data: { tenantId: b, taskDescription: 'theirs', taskType: 't' } })).id;
  fast = tenantScoped(database.db.prisma, a, database.db.pool);
  prisma = tenantScoped(database.db.prisma, a);
});
afterAll(() => database.drop());

describe('by-id read', () => {
  const tables = () => byIdTables((database.db.prisma as unknown as { _runtimeDataModel: TableNames })._runtimeDataModel);

  it('takes every scalar of every tenant-owned model with an id (no column type left to Prisma)', () => {
    const models = Object.entries(getDatamodel().datamodel.models).filter(([, m]) => m.fields.some((f) => f.name === 'id'));
    for (const [model, { fields }] of models) {
      if (!fields.some((f) => f.name === 'tenantId') && model !== 'Tenant') continue;
      const statement = byIdStatement(tables(), model, { where: { id: a } });
      expect(statement, model).toBeDefined();
      expect(statement?.columns.map((c) => c.field).sort(), model).toEqual(
        fields
          .filter((f) => f.kind !== 'object')
          .map((f) => f.name)
          .sort(),
      );
    }
  });

  it('leaves other shapes to Prisma', () => {
    for (const args of [
      { where: { id: a, name: 'a' } },
      { where: { name: 'a' } },
      { where: { id: a }, include: { apiKeys: true } },
      { where: { id: a }, select: { id: true, apiKeys: true } },
      { where: { id: a }, select: { id: false } },
      { where: { id: a }, omit: { name: true } },
    ]) {
      expect(byIdStatement(tables(), 'Episode', args), JSON.stringify(args)).toBeUndefined();
    }
  });

  it('answers what Prisma answers, row and selected fields, with the same types', async () => {
    for (const [model, id] of Object.entries(rows)) {
      const expected = await delegate(prisma, model).findUnique({ where: { id } });
      expect(expected, model).not.toBeNull();
      expect(await delegate(fast, model).findUnique({ where: { id } }), model).toStrictEqual(expected);
      expect(await delegate(fast, model).findUniqueOrThrow({ where: { id } }), model).toStrictEqual(expected);
      const fields = Object.keys(expected as object).filter((_, i) => i % 2 === 1);
      const select = Object.fromEntries(fields.map((f) => [f, true]));
      expect(await delegate(fast, model).findUnique({ where: { id }, select }), `${model} ${fields}`).toStrictEqual(
        await delegate(prisma, model).findUnique({ where: { id }, select }),
      );
    }
  });

  it("does not find another tenant's row, and throws Prisma's error where Prisma throws", async () => {
    expect(await fast.episode.findUnique({ where: { id: foreignEpisode } })).toBeNull();
    expect(await fast.tenant.findUnique({ where: { id: b } })).toBeNull();
    const thrown = (p: Promise<unknown>) =>
      p.then(
        () => 'resolved',
        (e: { code?: string; name?: string }) => `${e.name} ${e.code}`,
      );
    const expected = await thrown(prisma.episode.findUniqueOrThrow({ where: { id: foreignEpisode } }));
    expect(expected).toBe('PrismaClientKnownRequestError P2025');
    expect(await thrown(fast.episode.findUniqueOrThrow({ where: { id: foreignEpisode } }))).toBe(expected);
    for (const id of ['not-a-uuid', a.toUpperCase()]) {
      expect(await thrown(fast.episode.findUnique({ where: { id } })), id).toBe(await thrown(prisma.episode.findUnique({ where: { id } })));
    }
  });

  it("answers a findMany by ids as Prisma does, with only the tenant's rows", async () => {
    const byId = (found: Array<{ id: string }>) => [...found].sort((x, y) => x.id.localeCompare(y.id));
    for (const [model, id] of Object.entries(rows).filter(([model]) => model !== 'tenant')) {
      const args = { where: { id: { in: [id, foreignEpisode, b] } } };
      const expected = byId(await delegate(prisma, model).findMany(args));
      expect(
        expected.map((r) => r.id),
        model,
      ).toEqual([id]);
      expect(byId(await delegate(fast, model).findMany(args)), model).toStrictEqual(expected);
    }
    const second = (await database.db.prisma.episode.create({ data: { tenantId: a, taskDescription: 'second', taskType: 't' } })).id;
    const both = { where: { id: { in: [rows.episode as string, second] } }, select: { id: true, taskDescription: true } };
    expect(byId(await fast.episode.findMany(both))).toStrictEqual(byId(await prisma.episode.findMany(both)));
    expect(await fast.episode.findMany({ where: { id: { in: [] } } })).toEqual([]);
    for (const args of [
      { where: { id: { in: [a], notIn: [b] } } },
      { where: { id: { in: [a] } }, orderBy: { id: 'asc' } },
      { where: { id: { in: [a, 1] } } },
    ]) {
      expect(byIdStatement(tables(), 'Episode', args), JSON.stringify(args)).toBeUndefined();
    }
  });

  it('reads a relation through Prisma as before', async () => {
    const args = { where: { id: rows.episode as string }, include: { workItem: true } };
    expect(await fast.episode.findUnique(args)).toStrictEqual(await prisma.episode.findUnique(args));
  });
});
