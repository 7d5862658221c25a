// The Episodic MCP server: the tool table registered on the SDK's McpServer for one API key. A key
// sees the tools its scopes allow (a read key only the read tools: they are neither listed nor
// callable for it), and every call runs GraphQL operations through `request`, so authentication,
// limits and tenancy stay the API's own.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import packageJson from '../../package.json' with { type: 'json' };
import { EpisodicError } from '../client/errors.ts';
import type { Request } from '../client/transport.ts';
import { exceedsJsonDepth, JSON_DEPTH, type JsonValue } from '../validation/json.ts';
import { EXPERIMENT_TOOLS } from './experiment-tools.ts';
import { READ_TOOLS } from './read-tools.ts';
import type { Tool, ToolAnswer } from './tool.ts';
import { WRITE_TOOLS } from './write-tools.ts';

const TOOLS: readonly Tool[] = [...READ_TOOLS, ...WRITE_TOOLS, ...EXPERIMENT_TOOLS];

const INSTRUCTIONS = `Episodic remembers agent runs and what they learnt.
Before a task: relevant_episodes, relevant_files and relevant_patterns say what similar past runs did, changed and got wrong.
During it: start_episode, then log_steps as you go, then complete_episode with the outcome and the files you changed,
passing the retrieval ids of the answers that helped (usedRetrievals). episode reads one run.`;

/** The tools a key with these scopes may list and call (admin implies write implies read). */
export function toolsFor(scopes: readonly string[]): Tool[] {
  const write = scopes.includes('write') || scopes.includes('admin');
  return TOOLS.filter((t) => t.scope === 'read' || write);
}

/** An API refusal (bad key, missing scope, refused variables) or an unreachable server, as a tool error. */
function failureAnswer(err: unknown): ToolAnswer {
  if (!(err instanceof EpisodicError)) throw err;
  const code = err.code ? ` (${err.code})` : '';
  return { text: `${err.message}${code}`, structured: { error: err.message, code: err.code ?? null, kind: err.kind }, isError: true };
}

/**
 * Arguments nested past the depth any stored JSON may have, refused before a tool serialises them
 * for the API (JSON.stringify overflowed its stack on 50,000 levels, answered as "cannot reach").
 */
function tooDeep(args: Record<string, unknown>): ToolAnswer | null {
  if (!exceedsJsonDepth(args as JsonValue, JSON_DEPTH + 1)) return null;
  const violation = { field: 'arguments', limit: JSON_DEPTH, message: `arguments nest arrays/objects deeper than ${JSON_DEPTH} levels` };
  return {
    text: `InputLimitError: ${violation.message} (the limit is ${JSON_DEPTH}). Nothing was written.`,
    structured: { __typename: 'InputLimitError', violations: [violation] },
    isError: true,
  };
}

function toResult(a: ToolAnswer): CallToolResult {
  return { content: [{ type: 'text', text: a.text }], structuredContent: a.structured, ...(a.isError ? { isError: true } : {}) };
}

export function createMcpServer(request: Request, scopes: readonly string[]): McpServer {
  const server = new McpServer({ name: 'episodic', version: packageJson.version }, { instructions: INSTRUCTIONS });
  for (const tool of toolsFor(scopes)) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        annotations: { readOnlyHint: tool.scope === 'read', destructiveHint: false, openWorldHint: false },
      },
      async (args: Record<string, unknown>) => toResult(tooDeep(args) ?? (await tool.run(args, request).catch(failureAnswer))),
    );
  }
  return server;
}
