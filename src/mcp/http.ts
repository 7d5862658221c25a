// Streamable HTTP at /mcp (stateless: a fresh server and transport per POST, as the SDK's
// stateless example does). Host and Origin are checked first (origin.ts: 403 for another site's
// page), then the API key, a bearer token: a refused key is a 401 before any MCP message is read. Each tool call runs its GraphQL operation in-process through yoga's own
// fetch with the caller's key, so authentication, scopes, limits and tenancy are the API's own.
// The SDK is loaded on the first /mcp request, not at server start.
// A POST is charged by its JSON-RPC calls before any runs (the body read here, within
// MAX_BODY_BYTES, and handed to the SDK parsed): one unit of the key's rate limit per call and one
// admission slot per call up to the key's share, held until the answer is sent; a refusal is one
// JSON-RPC error with Retry-After. The calls' operations then take nothing more (the request scope
// says the door admitted them) and run a few at a time, so one batch of 100 cannot occupy the
// machine's cores (8 batches of 100 relevant_episodes once held another key's query for 5.9 s).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AUTH_FAILURE_MESSAGES, tokenFromHeader } from '../auth/keys.ts';
import type { RateLimiter } from '../auth/rate-limit.ts';
import type { Viewer } from '../auth/store.ts';
import { createTransport, type FetchLike } from '../client/transport.ts';
import { nextTurn } from '../core/delay.ts';
import { type Admission, markCaller } from '../http/admission.ts';
import { FairPermits } from '../http/fair-permits.ts';
import { requestScope } from '../log.ts';
import type { Services } from '../services.ts';
import { originRefusal } from './origin.ts';

/**
 * A batch's calls run one at a time, in order, as one client's sequence of calls would: on 2 cores
 * four at a time held another tenant's one-field query at p99 3.3-5.6x its baseline in
 * bench:fairness (mcp8), two at a time 2.1-2.4x, one 1.2-1.5x, for about 30 % fewer of the attacking
 * batch's answers (docs/BENCHMARKS.md).
 */
const CALLS_AT_ONCE = 1;

/** What the door needs to charge a POST: the server's admission and the keys' rate limit. */
export interface McpAdmission {
  admission: Admission;
  limiter: RateLimiter | null;
}

class McpRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const MCP_PATH = '/mcp';

/** The GraphQL endpoint in this process: its URL (only the path matters) and yoga's fetch. */
export interface InProcessGraphQL {
  url: string;
  fetch: FetchLike;
}

function sendJsonRpcError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** The body as JSON, refused past `limit` bytes (a declared length before any byte is read). */
async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const tooLarge = () => new McpRefusal(413, `Request body too large: at most ${limit} bytes (MAX_BODY_BYTES)`);
  if (Number(req.headers['content-length'] ?? 0) > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of req) {
    bytes += (chunk as Buffer).length;
    if (bytes > limit) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new McpRefusal(400, 'Parse error: the body is not JSON');
  }
}

/** The calls a POST carries: each message of a batch, or the one message. */
const callsIn = (body: unknown): number => (Array.isArray(body) ? body.length : 1);

/** Takes the POST's rate allowance and slots, one per call (holding `bytes` of body while it waits); marks the scope so its operations take none again. */
async function charge(viewer: Viewer, calls: number, door: McpAdmission, res: ServerResponse, bytes: number): Promise<void> {
  const units = Math.max(1, calls);
  const rate = door.limiter ? await door.limiter.take(viewer.keyId, Date.now(), units) : { ok: true, retryAfterMs: 0 };
  if (door.limiter && !rate.ok) {
    const seconds = String(Math.ceil(rate.retryAfterMs / 1000));
    const why = `Rate limit exceeded for this API key: the limit is ${door.limiter.perMinute} requests a minute (RATE_LIMIT_PER_MINUTE), a POST counting one per JSON-RPC call (this one carries ${units}); retry in ${seconds} s`;
    throw new McpRefusal(429, why, { 'retry-after': seconds });
  }
  await door.admission.takeFor(viewer, res, units, bytes).catch((err: Error) => {
    throw new McpRefusal(503, err.message, { 'retry-after': '1' });
  });
  markCaller(viewer);
  const scope = requestScope.getStore();
  if (scope) scope.admitted = true;
}

/**
 * yoga's fetch, at most CALLS_AT_ONCE operations of this POST at a time, each begun on a turn of the
 * event loop of its own (a call's end would start the next one within the same run of promise
 * callbacks, ahead of another tenant's request already read). The calls' work is paced where every
 * door passes, not here: a retrieval waits for its key's turn in its use case (PACED_RETRIEVALS_PER_SECOND),
 * so a batch of 100 relevant_episodes costs what 100 aliases of one GraphQL request cost.
 */
function fewAtATime(fetch: FetchLike): FetchLike {
  const permits = new FairPermits(CALLS_AT_ONCE, CALLS_AT_ONCE);
  return async (url, init) => {
    const release = await permits.take('post');
    try {
      await nextTurn();
      return await fetch(url, init);
    } finally {
      release();
    }
  };
}

async function serve(services: Services, graphql: InProcessGraphQL, door: McpAdmission, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST') {
    return sendJsonRpcError(res, 405, 'This MCP endpoint is stateless: POST each JSON-RPC request (no sessions, no GET stream).', { allow: 'POST' });
  }
  const refusal = originRefusal(req.headers, services.config.mcp);
  if (refusal) return sendJsonRpcError(res, 403, refusal);
  const token = tokenFromHeader(req.headers.authorization);
  const auth = await services.keys.authenticate(token);
  if ('failure' in auth) return sendJsonRpcError(res, 401, AUTH_FAILURE_MESSAGES[auth.failure], { 'www-authenticate': 'Bearer' });
  const body = await readJson(req, services.config.maxBodyBytes);
  const declared = req.headers['content-length'];
  await charge(auth.viewer, callsIn(body), door, res, declared === undefined ? services.config.maxBodyBytes : Number(declared));
  const [{ StreamableHTTPServerTransport }, { createMcpServer }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('./server.ts'),
  ]);
  const request = createTransport({
    url: graphql.url,
    apiKey: token ?? undefined,
    fetch: fewAtATime(graphql.fetch),
  });
  const server = createMcpServer(request, auth.viewer.scopes);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: services.config.maxBodyBytes,
  });
  res.once('close', () => void server.close());
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

export function createMcpHandler(services: Services, graphql: InProcessGraphQL, door: McpAdmission) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      await serve(services, graphql, door, req, res);
    } catch (err) {
      if (err instanceof McpRefusal) return sendJsonRpcError(res, err.status, err.message, err.headers);
      services.log.error({ err }, 'MCP request failed');
      if (!res.headersSent) sendJsonRpcError(res, 500, 'Internal error');
      else res.end();
    }
  };
}
