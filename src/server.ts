// One node:http server: yoga for HTTP and SSE on /graphql (http/yoga.ts), graphql-ws on the same
// path (http/websocket.ts), the health endpoints, and the other routes. createApp builds it;
// start/stop own the lifecycle.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { RateLimiter } from './auth/rate-limit.ts';
import { KeyWatch } from './auth/socket-keys.ts';
import { delay } from './core/delay.ts';
import { Admission } from './http/admission.ts';
import { BLOBS_PATH, serveBlob } from './http/blob-download.ts';
import { sendJson, sendMetrics, sendReadiness } from './http/health.ts';
import { inRequestScope, requestListener } from './http/listener.ts';
import { createMetrics, METRICS_PATH } from './http/metrics.ts';
import { refusedBeforeBody } from './http/refusal-before-body.ts';
import { serveGraphQLOverWebSocket } from './http/websocket.ts';
import { createGraphQLHandler, GRAPHQL_PATH, type GraphQLHandler } from './http/yoga.ts';
import { createMcpHandler, MCP_PATH } from './mcp/http.ts';
import { createOtlpHandler, createOtlpLogsHandler, createTraceIngest, OTLP_LOGS_PATH, OTLP_TRACES_PATH, startHeldTraceJobs } from './otlp/http.ts';
import type { TraceIngest } from './otlp/traces.ts';
import type { Services } from './services.ts';
import { createStaticHandler } from './web/static.ts';

export { GRAPHQL_PATH };

export interface App {
  start(): Promise<number>;
  stop(): Promise<void>;
  url(): string;
  /**
   * A GraphQL request answered by the same yoga in the same request scope as one read from the
   * socket, but with no socket: auth, rate limits, tenancy and error masking are the API's. What
   * belongs to a connection does not apply: no admission slot (one is held per response), no
   * `Connection: close` at shutdown. For callers whose subject is the schema, not the transport.
   */
  fetch(url: string, init?: RequestInit): Promise<Response>;
}

/** How long an idle keep-alive connection stays open. */
const KEEP_ALIVE_MS = 65_000;

export function createApp(services: Services): App {
  const { config, log } = services;
  // Declared before yoga so the sockets gauge can read it; assigned once the HTTP server exists.
  let wss: WebSocketServer | undefined;
  const admission = new Admission(config.admission);
  const metrics = createMetrics(services, { openSockets: () => wss?.clients.size ?? 0, requestsInFlight: () => admission.inFlight });
  // One watch for every stream (WebSockets and SSE subscriptions): one rule for a revoked or expired key.
  const keyWatch = new KeyWatch(services.db.pool, config.keyRecheckMs);
  const limiter = config.rateLimitPerMinute > 0 ? new RateLimiter(services.db.pool, config.rateLimitPerMinute) : null;
  const yoga = createGraphQLHandler(services, { admission, limiter, keyWatch, metricsPlugin: metrics.plugin });
  let ready = false;
  let stopping = false;
  const traces = createTraceIngest(services, admission);
  const route = createRouter(services, { yoga, metrics, admission, limiter, traces, isReady: () => ready });
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
    requestListener(route, unfinished, () => stopping, log),
  );
  // Node's 5 s keep-alive lost a call at load 20 ("fetch failed", 1 of 1,550 shed calls): a client
  // reuses an idle connection until the hinted timeout less a margin (undici: 2 s), and a loaded
  // client's timer runs late, so it sent a call as the server closed the socket. With a minute the
  // race needs a connection idle that long; nginx keeps 75 s.
  httpServer.keepAliveTimeout = KEEP_ALIVE_MS;

  // A graphql-ws message is held whole in memory like an HTTP body, so it gets the same limit
  // (a larger one closes the socket with 1009, Message Too Big).
  const sockets = new WebSocketServer({ server: httpServer, path: GRAPHQL_PATH, maxPayload: config.maxBodyBytes });
  wss = sockets;
  keyWatch.start();
  // A revocation committed by any process ends the key's streams here at once.
  const stopEndingRevoked = services.ledgerBus.onRevoked((keyId) => keyWatch.endKey(keyId));
  const ws = serveGraphQLOverWebSocket(sockets, { services, yoga, keyWatch });

  return {
    async start() {
      await startHeldTraceJobs(services, traces, metrics.countSpanRefusals);
      await new Promise<void>((resolve, reject) => {
        httpServer.once('error', reject);
        httpServer.listen(config.port, config.host, () => resolve());
      });
      ready = true;
      const { port } = httpServer.address() as AddressInfo;
      const origin = `http://${displayHost(config.host)}:${port}`;
      log.info({ port, host: config.host }, `Episodic serving GraphQL on ${origin}${GRAPHQL_PATH} and the monitor on ${origin}/`);
      return port;
    },
    url() {
      const { port } = httpServer.address() as AddressInfo;
      return `http://${displayHost(config.host)}:${port}${GRAPHQL_PATH}`;
    },
    fetch: inProcessFetch(yoga),
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
      for (const client of sockets.clients) client.terminate();
      const timeout = delay(config.shutdownTimeoutMs);
      await Promise.race([closed, delay(config.shutdownDrainMs)]);
      httpServer.close();
      await Promise.race([closed, timeout]);
      httpServer.closeAllConnections();
    },
  };
}

interface Routes {
  yoga: GraphQLHandler;
  metrics: ReturnType<typeof createMetrics>;
  admission: Admission;
  limiter: RateLimiter | null;
  traces: TraceIngest;
  isReady: () => boolean;
}

/** Every path the server answers; /graphql (and anything unmatched) goes to yoga. */
function createRouter(services: Services, { yoga, metrics, admission, limiter, traces, isReady }: Routes) {
  const serveWeb = createStaticHandler();
  const otlpTraces = createOtlpHandler(services, traces, admission, limiter, metrics.countSpanRefusals);
  const otlpLogs = createOtlpLogsHandler(services, traces, admission, limiter, metrics.countSpanRefusals);
  const serveMcp = createMcpHandler(
    services,
    { url: `http://localhost${GRAPHQL_PATH}`, fetch: async (url, init) => yoga.fetch(url, init) },
    { admission, limiter },
  );
  return (req: IncomingMessage, res: ServerResponse): unknown => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') return sendJson(res, 200, { status: 'alive' });
    if (path === '/readyz') return sendReadiness(res, services, admission, isReady());
    if (path === METRICS_PATH) return sendMetrics(req, res, services, metrics);
    if (path === OTLP_TRACES_PATH) return otlpTraces(req, res);
    if (path === OTLP_LOGS_PATH) return otlpLogs(req, res);
    if (path === MCP_PATH) return serveMcp(req, res);
    if (path?.startsWith(BLOBS_PATH)) return serveBlob(req, res, { services, limiter, admission });
    if (serveWeb(req, res)) return;
    if (path !== GRAPHQL_PATH) return yoga(req, res);
    const refused = refusedBeforeBody(req, res, services.keys, admission, services.config.maxBodyBytes);
    if (refused === false) return yoga(req, res);
    return refused === true ? undefined : refused.then((r) => (r ? undefined : yoga(req, res)));
  };
}

/** App.fetch: yoga's own fetch, in the request scope the socket's requests get, answering with their x-request-id. */
function inProcessFetch(yoga: GraphQLHandler): App['fetch'] {
  return (url, init) =>
    inRequestScope(new Headers(init?.headers).get('x-request-id') ?? undefined, async (requestId) => {
      const response = await yoga.fetch(url, init ?? {});
      response.headers.set('x-request-id', requestId);
      return response;
    });
}

function displayHost(host: string): string {
  return host === '0.0.0.0' || host === '::' || host === '127.0.0.1' ? 'localhost' : host;
}
