// One node:http server: yoga for HTTP and SSE on /graphql, graphql-ws on the same path, and the
// health endpoints. createApp builds it; start/stop own the lifecycle.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { PothosValidationError } from '@pothos/core';
import { type ExecutionArgs, GraphQLError } from 'graphql';
import type { ServerOptions } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { createYoga, maskError, type YogaInitialContext } from 'graphql-yoga';
import { type WebSocket, WebSocketServer } from 'ws';
import { tokenFromHeader } from './auth/keys.ts';
import { RateLimiter } from './auth/rate-limit.ts';
import { KEY_REVOKED_CLOSE_CODE, KeyWatch } from './auth/socket-keys.ts';
import type { AuthResult } from './auth/store.ts';
import { databaseTrouble } from './db/errors.ts';
import { migrationsApplied } from './db/migrate.ts';
import { ScopedClients } from './db/tenant-scope.ts';
import { Admission, overloadedError, useAdmission } from './http/admission.ts';
import { BLOBS_PATH, serveBlob } from './http/blob-download.ts';
import { useDocumentAuthorization } from './http/document-auth.ts';
import { useExpensiveFieldLimits } from './http/expensive.ts';
import { graphiqlOptions, renderGraphiQL } from './http/graphiql.ts';
import { enforceRateLimit, hardeningPlugins, withoutSuggestions, withRequestErrorCode } from './http/hardening.ts';
import { useCompiledStepJournal } from './http/jit.ts';
import { createMetrics, METRICS_PATH, metricsAllowed } from './http/metrics.ts';
import { nodeLimitError } from './http/node-limit.ts';
import { requestIdFrom } from './http/request-id.ts';
import { useResponseBudget } from './http/response-budget.ts';
import { useStreamGuard } from './http/streams.ts';
import { yogaLogging } from './http/yoga-log.ts';
import { inexactNumberMessage } from './ledger/json-numbers.ts';
import { requestScope } from './log.ts';
import { createMcpHandler, MCP_PATH } from './mcp/http.ts';
import { createOtlpHandler, OTLP_TRACES_PATH } from './otlp/http.ts';
import type { Context, Services } from './schema/context.ts';
import { schema } from './schema/index.ts';
import { ResponseBudget } from './steps/read-budget.ts';
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
type WsInitialContext = { wsAuth?: AuthResult; wsSocket?: WebSocket; res?: ServerResponse };

/** No tenant has this id: a request without a viewer sees nothing even if a resolver forgot its scope. */
const NO_TENANT = '00000000-0000-0000-0000-000000000000';

function contextFactory(services: Services, limiter: RateLimiter | null, admission: Admission) {
  const scoped = new ScopedClients(services.db.prisma);
  return async (initial: YogaInitialContext & WsInitialContext): Promise<Context> => {
    const requestId = requestScope.getStore()?.requestId ?? randomUUID();
    const auth = initial.wsAuth ?? (await services.keys.authenticate(tokenFromHeader(initial.request.headers.get('authorization'))));
    if ('viewer' in auth) {
      await enforceRateLimit(limiter, auth.viewer.keyId);
      admission.admitKey(auth.viewer.keyId, initial.res);
    }
    return {
      requestId,
      log: services.log.child({ requestId }),
      viewer: 'viewer' in auth ? auth.viewer : null,
      authFailure: 'failure' in auth ? auth.failure : null,
      services,
      db: scoped.for('viewer' in auth ? auth.viewer.tenantId : NO_TENANT),
      budget: new ResponseBudget(services.config.maxResponseBytes),
      wsSocket: initial.wsSocket,
    };
  };
}

interface HandlerParts {
  admission: Admission;
  limiter: RateLimiter | null;
  keyWatch: KeyWatch;
  metricsPlugin: ReturnType<typeof createMetrics>['plugin'];
}

function createGraphQLHandler(services: Services, { admission, limiter, keyWatch, metricsPlugin }: HandlerParts) {
  const { config, log } = services;
  return createYoga<WsInitialContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    // The limit is useBodyLimit's (in hardeningPlugins): yoga's counts every body as a stream.
    maxRequestBodySize: false,
    plugins: [
      useAdmission(admission, config.admission.maxConcurrentRequests),
      ...hardeningPlugins(config),
      useDocumentAuthorization(),
      useExpensiveFieldLimits(config.admission.verifyLedgerConcurrency, config.admission.verifyLedgerTotalConcurrency),
      useResponseBudget(services.db.pool, config.maxResponseBytes),
      useStreamGuard(keyWatch, config.admission.maxStreamsPerKey),
      metricsPlugin,
      useCompiledStepJournal(),
    ],
    // No origin is allowed unless listed (CORS_ORIGINS); yoga's default reflects any origin.
    cors: config.corsOrigins.length ? { origin: config.corsOrigins, credentials: false } : false,
    graphiql: config.graphiql ? graphiqlOptions() : false,
    renderGraphiQL,
    landingPage: false,
    context: contextFactory(services, limiter, admission),
    logging: yogaLogging(log),
    maskedErrors: {
      isDev: false,
      maskError(error, message) {
        const requestId = requestScope.getStore()?.requestId;
        const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
        // extensions may be absent: graphql-jit (the step journal's executor) builds its GraphQLErrors without them.
        if (error instanceof GraphQLError && error.extensions?.reason === 'JSON_NUMBER_OUT_OF_RANGE') {
          // Restated: graphql-js echoes the value as parsed from the body, already rounded
          // (9007199254740993 as ...992), and the compiled executor replaces the reason by "Expected type JSON.".
          return new GraphQLError(inexactNumberMessage(String(error.extensions.path)), { nodes: error.nodes, path: error.path, extensions: error.extensions });
        }
        // Saturation and outages are not bugs: say so, with a status and a hint a client can act on.
        const trouble = databaseTrouble(original, services.db.answeredRecently());
        if (trouble === 'saturated') {
          log.warn({ requestId, err: original }, 'no database connection free or opened in time: request shed');
          return poolSaturatedError(requestId, services.config.dbPoolMax);
        }
        if (trouble === 'unavailable') {
          log.warn({ requestId, err: original }, 'database unavailable');
          return databaseUnavailableError(requestId);
        }
        // Pothos refuses a malformed page cursor before the resolver runs: bad input, not a bug.
        if (original instanceof PothosValidationError) {
          return new GraphQLError(original.message, {
            nodes: (error as GraphQLError).nodes,
            path: (error as GraphQLError).path,
            extensions: { code: 'BAD_USER_INPUT', requestId, http: { status: 400 } },
          });
        }
        // Refusals before any resolver ran (bad variables, query limits) get the code they lack.
        const coded = withRequestErrorCode(error, 'BAD_REQUEST');
        const shown = coded !== error ? (coded as GraphQLError) : maskError(error, message, false);
        if (shown !== error && coded === error) {
          log.error({ requestId, err: original }, 'unexpected error (masked for the client)');
          return new GraphQLError(message, { extensions: { code: 'INTERNAL_SERVER_ERROR', requestId } });
        }
        return config.isProduction && shown instanceof GraphQLError ? withoutSuggestions(shown) : shown;
      },
    },
  });
}

/** One operation's enveloped execute and subscribe, handed to graphql-ws through its rootValue (yoga's graphql-ws recipe). */
interface EnvelopedRoot {
  execute: NonNullable<ServerOptions['execute']>;
  subscribe: NonNullable<ServerOptions['subscribe']>;
}

export function createApp(services: Services): App {
  const { config, log } = services;
  // Declared before yoga so the sockets gauge can read it; assigned once the HTTP server exists.
  let wss: WebSocketServer | undefined;
  const metrics = createMetrics(services, () => wss?.clients.size ?? 0);
  const admission = new Admission(config.admission);
  // One watch for every stream (WebSockets and SSE subscriptions): one rule for a revoked or expired key.
  const keyWatch = new KeyWatch(services.db.pool, config.keyRecheckMs);
  const limiter = config.rateLimitPerMinute > 0 ? new RateLimiter(services.db.pool, config.rateLimitPerMinute) : null;
  const yoga = createGraphQLHandler(services, { admission, limiter, keyWatch, metricsPlugin: metrics.plugin });
  const serveWeb = createStaticHandler();
  const otlpTraces = createOtlpHandler(services, admission);
  const serveMcp = createMcpHandler(services, { url: `http://localhost${GRAPHQL_PATH}`, fetch: async (url, init) => yoga.fetch(url, init) });
  let ready = false;
  let stopping = false;
  /** Responses not finished yet: at shutdown each one tells its client to close the connection. */
  const unfinished = new Set<ServerResponse>();

  // A client must send its headers, and then its whole request, in bounded time (else 408): a
  // half-sent request cannot hold its connection open for long.
  const httpServer = createServer(
    {
      headersTimeout: config.admission.headersTimeoutMs,
      requestTimeout: config.admission.bodyTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, config.admission.headersTimeoutMs),
    },
    (req, res) => {
      const requestId = requestIdFrom(req.headers['x-request-id']) ?? randomUUID();
      res.setHeader('x-request-id', requestId);
      // A request read on a kept-alive connection after shutdown began is still answered, but it
      // is the connection's last: otherwise busy clients would keep the server alive until the timeout.
      if (stopping) res.setHeader('connection', 'close');
      unfinished.add(res);
      res.once('close', () => unfinished.delete(res));
      requestScope.run({ requestId }, () => void route(req, res));
    },
  );

  async function route(req: IncomingMessage, res: ServerResponse) {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') return sendJson(res, 200, { status: 'alive' });
    if (path === '/readyz') return sendReadiness(res);
    if (path === METRICS_PATH) return sendMetrics(req, res);
    if (path === OTLP_TRACES_PATH) return otlpTraces(req, res);
    if (path === MCP_PATH) return serveMcp(req, res);
    if (path?.startsWith(BLOBS_PATH)) return serveBlob(req, res, { services, limiter, admission });
    if (serveWeb(req, res)) return;
    return yoga(req, res);
  }

  async function sendMetrics(req: IncomingMessage, res: ServerResponse) {
    if (!(await metricsAllowed(req.headers.authorization, services))) {
      res.setHeader('www-authenticate', 'Bearer');
      return sendJson(res, 401, { error: 'metrics need an admin API key or METRICS_TOKEN: Authorization: Bearer <token>' });
    }
    res.writeHead(200, { 'content-type': metrics.registry.contentType });
    res.end(await metrics.registry.metrics());
  }

  async function sendReadiness(res: ServerResponse) {
    // Every request slot taken: alive, but a balancer should send new work elsewhere for now.
    if (admission.saturated) return sendJson(res, 503, { status: 'saturated', inFlight: admission.inFlight, limit: config.admission.maxConcurrentRequests });
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

  // A graphql-ws message is held whole in memory like an HTTP body, so it gets the same limit
  // (a larger one closes the socket with 1009, Message Too Big).
  wss = new WebSocketServer({ server: httpServer, path: GRAPHQL_PATH, maxPayload: config.maxBodyBytes });
  keyWatch.start();
  // A revocation committed by any process ends the key's streams here at once.
  const stopEndingRevoked = services.ledgerBus.onRevoked((keyId) => keyWatch.endKey(keyId));
  const ws = useServer<Record<string, unknown>, WsExtra>(
    {
      // A socket closed for an internal error says only that (never the error's text), in every environment.
      isProd: true,
      execute: (args) => (args.rootValue as EnvelopedRoot).execute(args),
      subscribe: (args) => (args.rootValue as EnvelopedRoot).subscribe(args),
      onConnect: async (ctx) => {
        const params = ctx.connectionParams ?? {};
        const header = (params.authorization ?? params.Authorization ?? params.apiKey) as string | undefined;
        const auth = await services.keys.authenticate(tokenFromHeader(header));
        ctx.extra.auth = auth;
        if ('viewer' in auth) {
          const socket = ctx.extra.socket;
          const forget = keyWatch.add({
            keyId: auth.viewer.keyId,
            kind: 'socket',
            expiresAt: auth.viewer.expiresAt,
            end: () => socket.close(KEY_REVOKED_CLOSE_CODE, 'API key revoked or expired'),
          });
          socket.once('close', forget);
        }
        // Refuse at once: a socket with a bad key never gets to subscribe (4403 Forbidden).
        return 'viewer' in auth;
      },
      onSubscribe: async (ctx, _id, params) => {
        // graphql-ws registers the operation before this hook, so the count includes it.
        const running = Object.keys(ctx.subscriptions).length;
        if (running > config.subscriptions.maxPerConnection) return [tooManyOperations(config.subscriptions.maxPerConnection)];
        const requestId = randomUUID();
        const {
          schema: s,
          execute,
          subscribe,
          contextFactory: makeContext,
          parse,
          validate,
        } = yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params,
          wsAuth: ctx.extra.auth,
          wsSocket: ctx.extra.socket,
        } as Parameters<typeof yoga.getEnveloped>[0]);
        // Parse and validation refusals (syntax, depth, aliases, cost, ...) are answered on this
        // operation; thrown, they would close the whole socket as an internal error.
        let document: ReturnType<typeof parse>;
        try {
          document = parse(params.query);
          const errors = validate(s, document);
          if (errors.length) return errors.map((e: GraphQLError) => withRequestErrorCode(e, 'GRAPHQL_VALIDATION_FAILED'));
          // The node limit needs the variables: answered here like the validation refusals above.
          const tooMany = nodeLimitError({ schema: s, document, variableValues: params.variables, operationName: params.operationName }, config.armor.maxNodes);
          if (tooMany) return [tooMany];
        } catch (err) {
          if (err instanceof GraphQLError) return [withRequestErrorCode(err, 'GRAPHQL_VALIDATION_FAILED')];
          throw err;
        }
        // A refusal while building the context (RATE_LIMITED) ends this operation, not the socket.
        let contextValue: Awaited<ReturnType<typeof makeContext>>;
        try {
          contextValue = await requestScope.run({ requestId }, () => makeContext());
        } catch (err) {
          if (err instanceof GraphQLError) return [err];
          throw err;
        }
        return {
          schema: s,
          operationName: params.operationName,
          document,
          variableValues: params.variables,
          contextValue,
          rootValue: {
            execute: (a: ExecutionArgs) => requestScope.run({ requestId }, () => execute(a)),
            subscribe: (a: ExecutionArgs) => requestScope.run({ requestId }, () => subscribe(a)),
          } satisfies EnvelopedRoot,
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
      stopping = true;
      for (const res of unfinished) if (!res.headersSent) res.setHeader('connection', 'close');
      // net.Server's close stops accepting only; http.Server's would also cut idle keep-alive
      // connections at once, losing a request a client sent on one just before the signal.
      const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(httpServer, () => resolve()));
      keyWatch.stop();
      stopEndingRevoked();
      await ws.dispose();
      for (const client of wss.clients) client.terminate();
      const timeout = delay(config.shutdownTimeoutMs);
      await Promise.race([closed, delay(config.shutdownDrainMs)]);
      httpServer.close();
      await Promise.race([closed, timeout]);
      httpServer.closeAllConnections();
    },
  };
}

function poolSaturatedError(requestId: string | undefined, poolMax: number): GraphQLError {
  const shed = overloadedError(
    'Every database connection of this server stayed busy; this request may not have completed. Retry shortly: steps with a sideEffectKey and starts with a dedupeKey are never stored twice.',
    poolMax,
  );
  return new GraphQLError(shed.message, { extensions: { ...shed.extensions, requestId } });
}

function databaseUnavailableError(requestId: string | undefined): GraphQLError {
  return new GraphQLError(
    'The database is unavailable right now; this request may not have completed. Retry shortly: steps with a sideEffectKey and starts with a dedupeKey are never stored twice.',
    {
      extensions: { code: 'DATABASE_UNAVAILABLE', retryAfterMs: 1000, requestId, http: { status: 503, headers: { 'retry-after': '1' } } },
    },
  );
}

function tooManyOperations(max: number): GraphQLError {
  return new GraphQLError(
    `This connection already runs ${max} operations, the most one connection may (SUBSCRIPTIONS_PER_CONNECTION). Complete one, or open another connection.`,
    { extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', limit: max } },
  );
}

/** Resolves after ms without keeping the process alive for it. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function displayHost(host: string): string {
  return host === '0.0.0.0' || host === '::' || host === '127.0.0.1' ? 'localhost' : host;
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
