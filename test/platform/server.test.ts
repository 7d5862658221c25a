// The real HTTP server: health, readiness, authentication, the first types, and GraphiQL.
import { describe, expect, it } from 'vitest';
import { parseToken } from '../../src/auth/keys.ts';
import { createApiKey } from '../../src/auth/store.ts';
import { must } from '../../src/core/must.ts';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';

let t: TestApp;
useApp((app) => (t = app));

const base = () => t.url.replace('/graphql', '');

describe('HTTP server', () => {
  it('answers /healthz and /readyz', async () => {
    const health = await fetch(`${base()}/healthz`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${base()}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', database: 'reachable', migrations: 'applied' });
  });

  it('reports not-ready when the database has pending migrations', async () => {
    await t.services.db.pool.query(`UPDATE "_prisma_migrations" SET rolled_back_at = now()`);
    try {
      const ready = await fetch(`${base()}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ migrations: 'pending' });
    } finally {
      await t.services.db.pool.query(`UPDATE "_prisma_migrations" SET rolled_back_at = NULL`);
    }
  });

  it('refuses unauthenticated requests with an UNAUTHENTICATED error and no data', async () => {
    const res = await t.gql('{ viewer { id } episodes(first: 1) { edges { node { id } } } }', {}, null);
    expect(res.data?.viewer ?? null).toBeNull();
    expect(res.data?.episodes ?? null).toBeNull();
    // The whole document is refused before any field runs (src/http/document-auth.ts): one error.
    expect(res.errors?.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    expect(res.errors?.[0]?.message).toMatch(/Authorization: Bearer/);
  });

  it('says why a key is refused: malformed, unknown, revoked, expired', async () => {
    expect((await t.gql('{ viewer { id } }', {}, 'nonsense')).errors?.[0]?.extensions?.reason).toBe('MALFORMED');
    const unknown = `epk_${'a'.repeat(12)}_${'b'.repeat(43)}`;
    expect((await t.gql('{ viewer { id } }', {}, unknown)).errors?.[0]?.extensions?.reason).toBe('UNKNOWN');
    const created = await t.gql('mutation { createApiKey(name: "temp", scopes: ["read"]) { ... on CreatedApiKey { token key { id } } } }');
    const { token, key } = created.data.createApiKey;
    expect((await t.gql('{ viewer { name } }', {}, token)).data?.viewer?.name).toBe('tenant-a');
    await t.gql('mutation($id: ID!) { revokeApiKey(id: $id) { ... on ApiKey { revokedAt } } }', { id: key.id });
    expect((await t.gql('{ viewer { id } }', {}, token)).errors?.[0]?.extensions?.reason).toBe('REVOKED');
    // The API refuses an expiry in the past, so the expired key is made in the database.
    const expired = await createApiKey(t.database.db.prisma, {
      tenantId: t.keys.tenantId,
      name: 'old',
      scopes: ['read'],
      expiresAt: new Date(Date.now() - 1000),
    });
    expect((await t.gql('{ viewer { id } }', {}, expired.token)).errors?.[0]?.extensions?.reason).toBe('EXPIRED');
  });

  it('never stores or lists a key secret', async () => {
    const created = await t.gql('mutation { createApiKey(name: "listed", scopes: ["write"]) { ... on CreatedApiKey { token } } }');
    const token: string = created.data.createApiKey.token;
    const secret = must(parseToken(token)).secret; // base64url: the secret may itself hold '_'
    const { rows } = await t.services.db.pool.query('SELECT * FROM api_keys');
    expect(JSON.stringify(rows)).not.toContain(secret);
    const listed = await t.gql('{ apiKeys { name prefix scopes } }');
    expect(JSON.stringify(listed)).not.toContain(secret);
    expect(listed.data.apiKeys.map((k: { name: string }) => k.name)).toContain('listed');
  });

  it('forbids admin operations to a read key', async () => {
    const res = await t.gql('{ apiKeys { id } }', {}, t.keys.read);
    expect(res.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it('pages episodes as a relay connection, newest first, within the tenant only', async () => {
    const other = await t.addTenant('tenant-b');
    await t.services.db.prisma.episode.createMany({
      data: [
        ...[1, 2, 3].map((i) => ({ tenantId: t.keys.tenantId, taskDescription: `task ${i}`, taskType: 'code', startedAt: new Date(Date.UTC(2026, 0, i)) })),
        { tenantId: other.tenantId, taskDescription: 'not yours', taskType: 'code' },
      ],
    });
    const q = 'query($after: String) { episodes(first: 2, after: $after) { edges { cursor node { taskDescription } } pageInfo { hasNextPage endCursor } } }';
    const page1 = await t.gql(q, {}, t.keys.read);
    expect(page1.data.episodes.edges.map((e: Json) => e.node.taskDescription)).toEqual(['task 3', 'task 2']);
    expect(page1.data.episodes.pageInfo.hasNextPage).toBe(true);
    const page2 = await t.gql(q, { after: page1.data.episodes.pageInfo.endCursor }, t.keys.read);
    expect(page2.data.episodes.edges.map((e: Json) => e.node.taskDescription)).toEqual(['task 1']);
    expect(page2.data.episodes.pageInfo.hasNextPage).toBe(false);
  });

  it('answers episode(id) with a typed NotFoundError for unknown, malformed and foreign ids', async () => {
    const other = await t.addTenant('tenant-c');
    const foreign = await t.services.db.prisma.episode.create({ data: { tenantId: other.tenantId, taskDescription: 'x', taskType: 'code' } });
    for (const id of [foreign.id, 'not-a-uuid', '00000000-0000-0000-0000-000000000000']) {
      const res = await t.gql('query($id: ID!) { episode(id: $id) { __typename ... on NotFoundError { entity id } } }', { id });
      expect(res.data.episode).toEqual({ __typename: 'NotFoundError', entity: 'Episode', id });
    }
  });

  it('masks unexpected errors and gives a request id to find them in the logs', async () => {
    await t.services.db.pool.query('ALTER TABLE tenants RENAME TO tenants_gone');
    try {
      const res = await fetch(t.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${t.keys.admin}`, 'x-request-id': 'req-123' },
        body: JSON.stringify({ query: '{ viewer { id } }' }),
      });
      expect(res.headers.get('x-request-id')).toBe('req-123');
      const body = (await res.json()) as Json;
      expect(body.errors[0]).toMatchObject({ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: 'req-123' } });
      expect(JSON.stringify(body)).not.toContain('tenants');
    } finally {
      await t.services.db.pool.query('ALTER TABLE tenants_gone RENAME TO tenants');
    }
  });

  it('serves GraphiQL to browsers outside production', async () => {
    const res = await fetch(t.url, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('GraphiQL');
  });
});
