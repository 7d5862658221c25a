// Episodic where the agent runs: from a folder outside the checkout, the block `episodic mcp
// --print-config <client>` prints is what the MCP SDK's client runs (stdio: node and this bin by
// absolute path) or reaches (--http), and it lists the tools; `npm pack` ships what an install
// outside the checkout builds and runs from (sources, migrations, build scripts, the built
// monitor), not the tests.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

const run = promisify(execFile);
const BIN = resolve('bin/episodic.mjs');
const TOOLS = [
  'complete_episode',
  'episode',
  'experiment',
  'log_steps',
  'memory_impact',
  'relevant_episodes',
  'relevant_files',
  'relevant_patterns',
  'start_episode',
];

let t: TestApp;
let project: string;
beforeAll(async () => {
  t = await startTestApp();
  project = await mkdtemp(join(tmpdir(), 'agent-project-'));
});
afterAll(async () => {
  await t?.stop();
  if (project) await rm(project, { recursive: true, force: true });
});

/** `episodic mcp --print-config ...` run in the agent's project folder, parsed. */
async function printConfig(...args: string[]): Promise<Record<string, Record<string, Record<string, unknown>>>> {
  const { stdout } = await run(process.execPath, [BIN, 'mcp', '--print-config', ...args, '--url', t.url, '--key', t.keys.write], {
    cwd: project,
    env: { PATH: process.env.PATH ?? '' },
  });
  return JSON.parse(stdout);
}

async function toolNames(client: Client): Promise<string[]> {
  const { tools } = await client.listTools();
  return tools.map((tool) => tool.name).sort();
}

describe('episodic mcp --print-config', { timeout: 180_000 }, () => {
  it.each(['claude-code', 'cursor', 'claude-desktop', 'windsurf'])('prints a stdio block for %s that the SDK client runs from another folder', async (name) => {
    const entry = (await printConfig(name)).mcpServers?.episodic as { command: string; args: string[]; env: Record<string, string> };
    expect(entry.command).toBe(process.execPath);
    expect(entry.args).toEqual([BIN, 'mcp']);
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args, env: entry.env, cwd: project }));
    try {
      expect(await toolNames(client)).toEqual(TOOLS);
    } finally {
      await client.close();
    }
  });

  it('prints VS Code its `servers` block with type stdio', async () => {
    const entry = (await printConfig('vscode')).servers?.episodic;
    expect(entry).toMatchObject({ type: 'stdio', command: process.execPath, args: [BIN, 'mcp'], env: { EPISODIC_URL: t.url, EPISODIC_API_KEY: t.keys.write } });
  });

  it('prints an HTTP block (--http) whose URL and header the SDK client reaches', async () => {
    const entry = (await printConfig('claude-code', '--http')).mcpServers?.episodic as { type: string; url: string; headers: Record<string, string> };
    expect(entry.type).toBe('http');
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.headers } }));
    try {
      expect(await toolNames(client)).toEqual(TOOLS);
    } finally {
      await client.close();
    }
  });

  it('names the clients it knows when given another, and exits 2', async () => {
    const failed = await run(process.execPath, [BIN, 'mcp', '--print-config', 'emacs'], { cwd: project }).catch((err: { code: number; stderr: string }) => err);
    expect(failed).toMatchObject({ code: 2 });
    expect((failed as { stderr: string }).stderr).toContain('claude-code, claude-desktop, cursor, vscode');
  });
});

describe('npm pack', { timeout: 180_000 }, () => {
  it('ships the sources, migrations, build scripts and the built monitor, and no tests', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { maxBuffer: 16 * 1024 * 1024 });
    const files = (JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]?.files.map((f) => f.path) ?? [];
    for (const needed of [
      'bin/episodic.mjs',
      'src/cli/main.ts',
      'src/main.ts',
      'scripts/build.mjs',
      'scripts/prisma.mjs',
      'prisma/schema.prisma',
      'prisma.config.ts',
      'schema.graphql',
    ]) {
      expect(files).toContain(needed);
    }
    expect(files.some((f) => f.startsWith('prisma/migrations/') && f.endsWith('migration.sql'))).toBe(true);
    expect(files.filter((f) => f.startsWith('test/') || f.startsWith('src/generated/') || f.startsWith('node_modules/'))).toEqual([]);
  });
});
