// A fresh, migrated database per test file on the run's PostgreSQL server.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createDatabase, type Database } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';

export function serverUrl(): string {
  return inject('databaseUrl');
}

export function urlForDatabase(name: string, base = serverUrl()): string {
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** An empty database (no migrations). */
export async function createEmptyDatabase(): Promise<TestDatabase> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  return {
    name,
    url: urlForDatabase(name),
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

export interface MigratedDatabase extends TestDatabase {
  db: Database;
}

export async function createMigratedDatabase(poolMax = 10): Promise<MigratedDatabase> {
  const empty = await createEmptyDatabase();
  const db = createDatabase(empty.url, poolMax);
  await migrate(db.pool);
  return {
    ...empty,
    db,
    async drop() {
      await db.close();
      await empty.drop();
    },
  };
}

/** Another connection pool on an existing database, as a second server process has; drop() only closes it. */
export function attachDatabase(existing: TestDatabase, poolMax = 10): MigratedDatabase {
  const db = createDatabase(existing.url, poolMax);
  return { name: existing.name, url: existing.url, db, drop: () => db.close() };
}
