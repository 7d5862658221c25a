// `episodic mcp`: the MCP server on stdin/stdout for an agent on this machine. Its tools call the
// Episodic API over HTTP with the typed client's transport and the given key; the key's scopes
// (viewerKey), read once at start, decide which tools are listed. A refused key or an unreachable
// server ends the command at once with the reason, before the agent sees any tool. A line of stdin
// over the length limit is answered with the typed refusal by stdio-lines.ts.
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createTransport } from '../client/transport.ts';
import { OPERATIONS } from './operations.ts';
import { createMcpServer } from './server.ts';
import { guardLines } from './stdio-lines.ts';

export interface StdioOptions {
  url: string;
  apiKey: string;
  stdin: Readable;
  stdout: Writable;
}

/** Serves until the agent closes stdin. */
export async function serveStdio(options: StdioOptions): Promise<void> {
  const request = createTransport({ url: options.url, apiKey: options.apiKey });
  const key = await request<{ scopes: string[] }>(OPERATIONS.viewerKey);
  const server = createMcpServer(request, key.scopes);
  // Each line passes the length guard first: the SDK's transport would close on an oversized one (stdio-lines.ts).
  const transport = new StdioServerTransport(options.stdin.pipe(guardLines(options.stdout)), options.stdout);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  await server.connect(transport);
  // The transport stops reading on close but does not notice the end of its input.
  if (options.stdin.readableEnded) await server.close();
  else options.stdin.once('end', () => void server.close());
  await closed;
}
