// A real server on a free port over a fresh database, with a tenant and keys of each scope. GraphQL
// calls (gql, and the clients of test/client/support.ts) go through the app's yoga in process by
// default (App.fetch: same auth, tenancy and error masking, no socket); a file whose subject is the
// transport (admission slots, status codes on the wire) asks for the socket with `overSocket`.
import { randomBytes } from 'node:crypto';
import { type Client, createClient } from 'graphql-ws';
import type { Logger } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import WebSocket from 'ws';
import { createApiKey, createTenant } from '../../src/auth/store.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { startServices } from '../../src/runtime.ts';
import { type App, createApp } from '../../src/server.ts';
import type { Services } from '../../src/services.ts';
import { stopServices } from '../../src/services.ts';
import { attachDatabase, createMigratedDatabase, type MigratedDatabase } from './db.ts';
import type { Json } from './json.ts';

export interface GraphQLResponse<T = Json> {
  data?: T;
  errors?: Array<{ message: string; extensions?: Record<string, unknown>; path?: string[] }>;
}

export interface TenantKeys {
  tenantId: string;
  admin: string;
  write: string;
  read: string;
}

/** How a GraphQL POST reaches the server: App.fetch in process, or fetch over the socket. */
export type GraphQLFetch = (url: string, init: RequestInit) => Promise<Response>;

export interface TestApp {
  app: App;
  url: string;
  /** What gql posts with (see the file's header); a client built for this app takes it as its fetch. */
  fetch: GraphQLFetch;
  services: Services;
  database: MigratedDatabase;
  keys: TenantKeys;
  addTenant(name: string): Promise<TenantKeys>;
  gql<T = Json>(query: string, variables?: Record<string, unknown>, token?: string | null): Promise<GraphQLResponse<T>>;
  wsClient(token?: string | null): Client;
  stop(): Promise<void>;
}

export interface TestAppOptions {
  /** Serve another app's database, as a second server process would: own pool and services, same data and keys. */
  shareDatabaseOf?: TestApp;
  /** The server's logger (default: one at LOG_LEVEL, silent in tests); a test passes one to read what was logged. */
  logger?: Logger;
  /** gql and the test clients post over the listening socket, as a remote client does (default: in process). */
  overSocket?: boolean;
}

export async function startTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const shared = options.shareDatabaseOf;
  const database = shared ? attachDatabase(shared.database) : await createMigratedDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    DATABASE_URL: database.url,
    LOG_LEVEL: 'silent',
    SHUTDOWN_TIMEOUT_MS: '2000',
    // In-process test servers stop after their clients are done: no request can be on its way.
    SHUTDOWN_DRAIN_MS: '0',
    JOB_POLL_SECONDS: '0.5',
    LEDGER_SIGNING_KEY: randomBytes(32).toString('hex'),
    ...env,
  });
  const services: Services = await startServices(config, database.db, options.logger ?? createLogger(config.logLevel));
  const app = createApp(services);
  await app.start();
  const url = app.url();
  const graphqlFetch: GraphQLFetch = options.overSocket ? (to, init) => fetch(to, init) : (to, init) => app.fetch(to, init);
  const wsClients: Client[] = [];

  async function addTenant(name: string): Promise<TenantKeys> {
    const tenant = await createTenant(database.db.prisma, name);
    const key = (scope: 'admin' | 'write' | 'read') =>
      createApiKey(database.db.prisma, { tenantId: tenant.id, name: scope, scopes: [scope] }).then((k) => k.token);
    return { tenantId: tenant.id, admin: await key('admin'), write: await key('write'), read: await key('read') };
  }
  const keys = shared?.keys ?? (await addTenant('tenant-a'));

  return {
    app,
    url,
    services,
    fetch: graphqlFetch,
    database,
    keys,
    addTenant,
    async gql(query, variables, token = keys.admin) {
      const res = await graphqlFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ query, variables }),
      });
      return (await res.json()) as GraphQLResponse;
    },
    wsClient(token = keys.admin) {
      const client = createClient({
        url: url.replace(/^http/, 'ws'),
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        lazy: false,
        connectionParams: token ? { authorization: `Bearer ${token}` } : {},
        onNonLazyError: () => undefined,
      });
      wsClients.push(client);
      return client;
    },
    async stop() {
      await Promise.all(wsClients.map((c) => c.dispose()));
      await app.stop();
      await stopServices(services);
      await database.drop();
    },
  };
}

/** Starts a server for the test file before its tests and stops it after them; `ready` receives it. */
export function useApp(ready: (app: TestApp) => unknown, env: Record<string, string> = {}, options: TestAppOptions = {}): void {
  let app: TestApp | undefined;
  beforeAll(async () => {
    app = await startTestApp(env, options);
    await ready(app);
  });
  afterAll(() => app?.stop());
}
