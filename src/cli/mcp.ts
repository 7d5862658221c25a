// `episodic mcp`: serves Episodic's tools to a coding agent over MCP on stdin/stdout
// (src/mcp/stdio.ts, loaded only when the command runs: `episodic --help` loads no SDK).
import { EpisodicError } from '../client/errors.ts';
import { CliError, EXIT, parseCommandArgs } from './errors.ts';
import type { CliIo } from './io.ts';
import { MCP_CLIENTS, mcpConfig } from './mcp-config.ts';
import { DEFAULT_URL, resolveApiKey } from './remote.ts';

export const MCP_SUMMARY = 'serve the tools to a coding agent over MCP (stdio)';

const MCP_HELP = `Usage: episodic mcp [--url <url>] [--key <key>]
       episodic mcp --print-config <client> [--http] [--url <url>] [--key <key>]
Serves Episodic to a coding agent over MCP (Model Context Protocol) on stdin/stdout: the agent's
MCP configuration runs this command. Tools: relevant_episodes, relevant_files, relevant_patterns
and episode (any key); start_episode, log_steps and complete_episode (a key with write scope;
a read key is not shown them). docs/MCP.md lists them; the server also serves them at /mcp.
  --url <url>   GraphQL endpoint (default: EPISODIC_URL, else ${DEFAULT_URL})
  --key <key>   API key (default: EPISODIC_API_KEY, else the file .episodic/admin-key)
  --print-config <client>  print the block that client's MCP configuration takes to run this
                installation's \`episodic mcp\` (node and this bin by absolute path, so it works from
                any project); clients: ${MCP_CLIENTS.join(', ')}. The key is --key or
                EPISODIC_API_KEY, else a placeholder to replace. stdout is the block alone.
  --http        with --print-config: the server's /mcp (Streamable HTTP) instead of a command
  --server-only with --print-config: the server's entry alone (for \`claude mcp add-json\`)
  -h, --help    this help
It checks the key at start and exits 1 with the reason if the server refuses it or cannot be reached.`;

const OPTIONS = {
  url: { type: 'string' },
  key: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  'print-config': { type: 'string' },
  http: { type: 'boolean' },
  'server-only': { type: 'boolean' },
} as const;

/** Runs the MCP server until the agent closes stdin; nothing else is written to stdout. */
export async function runMcp(argv: string[], io: CliIo): Promise<void> {
  const { values } = parseCommandArgs(argv, OPTIONS, 'mcp');
  if (values.help) {
    io.stdout.write(`${MCP_HELP}\n`);
    return;
  }
  const { clientEnv } = await import('../config.ts');
  const url = values.url ?? clientEnv(io.env).url ?? DEFAULT_URL;
  const client = values['print-config'];
  if (client !== undefined) {
    const apiKey = values.key ?? clientEnv(io.env).apiKey;
    const { block, where } = mcpConfig({ client, url, apiKey, http: values.http === true, serverOnly: values['server-only'] === true });
    io.stdout.write(`${block}\n`);
    io.stderr.write(`episodic: paste into ${where}${apiKey ? '' : '; replace epk_... with a key (episodic keys create --scopes write --name my-agent)'}\n`);
    return;
  }
  const { serveStdio } = await import('../mcp/stdio.ts');
  const apiKey = await resolveApiKey(values.key, io.env);
  try {
    await serveStdio({ url, apiKey, stdin: io.stdin, stdout: io.stdout });
  } catch (err) {
    if (!(err instanceof EpisodicError)) throw err;
    const hint = err.code === 'UNAUTHENTICATED' ? ' (check --key or EPISODIC_API_KEY)' : '';
    throw new CliError(`mcp: ${err.message}${hint}`, EXIT.runtime);
  }
}
