// MCP clients for the tests: the official SDK client over stdio (spawning the real `episodic mcp`
// binary against the running test server) and over Streamable HTTP (the server's /mcp).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TestApp } from '../support/app.ts';

export type TransportName = 'stdio' | 'http';

export interface Connected {
  client: Client;
  close(): Promise<void>;
}

export function mcpUrl(t: TestApp): URL {
  return new URL('/mcp', t.url);
}

/** The SDK client on /mcp, or on `episodic mcp` spawned with the URL and key in its environment, as an agent's MCP configuration runs it. */
export async function connect(t: TestApp, name: TransportName, key: string): Promise<Connected> {
  const client = new Client({ name: 'episodic-test', version: '1.0.0' });
  const transport =
    name === 'http'
      ? new StreamableHTTPClientTransport(mcpUrl(t), { requestInit: { headers: { authorization: `Bearer ${key}` } } })
      : new StdioClientTransport({
          command: process.execPath,
          args: ['bin/episodic.mjs', 'mcp'],
          cwd: process.cwd(),
          env: { EPISODIC_URL: t.url, EPISODIC_API_KEY: key },
        });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

export interface ToolCall {
  text: string;
  isError: boolean;
  structured: Record<string, unknown>;
}

export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolCall> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  return { text, isError: Boolean(result.isError), structured: (result.structuredContent ?? {}) as Record<string, unknown> };
}

/** The ids of the tenant's episodes, read through the GraphQL API with its admin key. */
export async function episodeIds(t: TestApp, adminKey: string): Promise<string[]> {
  const r = await t.gql<{ episodes: { edges: Array<{ node: { id: string } }> } }>('{ episodes(first: 100) { edges { node { id } } } }', {}, adminKey);
  return (r.data?.episodes.edges ?? []).map((e) => e.node.id);
}
