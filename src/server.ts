// One node:http server: yoga for HTTP and SSE on /graphql, graphql-ws on the same path, and the
// health endpoints. createApp builds it; start/stop own the lifecycle.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GraphQLError } from 'graphql';
import { createYoga, maskError, type YogaInitialContext } from 'graphql-yoga';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { authenticate, type AuthResult } from './auth/store.ts';
import { tokenFromHeader } from './auth/keys.ts';
import { migrationsApplied } from './db/migrate.ts';
import { requestScope } from './log.ts';
import type { Context } from './schema/context.ts';
import { schema } from './schema/index.ts';
import type { Services } from './services.ts';
import { createStaticHandler } from './web/static.ts';

export const GRAPHQL_PATH = '/graphql';

type WsExtra = {
  auth?: AuthResult;
};

export interface App {
  start(): Promise<number>;
  stop(): Promise<void>;
  url(): string;
}

/** What onSubscribe adds to yoga's initial context for an operation over graphql-ws. */
type WsInitialContext = { wsAuth?: AuthResult; wsSocket?: WebSocket };

function contextFactory(services: Services) {
  return async (initial: YogaInitialContext & WsInitialContext): Promise<Context> => {
    const requestId = requestScope.getStore()?.requestId ?? randomUUID();
    const auth = initial.wsAuth ?? (await authenticate(services.db.pool, tokenFromHeader(initial.request.headers.get('authorization'))));
    return {
      requestId,
      log: services.log.child({ requestId }),
      viewer: 'viewer' in auth ? auth.viewer : null,
      authFailure: 'failure' in auth ? auth.failure : null,
      services,
      wsSocket: initial.wsSocket,
    };
  };
}

function createGraphQLHandler(services: Services) {
  const { config, log } = services;
  return createYoga<WsInitialContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    graphiql: config.graphiql ? { title: 'Episodic', subscriptionsProtocol: 'WS' } : false,
    landingPage: false,
    context: contextFactory(services),
    logging: {
      debug: (...args) => log.debug(args.map(String).join(' ')),
      info: (...args) => log.info(args.map(String).join(' ')),
      warn: (...args) => log.warn(args.map(String).join(' ')),
      error: (...args) => log.error(args.map(String).join(' ')),
    },
    maskedErrors: {
      isDev: false,
      maskError(error, message) {
        const requestId = requestScope.getStore()?.requestId;
        const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
        const masked = maskError(error, message, false);
        if (masked !== error) {
          log.error({ requestId, err: original }, 'unexpected error (masked for the client)');
          return new GraphQLError(message, { extensions: { code: 'INTERNAL_SERVER_ERROR', requestId } });
        }
        return masked;
      },
    },
  });
}

export function createApp(services: Services): App {
  const { config, log } = services;
  const yoga = createGraphQLHandler(services);
  const serveWeb = createStaticHandler();
  let ready = false;

  const httpServer = createServer((req, res) => {
    const requestId = (req.headers['x-request-id'] as string | undefined)?.slice(0, 100) || randomUUID();
    res.setHeader('x-request-id', requestId);
    requestScope.run({ requestId }, () => void route(req, res));
  });

  async function route(req: IncomingMessage, res: ServerResponse) {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') return sendJson(res, 200, { status: 'alive' });
    if (path === '/readyz') return sendReadiness(res);
    if (serveWeb(req, res)) return;
    return yoga(req, res);
  }

  async function sendReadiness(res: ServerResponse) {
    try {
      const migrated = await migrationsApplied(services.db.pool);
      if (!ready || !migrated) return sendJson(res, 503, { status: 'not ready', database: 'reachable', migrations: migrated ? 'applied' : 'pending' });
      // A reconnecting fan-out does not make the server unready: subscribers fall back to safety re-reads.
      const fanout = services.ledgerBus.healthy ? 'connected' : 'reconnecting';
      return sendJson(res, 200, { status: 'ready', database: 'reachable', migrations: 'applied', fanout });
    } catch (err) {
      return sendJson(res, 503, { status: 'not ready', database: 'unreachable', error: (err as Error).message });
    }
  }

  const wss = new WebSocketServer({ server: httpServer, path: GRAPHQL_PATH });
  const ws = useServer<Record<string, unknown>, WsExtra>(
    {
      execute: (args: any) => args.rootValue.execute(args),
      subscribe: (args: any) => args.rootValue.subscribe(args),
      onConnect: async (ctx) => {
        const params = ctx.connectionParams ?? {};
        const header = (params.authorization ?? params.Authorization ?? params.apiKey) as string | undefined;
        const auth = await authenticate(services.db.pool, tokenFromHeader(header));
        ctx.extra.auth = auth;
        // Refuse at once: a socket with a bad key never gets to subscribe (4403 Forbidden).
        return 'viewer' in auth;
      },
      onSubscribe: async (ctx, _id, params) => {
        // graphql-ws registers the operation before this hook, so the count includes it.
        const running = Object.keys(ctx.subscriptions).length;
        if (running > config.subscriptions.maxPerConnection) return [tooManyOperations(config.subscriptions.maxPerConnection)];
        const requestId = randomUUID();
        const { schema: s, execute, subscribe, contextFactory: makeContext, parse, validate } = yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params,
          wsAuth: ctx.extra.auth,
          wsSocket: ctx.extra.socket,
        } as any);
        const document = parse(params.query);
        const errors = validate(s, document);
        if (errors.length) return errors;
        const contextValue = await requestScope.run({ requestId }, () => makeContext());
        return {
          schema: s,
          operationName: params.operationName,
          document,
          variableValues: params.variables,
          contextValue,
          rootValue: {
            execute: (a: any) => requestScope.run({ requestId }, () => execute(a)),
            subscribe: (a: any) => requestScope.run({ requestId }, () => subscribe(a)),
          },
        };
      },
    },
    wss,
    12_000,
  );

  return {
    async start() {
      await new Promise<void>((resolve, reject) => {
        httpServer.once('error', reject);
        httpServer.listen(config.port, config.host, () => resolve());
      });
      ready = true;
      const { port } = httpServer.address() as AddressInfo;
      log.info({ port, host: config.host }, `Episodic serving GraphQL on http://${displayHost(config.host)}:${port}${GRAPHQL_PATH}`);
      return port;
    },
    url() {
      const { port } = httpServer.address() as AddressInfo;
      return `http://${displayHost(config.host)}:${port}${GRAPHQL_PATH}`;
    },
    /** Stops accepting, lets in-flight requests finish (up to the timeout), then closes sockets. */
    async stop() {
      ready = false;
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeIdleConnections();
      await ws.dispose();
      for (const client of wss.clients) client.terminate();
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, config.shutdownTimeoutMs).unref());
      await Promise.race([closed, timeout]);
      httpServer.closeAllConnections();
    },
  };
}

function tooManyOperations(max: number): GraphQLError {
  return new GraphQLError(
    `This connection already runs ${max} operations, the most one connection may (SUBSCRIPTIONS_PER_CONNECTION). Complete one, or open another connection.`,
    { extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', limit: max } },
  );
}

function displayHost(host: string): string {
  return host === '0.0.0.0' || host === '::' || host === '127.0.0.1' ? 'localhost' : host;
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
