// Work is charged by its cost at the doors outside GraphQL (issue 50): an OTLP export costs one
// unit of its key's rate limit per span, an MCP POST one per JSON-RPC call, checked before any span
// is ingested or any call runs; a refusal is one answer with Retry-After, and nothing is stored.
// Real server, real PostgreSQL, real HTTP.
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { type TestApp, useApp } from '../support/app.ts';

let t: TestApp;
let root: string;
/** RATE_LIMIT_PER_MINUTE of this server. */
const PER_MINUTE = 100;
useApp(
  (app) => {
    t = app;
    root = app.url.replace(/\/graphql$/, '');
  },
  { RATE_LIMIT_PER_MINUTE: String(PER_MINUTE) },
);

/** One trace of `spans` spans: a root and its tool calls. */
function trace(spans: number): unknown {
  const traceId = randomBytes(16).toString('hex');
  const rootId = randomBytes(8).toString('hex');
  const now = BigInt(Date.now()) * 1_000_000n;
  const span = (i: number) => ({
    traceId,
    spanId: i === 0 ? rootId : randomBytes(8).toString('hex'),
    ...(i === 0 ? {} : { parentSpanId: rootId }),
    name: i === 0 ? 'invoke_agent charged' : `execute_tool sh ${i}`,
    kind: 1,
    startTimeUnixNano: String(now + BigInt(i) * 1000n),
    endTimeUnixNano: String(now + BigInt(i) * 1000n + 500n),
    attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: i === 0 ? 'invoke_agent' : 'execute_tool' } }],
    status: { code: 1 },
  });
  return { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans: Array.from({ length: spans }, (_, i) => span(i)) }] }] };
}

async function post(path: string, token: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${root}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> };
}

async function episodes(tenantId: string): Promise<number> {
  const { rows } = await t.services.db.pool.query('SELECT count(*)::int AS n FROM episodes WHERE tenant_id = $1', [tenantId]);
  return rows[0].n;
}

it('charges an OTLP export one unit of the rate limit per span, refusing one past the allowance before ingesting any', async () => {
  const keys = await t.addTenant('otlp-charged');
  const over = await post('/v1/traces', keys.write, trace(PER_MINUTE + 1));
  expect(over.status).toBe(429);
  expect(over.retryAfter).toMatch(/^\d+$/);
  expect(over.body.message).toMatch(new RegExp(`limit is ${PER_MINUTE} requests a minute .*one per span \\(this one ${PER_MINUTE + 1}\\)`));
  expect(await episodes(keys.tenantId)).toBe(0);
  expect((await post('/v1/traces', keys.write, trace(60))).status).toBe(200);
  expect(await episodes(keys.tenantId)).toBe(1);
  // 60 of 100 used: 41 more spans pass the allowance, a GraphQL request (one unit) still fits.
  expect((await post('/v1/traces', keys.write, trace(41))).status).toBe(429);
  expect((await t.gql('{ viewer { id } }', {}, keys.write)).errors).toBeUndefined();
  expect(await episodes(keys.tenantId)).toBe(1);
});

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' };
const listCall = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_episodes', arguments: {} } });

it('charges an MCP POST one unit per JSON-RPC call of its batch, refusing a batch past the allowance before any call runs', async () => {
  const keys = await t.addTenant('mcp-charged');
  const over = await post(
    '/mcp',
    keys.read,
    Array.from({ length: PER_MINUTE + 1 }, (_, i) => listCall(i)),
    MCP_HEADERS,
  );
  expect(over.status).toBe(429);
  expect(over.retryAfter).toMatch(/^\d+$/);
  expect(over.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringMatching(/carries 101/) } });
  const batch = await post(
    '/mcp',
    keys.read,
    Array.from({ length: 90 }, (_, i) => listCall(i)),
    MCP_HEADERS,
  );
  expect(batch.status).toBe(200);
  expect(batch.body).toHaveLength(90);
  // 90 calls counted once each at the door (their operations took nothing more): 10 units are left.
  const ten = Array.from({ length: 10 }, () => t.gql('{ viewer { id } }', {}, keys.read));
  for (const answer of await Promise.all(ten)) expect(answer.errors).toBeUndefined();
  expect((await t.gql('{ viewer { id } }', {}, keys.read)).errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
});
