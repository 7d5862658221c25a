// Start-up migrations: Prisma-compatible bookkeeping, exactly once under concurrent starters,
// and refusal of a database whose applied history disagrees with the files.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { createDatabase } from '../../src/db/client.ts';
import { MIGRATIONS_DIR, migrate, migrationsApplied, readMigrations } from '../../src/db/migrate.ts';
import { createEmptyDatabase, type TestDatabase } from '../support/db.ts';

let database: TestDatabase | undefined;
afterEach(async () => {
  await database?.drop();
  database = undefined;
});

describe('migration runner', () => {
  it('records each migration in _prisma_migrations with the sha256 checksum Prisma uses', async () => {
    database = await createEmptyDatabase();
    const db = createDatabase(database.url, 2);
    try {
      const applied = await migrate(db.pool);
      const files = await readMigrations();
      expect(applied).toEqual(files.map((f) => f.name));
      const { rows } = await db.pool.query(
        'SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name',
      );
      for (const [i, f] of files.entries()) {
        const sql = await readFile(join(MIGRATIONS_DIR, f.name, 'migration.sql'));
        expect(rows[i].migration_name).toBe(f.name);
        expect(rows[i].checksum).toBe(createHash('sha256').update(sql).digest('hex'));
        expect(rows[i].finished_at).toBeInstanceOf(Date);
        expect(rows[i].applied_steps_count).toBe(1);
      }
      expect(await migrate(db.pool)).toEqual([]);
      expect(await migrationsApplied(db.pool)).toBe(true);
    } finally {
      await db.close();
    }
  });

  it('applies each migration exactly once when several processes start at once', async () => {
    database = await createEmptyDatabase();
    const pools = Array.from({ length: 5 }, () => createDatabase(must(database).url, 2));
    try {
      const results = await Promise.all(pools.map((d) => migrate(d.pool)));
      const files = await readMigrations();
      expect(results.flat().sort()).toEqual(files.map((f) => f.name).sort());
      const { rows } = await must(pools[0]).pool.query('SELECT migration_name, count(*)::int AS n FROM "_prisma_migrations" GROUP BY 1');
      expect(rows.every((r) => r.n === 1)).toBe(true);
      expect(rows).toHaveLength(files.length);
    } finally {
      await Promise.all(pools.map((d) => d.close()));
    }
  });

  it('refuses a database where an applied migration was changed afterwards', async () => {
    database = await createEmptyDatabase();
    const db = createDatabase(database.url, 2);
    try {
      await migrate(db.pool);
      await db.pool.query(
        `UPDATE "_prisma_migrations" SET checksum = repeat('0', 64) WHERE migration_name = (SELECT min(migration_name) FROM "_prisma_migrations")`,
      );
      await expect(migrate(db.pool)).rejects.toThrow(/changed after it was applied/);
    } finally {
      await db.close();
    }
  });
});
