// The MCP server through the official SDK client, over stdio (the real `episodic mcp` binary
// against the running server) and over Streamable HTTP (/mcp): the tools a key sees, a whole run
// recorded through the tools and found again for a similar task, a wrong key, a read key, and
// refused arguments that write nothing.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TenantKeys, type TestApp } from '../support/app.ts';
import { type Connected, call, connect, episodeIds, mcpUrl, type TransportName } from './support.ts';

const READ_TOOLS = ['episode', 'memory_impact', 'relevant_episodes', 'relevant_files', 'relevant_patterns'];
const WRITE_TOOLS = ['complete_episode', 'experiment', 'log_steps', 'start_episode'];

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.stop());

describe.each<TransportName>(['stdio', 'http'])('MCP over %s', (transport) => {
  let keys: TenantKeys;
  let writer: Connected;
  let reader: Connected;
  beforeAll(async () => {
    keys = await t.addTenant(`mcp-${transport}`);
    writer = await connect(t, transport, keys.write);
    reader = await connect(t, transport, keys.read);
  });
  afterAll(async () => {
    await writer?.close();
    await reader?.close();
  });

  it('lists every tool for a write key, each with a description and a JSON schema of its arguments', async () => {
    const { tools } = await writer.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(60);
      expect(tool.inputSchema.type).toBe('object');
      expect(Object.keys(tool.inputSchema.properties ?? {}).length).toBeGreaterThan(0);
    }
    const start = tools.find((tool) => tool.name === 'start_episode');
    expect(start?.inputSchema.required).toContain('task');
    const relevant = tools.find((tool) => tool.name === 'relevant_episodes');
    expect(relevant?.inputSchema.properties?.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 50 });
  });

  it('records a whole run through the tools and finds it for a similar task', async () => {
    const task = `The zanzibar-${transport} gateway drops requests when the upstream times out`;
    const started = await call(writer.client, 'start_episode', { task, language: 'python', domain: `acme/zanzibar-${transport}`, agent: 'test-agent' });
    expect(started.isError, started.text).toBe(false);
    const id = (started.structured as { episode: { id: string } }).episode.id;
    expect(started.text).toContain(id);

    const logged = await call(writer.client, 'log_steps', {
      episodeId: id,
      steps: [
        { tool: 'bash', action: 'pytest tests/test_gateway.py', errorMessage: 'TimeoutError: upstream', errorClass: 'TimeoutError' },
        { tool: 'edit_file', action: 'raise the retry budget in gateway/retry.py', output: 'edited' },
        { tool: 'bash', action: 'pytest tests/test_gateway.py', status: 'success', output: '3 passed' },
      ],
    });
    expect(logged.isError, logged.text).toBe(false);
    expect(logged.structured).toMatchObject({ accepted: 3, rejected: 0 });
    expect(logged.text).toContain('Logged 3 step(s)');

    const done = await call(writer.client, 'complete_episode', {
      episodeId: id,
      outcome: 'success',
      summary: 'retries the upstream call with backoff',
      filesChanged: ['gateway/retry.py'],
    });
    expect(done.isError, done.text).toBe(false);
    expect(done.structured).toMatchObject({ episode: { id, status: 'COMPLETED', outcome: { kind: 'SUCCESS' } } });

    const found = await call(reader.client, 'relevant_episodes', {
      task: `zanzibar-${transport} gateway drops requests on upstream timeout`,
      language: 'python',
    });
    expect(found.isError, found.text).toBe(false);
    const episodes = (found.structured as { episodes: Array<{ episode: { id: string }; score: { strength: number; strengthWord: string } }> }).episodes;
    expect(episodes[0]?.episode.id).toBe(id);
    expect(found.text).toContain(`episode ${id}`);
    // The strength, a calibrated chance, in the structured content and in the text beside it.
    const strength = episodes[0]?.score.strength ?? -1;
    expect(strength).toBeGreaterThan(0);
    expect(strength).toBeLessThan(1);
    expect(found.text).toContain(`${episodes[0]?.score.strengthWord} match: ${Math.round(strength * 100)}% chance it is useful`);
    expect(found.text).toContain('gateway/retry.py');
    expect(found.text).toContain('retries the upstream call with backoff');

    const patterns = await call(reader.client, 'relevant_patterns', { task, language: 'python' });
    expect(patterns.isError, patterns.text).toBe(false);
    expect(patterns.structured).toMatchObject({ __typename: 'RelevantPatterns' });

    const read = await call(reader.client, 'episode', { id });
    expect(read.isError, read.text).toBe(false);
    expect(read.text).toContain('COMPLETED');
    expect(read.text).toContain('ERROR TimeoutError: TimeoutError: upstream');
    expect(read.text).toContain('3 passed');
  });

  it('gives a write key a retrieval id to credit, and credits it on completion', async () => {
    const found = await call(writer.client, 'relevant_episodes', { task: `zanzibar-${transport} gateway timeouts` });
    const retrievalId = (found.structured as { retrievalId: string | null }).retrievalId;
    expect(retrievalId).toBeTruthy();
    expect(found.text).toContain(`Retrieval ${retrievalId}`);
    const started = await call(writer.client, 'start_episode', { task: `zanzibar-${transport} gateway timeouts again` });
    const id = (started.structured as { episode: { id: string } }).episode.id;
    const done = await call(writer.client, 'complete_episode', { episodeId: id, outcome: 'success', summary: 'same fix', usedRetrievals: [retrievalId] });
    expect(done.isError, done.text).toBe(false);
    const credits = await t.gql<{ episode: { retrievalCredits: Array<{ retrievalIds: string[] }> } }>(
      'query($id: ID!) { episode(id: $id) { ... on Episode { retrievalCredits { retrievalIds } } } }',
      { id },
      keys.admin,
    );
    expect(credits.data?.episode.retrievalCredits[0]?.retrievalIds).toEqual([retrievalId]);
  });

  it('shows a read key only the read tools, and refuses it a write tool with nothing written', async () => {
    const { tools } = await reader.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(READ_TOOLS);
    const before = await episodeIds(t, keys.admin);
    const refused = await call(reader.client, 'start_episode', { task: 'a run a read key may not record' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/start_episode not found/);
    expect(await episodeIds(t, keys.admin)).toEqual(before);
    const found = await call(reader.client, 'relevant_episodes', { task: 'anything' });
    expect(found.isError, found.text).toBe(false);
    expect((found.structured as { retrievalId: string | null }).retrievalId).toBeNull();
  });

  it('refuses bad arguments with the field and the limit, and writes nothing', async () => {
    const before = await episodeIds(t, keys.admin);
    const tooMany = await call(writer.client, 'relevant_episodes', { task: 'gateway', limit: 500 });
    expect(tooMany.isError).toBe(true);
    expect(tooMany.text).toMatch(/limit/);
    expect(tooMany.text).toMatch(/50/);

    const missing = await call(writer.client, 'start_episode', { language: 'python' });
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(/task/);

    // Past what the API takes (256 KB): refused by the API's own limit check, with its numbers.
    const huge = await call(writer.client, 'start_episode', { task: 'x'.repeat(300 * 1024) });
    expect(huge.isError).toBe(true);
    expect(huge.text).toMatch(/InputLimitError: .*taskDescription/);
    expect(huge.text).toContain('262144');
    expect(huge.text).toContain('Nothing was written');
    expect(await episodeIds(t, keys.admin)).toEqual(before);

    const started = await call(writer.client, 'start_episode', { task: 'a run whose steps are refused' });
    const id = (started.structured as { episode: { id: string } }).episode.id;
    const noSteps = await call(writer.client, 'log_steps', { episodeId: id, steps: [] });
    expect(noSteps.isError).toBe(true);
    expect(noSteps.text).toMatch(/steps/);
    const longObservation = await call(writer.client, 'log_steps', {
      episodeId: id,
      steps: [
        { tool: 'bash', output: 'fine' },
        { tool: 'bash', observation: 'y'.repeat(20 * 1024) },
      ],
    });
    expect(longObservation.isError).toBe(true);
    expect(longObservation.text).toMatch(/observation/);
    expect(longObservation.text).toContain('10240');
    const noReason = await call(writer.client, 'complete_episode', { episodeId: id, outcome: 'failure' });
    expect(noReason.isError).toBe(true);
    expect(noReason.text).toMatch(/reason/);
    // The error names the argument the agent passed (summary), not the API field it becomes.
    const noSummary = await call(writer.client, 'complete_episode', { episodeId: id, outcome: 'success' });
    expect(noSummary.isError).toBe(true);
    expect(noSummary.text).toMatch(/\bsummary\b/);
    expect(noSummary.text).not.toMatch(/verdict/);
    const episode = await call(writer.client, 'episode', { id });
    expect(episode.text).toMatch(new RegExp(`^Episode ${id}: RUNNING`));
    expect(episode.text).not.toContain('Steps');
  });
});

describe('a wrong key', () => {
  it('is refused by /mcp with 401 before any tool is listed (and /mcp takes POST only)', async () => {
    const res = await fetch(mcpUrl(t), {
      method: 'POST',
      headers: {
        authorization: 'Bearer epk_aaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.json()).toMatchObject({ error: { message: 'The API key is not valid.' } });
    await expect(connect(t, 'http', 'epk_aaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb')).rejects.toThrow(/The API key is not valid/);
    // Stateless: no session stream to open.
    const get = await fetch(mcpUrl(t), { headers: { authorization: `Bearer ${t.keys.read}`, accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
  });

  it('ends `episodic mcp` at start with exit code 1 and the reason on stderr', async () => {
    const child = spawn(process.execPath, ['bin/episodic.mjs', 'mcp'], {
      env: { PATH: process.env.PATH ?? '', EPISODIC_URL: t.url, EPISODIC_API_KEY: 'epk_aaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const [code] = await once(child, 'close');
    expect(code).toBe(1);
    expect(stderr).toBe('episodic: mcp: The API key is not valid. (check --key or EPISODIC_API_KEY)\n');
    expect(stdout).toBe('');
  });
});

describe('episodic mcp', () => {
  it('answers on stdout and exits 0 when the agent closes its stdin', async () => {
    const child = spawn(process.execPath, ['bin/episodic.mjs', 'mcp', '--url', t.url, '--key', t.keys.read], { stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = once(child, 'exit');
    let stdout = '';
    const answered = new Promise<void>((resolve) =>
      child.stdout.on('data', (d) => {
        stdout += d;
        if (stdout.includes('\n')) resolve();
      }),
    );
    const initialize = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } };
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initialize })}\n`);
    await answered;
    expect(JSON.parse(stdout.split('\n')[0] ?? '')).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'episodic' } } });
    child.stdin.end();
    const [code] = await exited;
    expect(code).toBe(0);
  });
});
