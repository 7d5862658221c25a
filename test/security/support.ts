// Helpers for the security tests: the operations the printed schema declares, tenant snapshots
// taken in SQL, raw HTTP calls (or in-process ones), and a bare graphql-ws socket whose close code can be watched.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildSchema, type GraphQLSchema } from 'graphql';
import type pg from 'pg';
import WebSocket from 'ws';
import type { TestApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';

export type Root = 'Query' | 'Mutation' | 'Subscription';

/** schema.graphql as committed (test/platform/schema-drift.test.ts keeps it equal to the code). */
export function printedSchema(): GraphQLSchema {
  return buildSchema(readFileSync(resolve(import.meta.dirname, '../../schema.graphql'), 'utf8'));
}

/** The field names of a root type of the printed schema, sorted. */
export function operationsOf(root: Root, schema = printedSchema()): string[] {
  const type = root === 'Query' ? schema.getQueryType() : root === 'Mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  return Object.keys(type?.getFields() ?? {}).sort();
}

/** Tables with a tenant_id column, found in the database so a new table is snapshotted too. */
export async function tenantTables(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ table_name: string }>(
    `SELECT c.table_name FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE c.table_schema = 'public' AND c.column_name = 'tenant_id' AND t.table_type = 'BASE TABLE' ORDER BY 1`,
  );
  return rows.map((r) => r.table_name);
}

export interface SnapshotOptions {
  /** Tables left out (e.g. ledger_checkpoints, which a background publisher appends to). */
  skipTables?: string[];
  /** Columns left out per table (e.g. api_keys.last_used_at, which authentication itself moves). */
  skipColumns?: Record<string, string[]>;
  /** Tables compared by row count only (append-only tables that grow large in the fuzz run). */
  countOnly?: string[];
}

export interface TableState {
  rows: number;
  /** md5 of every row as text, sorted: Json changed byte of any row changes it (null: counted only). */
  digest: string | null;
}

export type TenantSnapshot = Record<string, TableState>;

/** Takes snapshots of everything a tenant owns (every table with a tenant_id column) in one query. */
export class Snapshotter {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly sql: string,
  ) {}

  static async create(pool: pg.Pool, opts: SnapshotOptions = {}): Promise<Snapshotter> {
    const tables = (await tenantTables(pool)).filter((t) => !opts.skipTables?.includes(t));
    const parts: string[] = [];
    for (const table of tables) {
      const skip = opts.skipColumns?.[table];
      let columns = '*';
      if (skip?.length) {
        const { rows } = await pool.query<{ column_name: string }>(
          `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
          [table],
        );
        columns = rows
          .map((r) => r.column_name)
          .filter((c) => !skip.includes(c))
          .map((c) => `"${c}"`)
          .join(', ');
      }
      const digest = opts.countOnly?.includes(table) ? 'NULL::text' : `md5(string_agg(t::text, E'\\n' ORDER BY t::text))`;
      parts.push(`SELECT '${table}' AS table_name, count(*)::int AS n, ${digest} AS digest FROM (SELECT ${columns} FROM "${table}" WHERE tenant_id = $1) t`);
    }
    return new Snapshotter(pool, parts.join('\nUNION ALL\n'));
  }

  async take(tenantId: string): Promise<TenantSnapshot> {
    const { rows } = await this.pool.query<{ table_name: string; n: number; digest: string | null }>(this.sql, [tenantId]);
    return Object.fromEntries(rows.map((r) => [r.table_name, { rows: r.n, digest: r.digest }]));
  }
}

export interface HttpAnswer<T = Json> {
  status: number;
  body: T;
  requestId: string | null;
}

/** Where a call goes: a url is posted to over its socket; a test app by its own fetch (in process unless started overSocket). */
export type Target = string | Pick<TestApp, 'url' | 'fetch'>;

/** POSTs a raw body to /graphql; the answer's JSON (or null) with the status. */
export async function postRaw(to: Target, body: string, token: string | null, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  const [url, send] = typeof to === 'string' ? [to, fetch] : [to.url, to.fetch];
  const res = await send(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body,
  });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  return { status: res.status, body: parsed, requestId: res.headers.get('x-request-id') };
}

export function post(to: Target, query: string, variables: Record<string, unknown> = {}, token: string | null = null): Promise<HttpAnswer> {
  return postRaw(to, JSON.stringify({ query, variables }), token);
}

export interface RawSocket {
  socket: WebSocket;
  /** Resolves with the close code and reason once the server (or anyone) closes the socket. */
  closed: Promise<{ code: number; reason: string; at: number }>;
  /** Messages the server sent, parsed. */
  messages: Json[];
  send(message: unknown): void;
  close(): void;
}

/** A graphql-ws (graphql-transport-ws) socket that sends connection_init with the key and reports how it ends. */
export function rawSocket(httpUrl: string, token: string | null): RawSocket {
  const socket = new WebSocket(httpUrl.replace(/^http/, 'ws'), 'graphql-transport-ws');
  const messages: Json[] = [];
  const closed = new Promise<{ code: number; reason: string; at: number }>((resolve) => {
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString(), at: Date.now() }));
  });
  socket.on('error', () => undefined);
  socket.on('message', (data) => messages.push(JSON.parse(String(data))));
  socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: token ? { authorization: `Bearer ${token}` } : {} })));
  return {
    socket,
    closed,
    messages,
    send: (message) => socket.send(JSON.stringify(message)),
    close: () => socket.close(),
  };
}

export async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Resolves when the socket has been acknowledged (connection_ack). */
export function acked(s: RawSocket): Promise<unknown> {
  return waitFor(() => s.messages.find((m) => m.type === 'connection_ack'), 'connection_ack');
}
