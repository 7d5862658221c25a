// One pg pool per process, shared by Prisma (through the driver adapter) and the raw-SQL hot paths.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.ts';
import { isUnavailable } from './errors.ts';

export type Db = PrismaClient;

/** How long a request may wait to check out a pooled connection, and a new connection to be opened. */
const CONNECT_TIMEOUT_MS = 5_000;

export interface Database {
  pool: pg.Pool;
  prisma: PrismaClient;
  /**
   * The database answered (a connection opened, or a query ended without a connection error) within
   * the connect timeout: while a connection that just timed out was being opened.
   */
  answeredRecently(): boolean;
  close(): Promise<void>;
}

export function createDatabase(url: string, poolMax: number, connectTimeoutMs = CONNECT_TIMEOUT_MS): Database {
  const pool = new pg.Pool({ connectionString: url, max: poolMax, connectionTimeoutMillis: connectTimeoutMs, idleTimeoutMillis: 30_000 });
  // When the database last answered: tells a connect timeout under load from one with the database away.
  let lastAnswer = Number.NEGATIVE_INFINITY;
  const answered = () => (lastAnswer = performance.now());
  pool.on('connect', answered);
  pool.on('release', (err: unknown) => (isUnavailable(err) ? undefined : answered()));
  // A dropped connection must not crash the process; the next query reconnects. The pool only
  // listens to its idle clients: a client checked out between two queries of a transaction
  // (PostgreSQL restarted mid-transaction) emits 'error' with no listener, which would kill the
  // process. Its next query fails instead, and the pool discards it on release.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  // `minimal` errors: the default captures a stack trace on every query to point at its call site
  // in a message, a cost on every read for a message the server masks anyway.
  const adapter = new PrismaPg(pool, { statementNameGenerator: preparedStatementNames() });
  const prisma = new PrismaClient({ adapter, errorFormat: 'minimal' });
  return {
    pool,
    prisma,
    answeredRecently: () => performance.now() - lastAnswer <= connectTimeoutMs,
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/** Distinct statements kept prepared on each connection; past it a new statement is sent unnamed (parsed each time, as pg does by default). */
const PREPARED_STATEMENTS_MAX = 2_000;

/**
 * Names Prisma's statements so each connection parses and plans one once and then only binds it:
 * without a name PostgreSQL parses and plans every query again, on the same cores as the server. A
 * name stands for one SQL text in this pool's process (pg refuses a name reused for another
 * text), and the set is bounded because Prisma inlines the length of a list into its
 * SQL (IN ($1, $2, ...)), so shapes can keep coming.
 */
function preparedStatementNames(): (query: { sql: string }) => string {
  const names = new Map<string, string>();
  return ({ sql }) => {
    let name = names.get(sql);
    if (name === undefined && names.size < PREPARED_STATEMENTS_MAX) names.set(sql, (name = `episodic_${names.size}`));
    return name ?? ''; // pg sends an empty name as the unnamed statement
  };
}

/** Turns a connection failure into one readable line (no stack trace). */
export function describeConnectionError(err: unknown, url: string): string {
  const e = err as { code?: string; message?: string };
  let where = url;
  try {
    const u = new URL(url);
    where = `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    // keep the raw string
  }
  const reason = e.code ? `${e.code}: ${e.message ?? ''}` : (e.message ?? String(err));
  return `cannot connect to PostgreSQL at ${where} (${reason.trim()})`;
}
