// Streamable HTTP at /mcp (stateless: a fresh server and transport per POST, as the SDK's
// stateless example does). The API key comes as a bearer token; a refused key is a 401 before any
// MCP message is read. Each tool call runs its GraphQL operation in-process through yoga's own
// fetch with the caller's key, so authentication, scopes, limits and tenancy are the API's own.
// The SDK is loaded on the first /mcp request, not at server start.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AUTH_FAILURE_MESSAGES, tokenFromHeader } from '../auth/keys.ts';
import { createTransport, type FetchLike } from '../client/transport.ts';
import type { Services } from '../services.ts';

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

async function serve(services: Services, graphql: InProcessGraphQL, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST') {
    return sendJsonRpcError(res, 405, 'This MCP endpoint is stateless: POST each JSON-RPC request (no sessions, no GET stream).', { allow: 'POST' });
  }
  const token = tokenFromHeader(req.headers.authorization);
  const auth = await services.keys.authenticate(token);
  if ('failure' in auth) return sendJsonRpcError(res, 401, AUTH_FAILURE_MESSAGES[auth.failure], { 'www-authenticate': 'Bearer' });
  const [{ StreamableHTTPServerTransport }, { createMcpServer }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('./server.ts'),
  ]);
  const request = createTransport({ url: graphql.url, apiKey: token ?? undefined, fetch: graphql.fetch });
  const server = createMcpServer(request, auth.viewer.scopes);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: services.config.maxBodyBytes,
  });
  res.once('close', () => void server.close());
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

export function createMcpHandler(services: Services, graphql: InProcessGraphQL) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      await serve(services, graphql, req, res);
    } catch (err) {
      services.log.error({ err }, 'MCP request failed');
      if (!res.headersSent) sendJsonRpcError(res, 500, 'Internal error');
      else res.end();
    }
  };
}
