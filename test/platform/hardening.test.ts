// Hardening: oversized bodies, deep and wide queries, alias floods, batches, CSRF and the per-key
// rate limit are refused with clear errors, while other keys keep working.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { chunkedPost, piecesOf } from '../support/http.ts';
import type { Json } from '../support/json.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ MAX_BODY_BYTES: String(64 * 1024) });
});
afterAll(() => t.stop());

async function post(body: string, token = t.keys.read, headers: Record<string, string> = {}, url = t.url) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers }, body });
  return { status: res.status, body: (await res.json().catch(() => null)) as Json };
}

/** Waits, when less than `ms` is left of the current clock minute, for the next one to begin. */
async function awayFromMinuteEnd(ms: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < ms) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

describe('hardening', () => {
  it('refuses an oversized body with 413', async () => {
    const res = await post(JSON.stringify({ query: '{ viewer { id } }', variables: { pad: 'x'.repeat(70 * 1024) } }), t.keys.admin);
    expect(res.status).toBe(413);
    expect(res.body.errors[0].extensions.code).toBe('REQUEST_ENTITY_TOO_LARGE');
  });

  it('counts a chunked body: under the limit it is served, over it 413', async () => {
    const small = await chunkedPost(t.url, t.keys.admin, piecesOf(JSON.stringify({ query: '{ viewer { id } }', variables: { pad: 'x'.repeat(20 * 1024) } })));
    expect(small.status).toBe(200);
    expect(small.body.data.viewer.id).toEqual(expect.any(String));
    const large = await chunkedPost(t.url, t.keys.admin, piecesOf(JSON.stringify({ query: '{ viewer { id } }', variables: { pad: 'x'.repeat(70 * 1024) } })));
    expect(large.status).toBe(413);
    expect(large.body.errors[0].extensions.code).toBe('REQUEST_ENTITY_TOO_LARGE');
  });

  it("refuses a malformed Content-Length with 400 (node's HTTP parser, before any GraphQL work)", async () => {
    const u = new URL(t.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '12, 12' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('{"query":"{ __typename }"}'.slice(0, 12));
    });
    expect(status).toBe(400);
  });

  it('refuses a query deeper than the limit', async () => {
    let selection = 'id';
    for (let i = 0; i < 14; i++) selection = `parentEpisode { ${selection} }`;
    const res = await post(JSON.stringify({ query: `{ episodes(first: 1) { edges { node { ${selection} } } } }` }), t.keys.admin);
    expect(res.body.errors[0].message).toMatch(/depth/i);
  });

  it('refuses an alias flood', async () => {
    const aliases = Array.from({ length: 40 }, (_, i) => `a${i}: viewer { id }`).join(' ');
    const res = await post(JSON.stringify({ query: `{ ${aliases} }` }), t.keys.admin);
    expect(res.body.errors[0].message).toMatch(/alias/i);
  });

  it('answers every query-limit refusal as a validation error: 400 under application/graphql-response+json, 200 under application/json', async () => {
    const aliases = Array.from({ length: 40 }, (_, i) => `a${i}: viewer { id }`).join(' ');
    let deep = 'id';
    for (let i = 0; i < 14; i++) deep = `parentEpisode { ${deep} }`;
    const refused = [
      `{ ${aliases} }`,
      `{ episodes(first: 1) { edges { node { ${deep} } } } }`,
      `{ viewer { id ${'@include(if: true) '.repeat(60)} } }`,
      '{ episodes(first: 100) { edges { node { steps(first: 1000) { edges { node { id } } } workItem { episodes(first: 100) { edges { node { steps(first: 1000) { edges { node { id } } } } } } } } } } }',
      '{ viewer { idx } }',
    ];
    for (const query of refused) {
      const body = JSON.stringify({ query });
      const spec = await post(body, t.keys.admin, { accept: 'application/graphql-response+json' });
      expect(spec.status, `${query.slice(0, 40)}: ${JSON.stringify(spec.body)}`).toBe(400);
      expect(spec.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(spec.body.errors[0].extensions.http).toBeUndefined();
      const legacy = await post(body, t.keys.admin, { accept: 'application/json' });
      expect(legacy.status).toBe(200);
      expect(legacy.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    }
  });

  it('refuses batched operations', async () => {
    const res = await post(JSON.stringify([{ query: '{ viewer { id } }' }, { query: '{ viewer { id } }' }]), t.keys.admin);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.body?.data).toBeUndefined();
  });

  it('requires the CSRF header on GET requests', async () => {
    const url = `${t.url}?query=${encodeURIComponent('{ viewer { id } }')}`;
    const bare = await fetch(url, { headers: { authorization: `Bearer ${t.keys.admin}`, accept: 'application/json' } });
    expect(bare.status).toBe(403);
    const ok = await fetch(url, { headers: { authorization: `Bearer ${t.keys.admin}`, accept: 'application/json', 'x-graphql-yoga-csrf': '1' } });
    expect(((await ok.json()) as Json).data.viewer.id).toBe(t.keys.tenantId);
  });

  it('passes an ordinary relay query over an episode and its steps', async () => {
    const res = await post(
      JSON.stringify({
        query:
          '{ episodes(first: 20) { edges { cursor node { id status budgetUsage { resource used limit } steps(first: 50) { edges { node { stepNumber tool result } } pageInfo { hasNextPage } } } } pageInfo { endCursor } } }',
      }),
      t.keys.admin,
    );
    expect(res.body.errors).toBeUndefined();
  });

  it('limits requests per key (across processes, counted in PostgreSQL) without affecting other keys', async () => {
    // The limit counts per fixed minute (src/auth/rate-limit.ts): the two apps' requests must fall in
    // one. A run that started near a minute's end met a fresh window in the second app (CI, 08:51).
    await awayFromMinuteEnd(25_000);
    const limitedApp = await startTestApp({ RATE_LIMIT_PER_MINUTE: '5' });
    const other = await limitedApp.addTenant('rate-other');
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await post(JSON.stringify({ query: '{ viewer { id } }' }), limitedApp.keys.write, {}, limitedApp.url));
    const limited = answers.filter((a) => a.body.errors?.[0]?.extensions?.code === 'RATE_LIMITED');
    expect(limited.length).toBeGreaterThanOrEqual(2);
    expect(must(limited[0]).status).toBe(429);
    expect(must(limited[0]).body.errors[0].extensions.retryAfterMs).toBeGreaterThan(0);
    const second = await startTestApp({ RATE_LIMIT_PER_MINUTE: '5' }, { shareDatabaseOf: limitedApp });
    try {
      expect((await post(JSON.stringify({ query: '{ viewer { id } }' }), limitedApp.keys.write, {}, second.url)).status).toBe(429);
      expect((await post(JSON.stringify({ query: '{ viewer { id } }' }), other.read, {}, second.url)).body.data.viewer.id).toBe(other.tenantId);
    } finally {
      await second.stop();
      await limitedApp.stop();
    }
  });
});
