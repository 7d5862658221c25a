// The data-layer guard: a tenant-scoped Prisma client cannot read or write another tenant's rows,
// even when the query names no tenant at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant } from '../../src/auth/store.ts';
import { isTenantModel, type ScopedPrisma, TenantScopeError, tenantScoped } from '../../src/db/tenant-scope.ts';
import { createMigratedDatabase, type MigratedDatabase } from '../support/db.ts';

/** The create input as the scoped client declares it; the test passes rows it would refuse to type. */
type EpisodeCreateData = Parameters<ScopedPrisma['episode']['create']>[0]['data'];

let database: MigratedDatabase;
let a: string;
let b: string;

beforeAll(async () => {
  database = await createMigratedDatabase();
  a = (await createTenant(database.db.prisma, 'a')).id;
  b = (await createTenant(database.db.prisma, 'b')).id;
  await database.db.prisma.episode.createMany({
    data: [
      { tenantId: a, taskDescription: 'a1', taskType: 't' },
      { tenantId: a, taskDescription: 'a2', taskType: 't' },
      { tenantId: b, taskDescription: 'b1', taskType: 't' },
    ],
  });
});
afterAll(() => database.drop());

describe('tenant-scoped Prisma client', () => {
  it('covers every model with a tenant column', () => {
    for (const model of ['Episode', 'Step', 'Checkpoint', 'LedgerEvent', 'WorkItem', 'Lease', 'ApiKey', 'Pattern']) expect(isTenantModel(model)).toBe(true);
    expect(isTenantModel('Tenant')).toBe(false);
  });

  it('reads only its own rows when the query names no tenant', async () => {
    const scoped = tenantScoped(database.db.prisma, a);
    expect((await scoped.episode.findMany({ orderBy: { taskDescription: 'asc' } })).map((e) => e.taskDescription)).toEqual(['a1', 'a2']);
    expect(await scoped.episode.count()).toBe(2);
    const foreign = await database.db.prisma.episode.findFirstOrThrow({ where: { tenantId: b } });
    expect(await scoped.episode.findUnique({ where: { id: foreign.id } })).toBeNull();
  });

  it("cannot change or delete another tenant's rows, nor create rows for it", async () => {
    const scoped = tenantScoped(database.db.prisma, a);
    const foreign = await database.db.prisma.episode.findFirstOrThrow({ where: { tenantId: b } });
    expect((await scoped.episode.updateMany({ where: { id: foreign.id }, data: { taskType: 'stolen' } })).count).toBe(0);
    await expect(scoped.episode.update({ where: { id: foreign.id }, data: { taskType: 'stolen' } })).rejects.toThrow();
    expect((await scoped.episode.deleteMany({})).count).toBe(2);
    expect(await database.db.prisma.episode.count({ where: { tenantId: b } })).toBe(1);
    expect((await database.db.prisma.episode.findUniqueOrThrow({ where: { id: foreign.id } })).taskType).toBe('t');
    await expect(scoped.episode.create({ data: { tenantId: b, taskDescription: 'x', taskType: 't' } as unknown as EpisodeCreateData })).rejects.toBeInstanceOf(
      TenantScopeError,
    );
    const created = await scoped.episode.create({ data: { taskDescription: 'mine', taskType: 't' } as unknown as EpisodeCreateData });
    expect(created.tenantId).toBe(a);
  });
});
