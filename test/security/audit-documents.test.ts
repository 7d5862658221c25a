// Audit findings on what a document may do (docs/SECURITY.md, "Audit"): page cursors are bound to
// the tenant; a document is authorised whole before any field runs; read keys never write; and the
// low findings (typed errors for bad input, LIKE wildcards, past expiry, request ids, CORS, enum
// suggestions, graphql-ws rate limits). Real server, real PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeControl as escapeTerminal } from '../../src/cli/errors.ts';
import { startTestApp, type TenantKeys, type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { acked, postRaw, rawSocket, waitFor } from './support.ts';

let t: TestApp;
let b: TenantKeys;
useApp(async (app) => {
  t = app;
  b = await app.addTenant('tenant-b');
});

const START = 'mutation($d: String!) { startEpisode(input: { taskDescription: $d, taskType: "t" }) { ... on StartEpisodePayload { episode { id } } } }';
const PAGE = 'query($after: String) { episodes(first: 10, after: $after) { edges { cursor node { taskDescription } } } }';

async function start(description: string, token = t.keys.write): Promise<string> {
  const res = await t.gql(START, { d: description }, token);
  return res.data.startEpisode.episode.id;
}

async function count(table: string, tenantId = t.keys.tenantId): Promise<number> {
  const { rows } = await t.services.db.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = $1`, [tenantId]);
  return rows[0].n;
}

describe('page cursors are bound to the tenant', () => {
  it("answers another tenant's cursor, a random one and a malformed one with BAD_USER_INPUT and no rows", async () => {
    for (const d of ['a1', 'a2', 'a3']) await start(d);
    await start('b1', b.write);
    const foreign = (await t.gql(PAGE, {}, b.read)).data.episodes.edges[0].cursor;
    const random = Buffer.from(`GPC:S:${crypto.randomUUID()}`).toString('base64');
    for (const after of [foreign, random, 'not a cursor %%%']) {
      const res = await t.gql(PAGE, { after }, t.keys.read);
      expect(res.data?.episodes ?? null).toBeNull();
      expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
    const patterns = await t.gql('query($after: String) { patterns(after: $after) { edges { cursor } } }', { after: foreign }, t.keys.read);
    expect(patterns.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    // The tenant's own cursors still page.
    const own = (await t.gql(PAGE, {}, t.keys.read)).data.episodes.edges;
    const next = await t.gql(PAGE, { after: own[0].cursor }, t.keys.read);
    expect(next.data.episodes.edges.map((e: Json) => e.node.taskDescription)).toEqual(own.slice(1).map((e: Json) => e.node.taskDescription));
  });
});

describe('whole-document authorization and read-only reads', () => {
  it('refuses a document with one forbidden field before the allowed one writes', async () => {
    const before = await count('episodes');
    const res = await postRaw(
      t.url,
      JSON.stringify({
        query:
          'mutation { startEpisode(input: { taskDescription: "x", taskType: "t" }) { __typename } createApiKey(name: "k", scopes: ["read"]) { __typename } }',
      }),
      t.keys.write,
    );
    expect(res.status).toBe(403);
    expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(res.body.errors[0].extensions.fields).toEqual(['createApiKey']);
    expect(await count('episodes')).toBe(before);
  });

  it('records no receipt and no ledger event for a read key, and one for a write key', async () => {
    const q = `query { ${[1, 2, 3].map((i) => `r${i}: relevantEpisodes(task: { description: "a1" }) { ... on RelevantEpisodes { retrievalId } }`).join(' ')} }`;
    const [events, receipts] = [await count('ledger_events'), await count('retrievals')];
    const read = await t.gql(q, {}, t.keys.read);
    expect(read.errors).toBeUndefined();
    expect(read.data.r1.retrievalId).toBeNull();
    expect([await count('ledger_events'), await count('retrievals')]).toEqual([events, receipts]);
    const written = await t.gql('{ relevantEpisodes(task: { description: "a1" }) { ... on RelevantEpisodes { retrievalId } } }', {}, t.keys.write);
    expect(written.data.relevantEpisodes.retrievalId).toEqual(expect.any(String));
    expect(await count('retrievals')).toBe(receipts + 1);
  });
});

describe('typed errors for bad input', () => {
  it("refuses NUL in a read's filter, variable or literal, with BAD_USER_INPUT naming the field", async () => {
    const byVariable = await t.gql('query($f: EpisodeFilter) { episodes(filter: $f) { edges { cursor } } }', { f: { text: 'a\u0000b' } }, t.keys.read);
    expect(byVariable.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: '$f.text' });
    const byLiteral = await t.gql('{ episodes(filter: { domain: "a\\u0000b" }) { edges { cursor } } }', {}, t.keys.read);
    expect(byLiteral.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'episodes.filter.domain' });
  });

  it('refuses a 3,000-deep list literal with GRAPHQL_PARSE_FAILED before authentication', async () => {
    const deep = `${'['.repeat(3000)}"x"${']'.repeat(3000)}`;
    const res = await postRaw(t.url, JSON.stringify({ query: `{ episodes(filter: { tags: ${deep} }) { edges { cursor } } }` }), null);
    expect(res.body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
  });

  it('gives every error an extensions.code', async () => {
    const bodies = [
      '{not json',
      JSON.stringify({}),
      JSON.stringify({ query: '{ nope }' }),
      JSON.stringify({ query: '{ episodes(' }),
      JSON.stringify({ query: 'query($n: Int!) { episodes(first: $n) { edges { cursor } } }' }),
      JSON.stringify({ query: 'query($n: Int!) { episodes(first: $n) { edges { cursor } } }', variables: { n: 'x' } }),
      JSON.stringify([{ query: '{ viewer { id } }' }, { query: '{ viewer { id } }' }]),
      JSON.stringify({ query: '{ viewer { id } }', operationName: 'Missing' }),
      JSON.stringify({ query: 'query A { viewer { id } } query B { viewer { id } }' }),
    ];
    for (const body of bodies) {
      const res = await postRaw(t.url, body, t.keys.read);
      expect(res.body?.errors?.length, body).toBeGreaterThan(0);
      for (const e of res.body.errors) expect(e.extensions?.code, `${body}: ${e.message}`).toEqual(expect.any(String));
    }
  });

  it('matches % and _ in episodes(filter: { text }) literally', async () => {
    await start('100% sure');
    await start('1000 sure');
    await start('a_b');
    await start('axb');
    const texts = async (text: string) =>
      (
        await t.gql('query($f: EpisodeFilter) { episodes(filter: $f) { edges { node { taskDescription } } } }', { f: { text } }, t.keys.read)
      ).data.episodes.edges.map((e: Json) => e.node.taskDescription);
    expect(await texts('100%')).toEqual(['100% sure']);
    expect(await texts('a_b')).toEqual(['a_b']);
  });

  it('refuses keys and leases that would expire in the past', async () => {
    const past = new Date(Date.now() - 60_000).toISOString();
    const key = await t.gql(
      'mutation($e: DateTime) { createApiKey(name: "k", scopes: ["read"], expiresAt: $e) { __typename ... on InputLimitError { violations { field } } } }',
      { e: past },
      t.keys.admin,
    );
    expect(key.data.createApiKey).toEqual({ __typename: 'InputLimitError', violations: [{ field: 'expiresAt' }] });
    const item = await t.gql('mutation { createWorkItem(title: "w") { ... on WorkItemPayload { workItem { id } } } }', {}, t.keys.write);
    const lease = await t.gql(
      'mutation($w: ID!, $e: DateTime!) { issueLease(workItemId: $w, issuer: "i", holder: "h", expiresAt: $e) { __typename ... on InputLimitError { violations { field } } } }',
      { w: item.data.createWorkItem.workItem.id, e: past },
      t.keys.write,
    );
    expect(lease.data.issueLease).toEqual({ __typename: 'InputLimitError', violations: [{ field: 'expiresAt' }] });
  });
});

describe('headers', () => {
  it('uses a client x-request-id only when it is a short plain token', async () => {
    const sent = async (id: string) => (await postRaw(t.url, JSON.stringify({ query: '{ viewer { id } }' }), null, { 'x-request-id': id })).requestId;
    expect(await sent('trace-42.abc:1')).toBe('trace-42.abc:1');
    for (const bad of ['has spaces', 'x'.repeat(101), '<script>', 'a"b']) {
      const echoed = await sent(bad);
      expect(echoed).not.toBe(bad);
      expect(echoed).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('sends no CORS grant to an origin that is not listed', async () => {
    const res = await fetch(t.url, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    const post = await postRaw(t.url, JSON.stringify({ query: '{ viewer { id } }' }), t.keys.read, { origin: 'https://evil.example' });
    expect(post.status).toBe(200);
  });
});

describe('production server', () => {
  let p: TestApp;
  beforeAll(async () => {
    p = await startTestApp({ NODE_ENV: 'production', CORS_ORIGINS: 'https://app.example', RATE_LIMIT_PER_MINUTE: '3' });
  });
  afterAll(() => p?.stop());

  it('suggests no enum values', async () => {
    const byVariable = await p.gql('query($s: [EpisodeStatus!]) { episodes(filter: { status: $s }) { edges { cursor } } }', { s: ['RUNNIN'] }, p.keys.read);
    const byLiteral = await p.gql('{ episodes(filter: { status: [RUNNIN] }) { edges { cursor } } }', {}, p.keys.read);
    for (const res of [byVariable, byLiteral]) {
      expect(res.errors?.length).toBeGreaterThan(0);
      for (const e of res.errors ?? []) expect(e.message).not.toMatch(/Did you mean|RUNNING/);
    }
  });

  it('grants CORS to a listed origin only', async () => {
    const allowed = await fetch(p.url, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const other = await fetch(p.url, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(other.headers.get('access-control-allow-origin')).not.toBe('https://evil.example');
  });

  it('answers a rate-limited graphql-ws operation with an error and keeps the socket open', async () => {
    const s = rawSocket(p.url, p.keys.read);
    await acked(s);
    for (const id of ['1', '2', '3', '4', '5']) s.send({ id, type: 'subscribe', payload: { query: '{ viewer { id } }' } });
    const refused = await waitFor(() => s.messages.find((m) => m.type === 'error'), 'a RATE_LIMITED error message');
    expect(refused.payload[0].extensions.code).toBe('RATE_LIMITED');
    const stillOpen = await Promise.race([s.closed.then(() => false), new Promise((r) => setTimeout(() => r(true), 300))]);
    expect(stillOpen).toBe(true);
    s.close();
  });
});

it('escapes terminal control characters in text the CLI prints', () => {
  expect(escapeTerminal('ok\x1b[2J\x1b]0;pwned\x07 \u009b31m\nnext\tcol')).toBe('ok\\u001b[2J\\u001b]0;pwned\\u0007 \\u009b31m\nnext\tcol');
});
