// A fresh, migrated database per test file on the run's PostgreSQL server: a copy of the template
// the run's global setup migrated once (CREATE DATABASE ... TEMPLATE), about a fifth of the time of
// applying every migration again.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createDatabase, type Database } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';

export function serverUrl(): string {
  return inject('databaseUrl');
}

/** A database on `base`'s server, migrated, that nothing stays connected to: the template of every test database. */
export async function createTemplateDatabase(base: string): Promise<TestDatabase> {
  const template = await createEmptyDatabase(base);
  const db = createDatabase(template.url, 2);
  try {
    await migrate(db.pool);
  } finally {
    await db.close();
  }
  // A copy needs its template without sessions; none may connect from here on.
  await admin((c) => c.query(`ALTER DATABASE ${template.name} WITH ALLOW_CONNECTIONS false`), base);
  return template;
}

export function urlForDatabase(name: string, base = serverUrl()): string {
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>, base = serverUrl()): Promise<T> {
  const client = new pg.Client({ connectionString: base });
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

/** An empty database (no migrations), or a copy of `template`. */
export async function createEmptyDatabase(base = serverUrl(), template?: string): Promise<TestDatabase> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`), base);
  return {
    name,
    url: urlForDatabase(name, base),
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`), base).then(() => undefined),
  };
}

export interface MigratedDatabase extends TestDatabase {
  db: Database;
}

export async function createMigratedDatabase(poolMax = 10): Promise<MigratedDatabase> {
  const empty = await createEmptyDatabase(serverUrl(), inject('templateDatabase'));
  const db = createDatabase(empty.url, poolMax);
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
