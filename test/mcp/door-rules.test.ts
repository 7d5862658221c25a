// MCP's own door rules with the official SDK client: /mcp checks Host and Origin against
// MCP_ALLOWED_HOSTS / MCP_ALLOWED_ORIGINS (DNS rebinding, as the Streamable HTTP transport
// requires), and arguments nested past the JSON depth limit are refused with the typed
// InputLimitError over both transports while the server keeps serving.
import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { type Connected, call, connect, mcpUrl, type TransportName } from './support.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.stop());

function deepParameters(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i += 1) value = { nested: value };
  return value;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** POSTs a JSON-RPC body (an initialize by default) to /mcp over node:http, which lets a test set Host. */
function rawInitialize(headers: Record<string, string>, body = INITIALIZE): Promise<{ status: number; body: string }> {
  const url = mcpUrl(t);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${t.keys.write}`, ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('/mcp Host and Origin', () => {
  it('refuses another site as Origin (SDK client) and as Host, naming the setting, and serves localhost', async () => {
    const client = new Client({ name: 'evil-page', version: '1.0.0' });
    const evil = new StreamableHTTPClientTransport(mcpUrl(t), {
      requestInit: { headers: { authorization: `Bearer ${t.keys.write}`, origin: 'http://evil.example' } },
    });
    await expect(client.connect(evil)).rejects.toThrow(/403|Origin http:\/\/evil\.example is not allowed/);
    const host = await rawInitialize({ host: 'evil.example' });
    expect(host.status).toBe(403);
    expect(host.body).toContain('MCP_ALLOWED_HOSTS');
    const origin = await rawInitialize({ origin: 'http://evil.example' });
    expect(origin.status).toBe(403);
    expect(origin.body).toContain('MCP_ALLOWED_ORIGINS');
    const local = await rawInitialize({ origin: `http://localhost:${mcpUrl(t).port}` });
    expect(local.status).toBe(200);
  });
});

describe('/mcp arguments nested 50,000 deep', () => {
  it('answers the typed InputLimitError (the JSON text built by hand: no serialiser goes that deep)', async () => {
    const deep = `${'{"n":'.repeat(50_000)}1${'}'.repeat(50_000)}`;
    const episodeId = '00000000-0000-4000-8000-000000000000';
    const body = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"log_steps","arguments":{"episodeId":"${episodeId}","steps":[{"kind":"tool_call","tool":"bash","parameters":${deep}}]}}}`;
    const answer = await rawInitialize({}, body);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('InputLimitError: arguments nest arrays/objects deeper than 64 levels');
  });
});

describe.each<TransportName>(['stdio', 'http'])('MCP arguments over %s', (transport) => {
  let writer: Connected;
  beforeAll(async () => {
    writer = await connect(t, transport, t.keys.write);
  });
  afterAll(() => writer?.close());

  // 1,000 levels: what the SDK client itself can serialise (V8's JSON.stringify overflows near 4,000); 50,000 below, raw.
  it('refuses parameters nested 1,000 deep with InputLimitError, writes nothing, and keeps serving', async () => {
    const started = await call(writer.client, 'start_episode', { task: `depth over ${transport}` });
    const episodeId = String((started.structured.episode as { id: string }).id);
    const deep = await call(writer.client, 'log_steps', { episodeId, steps: [{ kind: 'tool_call', tool: 'bash', parameters: deepParameters(1_000) }] });
    expect(deep.isError).toBe(true);
    expect(deep.text).toMatch(/^InputLimitError: arguments nest arrays\/objects deeper than 64 levels/);
    const ok = await call(writer.client, 'log_steps', { episodeId, steps: [{ kind: 'tool_call', tool: 'bash', parameters: deepParameters(3) }] });
    expect(ok.isError).toBe(false);
    const { rows } = await t.services.db.pool.query('SELECT count(*)::int AS n FROM steps WHERE episode_id = $1', [episodeId]);
    expect(rows[0].n).toBe(1);
  });
});

describe('episodic mcp and a line over its length limit', () => {
  let writer: Connected;
  beforeAll(async () => {
    writer = await connect(t, 'stdio', t.keys.write);
  });
  afterAll(() => writer?.close());

  // The SDK's StdioServerTransport closes on a message over its 10 MiB buffer: stdio-lines.ts answers it first.
  it('answers a 17 MiB log_steps with the typed InputLimitError naming the limit, writes nothing, and keeps serving', async () => {
    const started = await call(writer.client, 'start_episode', { task: 'a 17 MiB argument' });
    const episodeId = String((started.structured.episode as { id: string }).id);
    const huge = await call(writer.client, 'log_steps', { episodeId, steps: [{ kind: 'tool_call', tool: 'bash', output: 'o'.repeat(17 * 1024 * 1024) }] });
    expect(huge.isError).toBe(true);
    expect(huge.text).toMatch(/^InputLimitError: arguments: the message is \d+ bytes; the limit is 10485759 bytes/);
    const ok = await call(writer.client, 'log_steps', { episodeId, steps: [{ kind: 'tool_call', tool: 'bash', output: 'fits' }] });
    expect(ok.isError).toBe(false);
    const { rows } = await t.services.db.pool.query('SELECT count(*)::int AS n FROM steps WHERE episode_id = $1', [episodeId]);
    expect(rows[0].n).toBe(1);
  });
});
