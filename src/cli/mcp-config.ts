// `episodic mcp --print-config <client>`: the block an MCP client's configuration file takes to run
// this installation's `episodic mcp` (stdio) or to reach the server's /mcp (--http). The stdio
// command is this node and this package's bin by absolute path, so it works from any project and
// in clients that do not inherit the shell's PATH (Claude Desktop); never a registry name.
import { fileURLToPath } from 'node:url';
import { CliError, EXIT } from './errors.ts';

export const MCP_CLIENTS = ['claude-code', 'claude-desktop', 'cursor', 'vscode', 'windsurf', 'codex'] as const;
type McpClient = (typeof MCP_CLIENTS)[number];

/** Where each client reads the block from (printed on stderr, so stdout is the block alone). */
const WHERE: Record<McpClient, string> = {
  'claude-code': '.mcp.json in your project (or: claude mcp add-json episodic "$(episodic mcp --print-config claude-code --server-only)")',
  'claude-desktop': 'claude_desktop_config.json (Settings > Developer > Edit Config)',
  cursor: '.cursor/mcp.json in your project, or ~/.cursor/mcp.json',
  vscode: '.vscode/mcp.json in your project',
  windsurf: '~/.codeium/windsurf/mcp_config.json',
  codex: '~/.codex/config.toml',
};

export interface McpConfigRequest {
  client: string;
  url: string;
  apiKey: string | undefined;
  http: boolean;
  serverOnly: boolean;
}

export const KEY_PLACEHOLDER = 'epk_...';

/** The absolute path of this package's bin/episodic.mjs (from src/cli or dist/cli alike). */
function binPath(): string {
  return fileURLToPath(new URL('../../bin/episodic.mjs', import.meta.url));
}

function isClient(name: string): name is McpClient {
  return (MCP_CLIENTS as readonly string[]).includes(name);
}

function serverEntry(req: McpConfigRequest, client: McpClient): Record<string, unknown> {
  const key = req.apiKey ?? KEY_PLACEHOLDER;
  if (req.http) {
    const url = new URL('/mcp', req.url).href;
    const headers = { Authorization: `Bearer ${key}` };
    return client === 'cursor' || client === 'windsurf' ? { url, headers } : { type: 'http', url, headers };
  }
  const entry = { command: process.execPath, args: [binPath(), 'mcp'], env: { EPISODIC_URL: req.url, EPISODIC_API_KEY: key } };
  return client === 'vscode' ? { type: 'stdio', ...entry } : entry;
}

function toml(entry: Record<string, unknown>): string {
  const env = entry.env as Record<string, string>;
  return [
    '[mcp_servers.episodic]',
    `command = ${JSON.stringify(entry.command)}`,
    `args = ${JSON.stringify(entry.args)}`,
    '',
    '[mcp_servers.episodic.env]',
    ...Object.entries(env).map(([name, value]) => `${name} = ${JSON.stringify(value)}`),
  ].join('\n');
}

/** The configuration block, and where it goes. */
export function mcpConfig(req: McpConfigRequest): { block: string; where: string } {
  const client = req.client;
  if (!isClient(client)) throw new CliError(`--print-config: unknown client "${client}"; one of ${MCP_CLIENTS.join(', ')}`, EXIT.usage);
  if (req.http && (client === 'claude-desktop' || client === 'codex')) {
    throw new CliError(`--print-config ${client} --http: ${client} runs MCP servers as commands only; leave out --http`, EXIT.usage);
  }
  const entry = serverEntry(req, client);
  if (client === 'codex') return { block: toml(entry), where: WHERE[client] };
  const block = req.serverOnly ? entry : { [client === 'vscode' ? 'servers' : 'mcpServers']: { episodic: entry } };
  return { block: JSON.stringify(block, null, 2), where: WHERE[client] };
}
