// One pg pool per process, shared by Prisma (through the driver adapter) and the raw-SQL hot paths.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.ts';
import { isUnavailable } from './errors.ts';
import { shareConnectionsFairly } from './fair-pool.ts';
import { preparedStatementNames } from './statement-names.ts';

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
  shareConnectionsFairly(pool, poolMax, connectTimeoutMs);
  // Prisma's statements are named, so each connection plans one once (statement-names.ts).
  const statementName = preparedStatementNames('episodic_');
  // `minimal` errors: the default captures a stack trace on every query to point at its call site
  // in a message, a cost on every read for a message the server masks anyway.
  const adapter = new PrismaPg(pool, { statementNameGenerator: ({ sql }) => statementName(sql) });
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
