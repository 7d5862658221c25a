// Applies prisma/migrations/*/migration.sql at start-up with Prisma's own bookkeeping table, so
// `prisma migrate deploy` (where its engine exists) and this runner are interchangeable. The
// schema engine cannot be downloaded here, hence our own runner (see DESIGN.md, "Prisma offline").
import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { Params } from './sql.ts';

export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'prisma', 'migrations');

/** Any fixed 64-bit number; every Episodic process takes this lock before migrating. */
const MIGRATION_LOCK_KEY = 72_707_369_001;

const CREATE_BOOKKEEPING = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

class MigrationError extends Error {
  override name = 'MigrationError';
}

/** Which migrations still need to run; refuses a database whose history disagrees with ours. */
function pendingMigrations(all: Migration[], applied: AppliedRow[]): Migration[] {
  const done = new Map(applied.filter((r) => r.rolled_back_at === null).map((r) => [r.migration_name, r]));
  for (const row of done.values()) {
    if (row.finished_at === null) {
      throw new MigrationError(`migration ${row.migration_name} started but never finished; fix the database and mark it rolled back`);
    }
    const local = all.find((m) => m.name === row.migration_name);
    if (local && local.checksum !== row.checksum) {
      throw new MigrationError(`migration ${row.migration_name} was changed after it was applied (checksum differs)`);
    }
  }
  return all.filter((m) => !done.has(m.name));
}

/** Applies pending migrations under an advisory lock; returns the names it applied. */
export async function migrate(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = await readMigrations(dir);
  const client = await pool.connect();
  try {
    const lock = new Params();
    await client.query(`SELECT pg_advisory_lock(${lock.add(MIGRATION_LOCK_KEY)})`, lock.values);
    await client.query(CREATE_BOOKKEEPING);
    const { rows } = await client.query<AppliedRow>('SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"');
    const pending = pendingMigrations(migrations, rows);
    for (const m of pending) await applyOne(client, m);
    return pending.map((m) => m.name);
  } finally {
    const unlock = new Params();
    await client.query(`SELECT pg_advisory_unlock(${unlock.add(MIGRATION_LOCK_KEY)})`, unlock.values).catch(() => undefined);
    client.release();
  }
}

async function applyOne(client: pg.PoolClient, m: Migration): Promise<void> {
  const id = randomUUID();
  await client.query('BEGIN');
  try {
    const started = new Params();
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count)
       VALUES (${started.add(id)}, ${started.add(m.checksum)}, ${started.add(m.name)}, now(), 0)`,
      started.values,
    );
    await client.query(m.sql);
    const finished = new Params();
    await client.query(
      `UPDATE "_prisma_migrations" SET finished_at = clock_timestamp(), applied_steps_count = 1 WHERE id = ${finished.add(id)}`,
      finished.values,
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw new MigrationError(`migration ${m.name} failed: ${(err as Error).message}`);
  }
}

/** True when every local migration is recorded as applied (readiness). */
export async function migrationsApplied(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<boolean> {
  const migrations = await readMigrations(dir);
  const { rows } = await pool.query<{ migration_name: string }>(
    'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
  );
  const applied = new Set(rows.map((r) => r.migration_name));
  return migrations.every((m) => applied.has(m.name));
}
