// Scopes and keys: a read key writes nothing, a write key administers nothing, a key without a
// scope reads nothing, revoked and expired keys are refused over HTTP and WebSocket (an open socket
// is closed once its key is revoked or expires), and the API key lifecycle (secret shown once, list
// without it, revoke, expiry, lastUsedAt) leaves api_key.* events in the tenant's ledger.
// Every operation is generated from schema.graphql, so a new one is covered without a new case.
// Also: test/platform/server.test.ts (refusal reasons over HTTP, secret never stored),
// test/platform/websocket.test.ts and test/ledger-live/auth.test.ts (4403 for unknown keys,
// subscribe-time refusal).
import { type GraphQLField, type GraphQLInputType, getNamedType, isEnumType, isInputObjectType, isLeafType, isListType, isNonNullType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret, parseToken, type Scope } from '../../src/auth/keys.ts';
import { createApiKey } from '../../src/auth/store.ts';
import { keyCreate, keyRevoke } from '../../src/cli/admin.ts';
import { must } from '../../src/core/must.ts';
import { schema as liveSchema } from '../../src/graphql/schema.ts';
import { waitUntil, watch } from '../ledger-live/support.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { acked, operationsOf, post, printedSchema, type Root, rawSocket, Snapshotter, waitFor } from './support.ts';

const KEY_RECHECK_MS = 200;
/**
 * What a loaded 2-core machine adds to a timer before it fires: the bounds below still tell a
 * recheck every KEY_RECHECK_MS from the default (5 s) and from none at all.
 */
const BUSY_SLACK_MS = 3_000;
const schema = printedSchema();

let t: TestApp;
let snapshots: Snapshotter;
/** Real rows of tenant A, so an operation that slipped past its scope check would really write. */
const ids = { episode: '', workItem: '', lease: '', apiKey: '' };

beforeAll(async () => {
  t = await startTestApp({ KEY_RECHECK_MS: String(KEY_RECHECK_MS), CHECKPOINT_INTERVAL_MS: '3600000', LEARNING_WORKERS: '0' });
  const gql = (q: string, v: Record<string, unknown> = {}) => t.gql(q, v, t.keys.admin).then((r) => r.data);
  ids.workItem = (await gql('mutation { createWorkItem(title: "w") { ... on WorkItemPayload { workItem { id } } } }')).createWorkItem.workItem.id;
  ids.lease = (
    await gql(
      'mutation($w: ID!) { issueLease(workItemId: $w, issuer: "i", holder: "h", expiresAt: "2099-01-01T00:00:00Z") { ... on LeasePayload { lease { id } } } }',
      { w: ids.workItem },
    )
  ).issueLease.lease.id;
  ids.episode = (
    await gql('mutation { startEpisode(input: { taskDescription: "t", taskType: "x" }) { ... on StartEpisodePayload { episode { id } } } }')
  ).startEpisode.episode.id;
  ids.apiKey = (await createApiKey(t.database.db.prisma, { tenantId: t.keys.tenantId, name: 'spare', scopes: ['read'] })).id;
  snapshots = await Snapshotter.create(t.services.db.pool, { skipTables: ['ledger_checkpoints'], skipColumns: { api_keys: ['last_used_at'] } });
});
afterAll(() => t.stop());

// ---- one valid operation per field, from the schema ----

function value(type: GraphQLInputType, argName: string, field: string): unknown {
  if (isNonNullType(type)) return value(type.ofType, argName, field);
  if (isListType(type)) return [value(type.ofType, argName, field)];
  if (isEnumType(type)) return must(type.getValues()[0]).name;
  if (isInputObjectType(type)) {
    const required = Object.values(type.getFields()).filter((f) => isNonNullType(f.type) && f.defaultValue === undefined);
    return Object.fromEntries(required.map((f) => [f.name, value(f.type, f.name, field)]));
  }
  switch (getNamedType(type).name) {
    case 'ID':
      if (field === 'revokeApiKey') return ids.apiKey;
      if (field === 'revokeLease' || field === 'lease') return ids.lease;
      if (argName === 'workItemId' || field === 'workItem' || field === 'resumeWorkItem') return ids.workItem;
      return ids.episode;
    case 'String':
      return argName === 'scopes' ? 'read' : 'x';
    case 'Int':
      return 1;
    case 'Float':
      return 0.5;
    case 'Boolean':
      return true;
    case 'DateTime':
      return '2099-01-01T00:00:00.000Z';
    case 'JSON':
      return {};
    case 'BigInt':
      return '1';
    default:
      throw new Error(`no value for ${String(type)}`);
  }
}

interface Operation {
  root: Root;
  name: string;
  query: string;
  variables: Record<string, unknown>;
}

/** The field called with its required arguments (real ids of tenant A), selecting __typename. */
function operation(root: Root, name: string): Operation {
  const type = root === 'Query' ? schema.getQueryType() : root === 'Mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  const field: GraphQLField<unknown, unknown> = must(must(type).getFields()[name]);
  const args = field.args.filter((a) => isNonNullType(a.type) && a.defaultValue === undefined);
  const vars = args.map((a) => `$${a.name}: ${String(a.type)}`).join(', ');
  const call = args.map((a) => `${a.name}: $${a.name}`).join(', ');
  const selection = isLeafType(getNamedType(field.type)) ? '' : '{ __typename }';
  const keyword = root === 'Query' ? 'query' : root === 'Mutation' ? 'mutation' : 'subscription';
  return {
    root,
    name,
    query: `${keyword}${vars ? `(${vars})` : ''} { ${name}${call ? `(${call})` : ''} ${selection} }`,
    variables: Object.fromEntries(args.map((a) => [a.name, value(a.type, a.name, name)])),
  };
}

const operations = (root: Root) => operationsOf(root, schema).map((name) => operation(root, name));

/** The operations only an admin key may call, as the scope plugin sees them. */
function adminOperations(): string[] {
  const found: string[] = [];
  for (const [root, type] of [
    ['Query', liveSchema.getQueryType()],
    ['Mutation', liveSchema.getMutationType()],
    ['Subscription', liveSchema.getSubscriptionType()],
  ] as const) {
    for (const [name, field] of Object.entries(must(type).getFields())) {
      if ((field.extensions as { pothosOptions?: { authScopes?: { admin?: boolean } } }).pothosOptions?.authScopes?.admin) found.push(`${root}.${name}`);
    }
  }
  return found.sort();
}

async function call(op: Operation, token: string | null) {
  return post(t, op.query, op.variables, token);
}

function codes(res: { body: Json }): string[] {
  return (res.body?.errors ?? []).map((e: Json) => e.extensions?.code);
}

describe('scopes', () => {
  it('refuses every mutation to a read key with FORBIDDEN and writes nothing', async () => {
    const before = await snapshots.take(t.keys.tenantId);
    const mutations = operations('Mutation');
    expect(mutations.length).toBeGreaterThan(15);
    for (const op of mutations) {
      const res = await call(op, t.keys.read);
      expect(codes(res), `${op.name}: ${JSON.stringify(res.body)}`).toEqual(['FORBIDDEN']);
      expect(res.body.data?.[op.name] ?? null, op.name).toBeNull();
      expect(res.status, op.name).toBe(403);
      // The refusal names the scope to ask for, not just "a scope".
      expect(res.body.errors?.[0]?.message, op.name).toMatch(
        new RegExp(`^This API key \\(scopes read\\) lacks the (write|admin)( or admin)? scope ${op.name} needs`),
      );
    }
    expect(await snapshots.take(t.keys.tenantId)).toEqual(before);
  });

  it('lets the same documents past the scope check with a write key (so the refusals above were the scope)', async () => {
    const admin = new Set(adminOperations());
    for (const op of operations('Mutation').filter((o) => !admin.has(`Mutation.${o.name}`))) {
      const res = await call(op, t.keys.write);
      expect(codes(res), `${op.name}: ${JSON.stringify(res.body)}`).toEqual([]);
      expect(res.body.data[op.name].__typename, op.name).toBeTruthy();
    }
  });

  it('keeps admin operations from write and read keys, not from admin keys', async () => {
    expect(adminOperations()).toEqual([
      'Mutation.createApiKey',
      'Mutation.forgetEpisode',
      'Mutation.forgetSteps',
      'Mutation.revokeApiKey',
      'Mutation.setRetention',
      'Query.apiKeys',
    ]);
    const before = await snapshots.take(t.keys.tenantId);
    for (const name of adminOperations()) {
      const [root, field] = name.split('.') as [Root, string];
      const op = operation(root, field);
      if (field === 'createApiKey') op.variables.scopes = ['admin'];
      for (const token of [t.keys.write, t.keys.read]) expect(codes(await call(op, token)), name).toEqual(['FORBIDDEN']);
    }
    expect(await snapshots.take(t.keys.tenantId)).toEqual(before);
    for (const name of adminOperations()) {
      const [root, field] = name.split('.') as [Root, string];
      expect(codes(await call(operation(root, field), t.keys.admin)), name).toEqual([]);
    }
  });

  it('refuses every query and subscription to a key without scopes, at subscribe time', async () => {
    const scopeless = await createApiKey(t.database.db.prisma, { tenantId: t.keys.tenantId, name: 'none', scopes: [] });
    for (const op of operations('Query')) {
      const res = await call(op, scopeless.token);
      expect(codes(res), `${op.name}: ${JSON.stringify(res.body)}`).toEqual(['FORBIDDEN']);
    }
    const client = t.wsClient(scopeless.token);
    const subscriptions = operations('Subscription');
    expect(subscriptions.length).toBeGreaterThan(0);
    for (const op of subscriptions) {
      const w = watch(client, op.query, op.variables);
      await waitUntil(() => w.done, `${op.name} refused`);
      expect(w.values, op.name).toEqual([]);
      expect(w.results[0]?.errors?.[0]?.extensions?.code, op.name).toBe('FORBIDDEN');
    }
  });

  it('answers every query and mutation without a key with UNAUTHENTICATED (401)', async () => {
    for (const op of [...operations('Query'), ...operations('Mutation')]) {
      const res = await call(op, null);
      expect(codes(res), op.name).toEqual(['UNAUTHENTICATED']);
      expect(res.status, op.name).toBe(401);
    }
  });
});

// ---- revoked and expired keys ----

/** How the socket closed, or null if it is still open after `ms` (so a missing recheck fails fast). */
function closedWithin(s: ReturnType<typeof rawSocket>, ms: number) {
  return Promise.race([s.closed, new Promise<null>((r) => setTimeout(() => r(null), ms))]);
}

async function newKey(scopes: string[], expiresAt?: string): Promise<{ token: string; id: string }> {
  // The API refuses an expiry in the past: such a key is made in the database.
  if (expiresAt && Date.parse(expiresAt) <= Date.now()) {
    const key = await createApiKey(t.database.db.prisma, { tenantId: t.keys.tenantId, name: 'k', scopes: scopes as Scope[], expiresAt: new Date(expiresAt) });
    return { token: key.token, id: key.id };
  }
  const res = await t.gql(
    'mutation($s: [String!]!, $e: DateTime) { createApiKey(name: "k", scopes: $s, expiresAt: $e) { ... on CreatedApiKey { token key { id } } } }',
    { s: scopes, e: expiresAt },
    t.keys.admin,
  );
  return { token: res.data.createApiKey.token, id: res.data.createApiKey.key.id };
}

async function revoke(id: string) {
  const res = await t.gql('mutation($id: ID!) { revokeApiKey(id: $id) { __typename ... on ApiKey { revokedAt } } }', { id }, t.keys.admin);
  expect(res.data.revokeApiKey.__typename).toBe('ApiKey');
  return res.data.revokeApiKey.revokedAt as string;
}

describe('revoked and expired keys', () => {
  it('refuses them over HTTP (401, with the reason), and they write nothing', async () => {
    const revoked = await newKey(['write']);
    await revoke(revoked.id);
    const expired = await newKey(['write'], new Date(Date.now() - 1_000).toISOString());
    const before = await snapshots.take(t.keys.tenantId);
    for (const [key, reason] of [
      [revoked, 'REVOKED'],
      [expired, 'EXPIRED'],
    ] as const) {
      for (const op of [operation('Mutation', 'startEpisode'), operation('Mutation', 'logSteps'), operation('Query', 'episodes')]) {
        const res = await call(op, key.token);
        expect(res.status, op.name).toBe(401);
        expect(res.body.errors[0].extensions, op.name).toMatchObject({ code: 'UNAUTHENTICATED', reason });
      }
    }
    expect(await snapshots.take(t.keys.tenantId)).toEqual(before);
  });

  it('closes a graphql-ws connection whose connection_init carries a revoked or expired key with 4403', async () => {
    const revoked = await newKey(['read']);
    await revoke(revoked.id);
    const expired = await newKey(['read'], new Date(Date.now() - 1_000).toISOString());
    for (const key of [revoked, expired]) {
      const s = rawSocket(t.url, key.token);
      expect((await s.closed).code).toBe(4403);
      expect(s.messages.map((m) => m.type)).not.toContain('connection_ack');
    }
  });

  it(`closes an open socket within KEY_RECHECK_MS of its key's revocation, ending its subscription`, async () => {
    const key = await newKey(['read']);
    const s = rawSocket(t.url, key.token);
    await acked(s);
    s.send({ id: '1', type: 'subscribe', payload: { query: 'subscription { ledgerEvents { seq } }' } });
    // The subscription is live: a write arrives on it. Writes repeat until one does, since a write
    // committed before the server has started the subscription is not sent on it.
    await waitUntil(async () => {
      if (s.messages.some((m) => m.type === 'next')) return true;
      await t.gql('mutation { createWorkItem(title: "seen live") { __typename } }', {}, t.keys.write);
      return false;
    }, 'a live event');
    const revokedAt = Date.now();
    await revoke(key.id);
    const closed = await closedWithin(s, KEY_RECHECK_MS + BUSY_SLACK_MS);
    expect(closed?.code).toBe(4403);
    expect(must(closed).at - revokedAt).toBeLessThan(KEY_RECHECK_MS + BUSY_SLACK_MS);
    // Still refused on reconnect.
    expect((await rawSocket(t.url, key.token).closed).code).toBe(4403);
  });

  it('closes an open socket once its key expires', async () => {
    const expiresAt = Date.now() + 1_000;
    const key = await newKey(['read'], new Date(expiresAt).toISOString());
    const s = rawSocket(t.url, key.token);
    await acked(s);
    const closed = await closedWithin(s, expiresAt - Date.now() + KEY_RECHECK_MS + BUSY_SLACK_MS);
    expect(closed?.code).toBe(4403);
    expect(must(closed).at).toBeGreaterThanOrEqual(expiresAt - 50);
    expect(must(closed).at - expiresAt).toBeLessThan(KEY_RECHECK_MS + BUSY_SLACK_MS);
  });

  it('closes sockets in every server process when another process revokes the key', async () => {
    const second = await startTestApp({ KEY_RECHECK_MS: String(KEY_RECHECK_MS) }, { shareDatabaseOf: t });
    try {
      const key = await newKey(['read']);
      const s = rawSocket(second.url, key.token);
      await acked(s);
      const revokedAt = Date.now();
      await revoke(key.id); // through the first server
      const closed = await closedWithin(s, KEY_RECHECK_MS + BUSY_SLACK_MS);
      expect(closed?.code).toBe(4403);
      expect(must(closed).at - revokedAt).toBeLessThan(KEY_RECHECK_MS + BUSY_SLACK_MS);
    } finally {
      await second.stop();
    }
  });

  it('leaves sockets of valid keys open', async () => {
    const s = rawSocket(t.url, t.keys.read);
    await acked(s);
    await new Promise((r) => setTimeout(r, KEY_RECHECK_MS * 3));
    expect(s.socket.readyState).toBe(s.socket.OPEN);
    s.close();
  });
});

// ---- the API key lifecycle ----

interface KeyEvent {
  seq: string;
  type: string;
  payload: Record<string, unknown>;
}

async function keyEvents(keyId: string): Promise<KeyEvent[]> {
  const res = await t.gql(
    '{ ledgerEvents(first: 500, filter: { types: ["api_key.created", "api_key.revoked"] }) { ... on LedgerEventConnection { edges { node { seq type payload } } } } }',
    {},
    t.keys.read,
  );
  return res.data.ledgerEvents.edges.map((e: Json) => e.node).filter((e: KeyEvent) => e.payload.keyId === keyId);
}

async function listed(id: string) {
  const res = await t.gql('{ apiKeys { id name prefix scopes createdAt expiresAt revokedAt lastUsedAt } }', {}, t.keys.admin);
  return res.data.apiKeys.find((k: { id: string }) => k.id === id);
}

describe('API key lifecycle', () => {
  it('shows the secret once, at creation; the list, the type and the ledger never carry it', async () => {
    const res = await t.gql(
      'mutation { createApiKey(name: "ci agent", scopes: ["write", "read"]) { ... on CreatedApiKey { token key { id prefix scopes name revokedAt } } } }',
      {},
      t.keys.admin,
    );
    const { token, key } = res.data.createApiKey;
    const [, prefix, secret] = must(/^epk_([a-z0-9]{12})_([A-Za-z0-9_-]{43})$/.exec(token));
    expect(key).toMatchObject({ prefix, name: 'ci agent', revokedAt: null });
    expect([...key.scopes].sort()).toEqual(['read', 'write']);
    // No field of ApiKey can carry the secret or its hash: the type is exactly these fields.
    expect(Object.keys((schema.getType('ApiKey') as Json).getFields()).sort()).toEqual([
      'createdAt',
      'expiresAt',
      'id',
      'lastUsedAt',
      'name',
      'prefix',
      'revokedAt',
      'scopes',
    ]);
    const list = await t.gql('{ apiKeys { id name prefix scopes createdAt expiresAt revokedAt lastUsedAt } }', {}, t.keys.admin);
    expect(list.data.apiKeys.map((k: Json) => k.id)).toContain(key.id);
    const events = await keyEvents(key.id);
    expect(events.map((e) => e.type)).toEqual(['api_key.created']);
    const adminKeyId = (await t.services.db.pool.query(`SELECT id FROM api_keys WHERE tenant_id = $1 AND name = 'admin'`, [t.keys.tenantId])).rows[0].id;
    expect(must(events[0]).payload).toEqual({ keyId: key.id, name: 'ci agent', prefix, scopes: ['write', 'read'], expiresAt: null, byKeyId: adminKeyId });
    for (const shown of [list, events]) {
      expect(JSON.stringify(shown)).not.toContain(secret);
      expect(JSON.stringify(shown)).not.toContain(hashSecret(must(secret)));
    }
  });

  it('records lastUsedAt: null until the key is used, then when it was', async () => {
    const key = await newKey(['read']);
    expect((await listed(key.id)).lastUsedAt).toBeNull();
    const before = Date.now();
    expect((await t.gql('{ viewer { id } }', {}, key.token)).data.viewer.id).toBe(t.keys.tenantId);
    // The write is bookkeeping the request does not wait for (key-cache.ts): it lands shortly after.
    const usedAt = Date.parse(await waitFor(async () => (await listed(key.id)).lastUsedAt as string | null, 'lastUsedAt written'));
    expect(usedAt).toBeGreaterThanOrEqual(before - 5);
    expect(usedAt).toBeLessThanOrEqual(Date.now());
  });

  it('revokes: refused at once, revoking again changes nothing, one api_key.revoked event', async () => {
    const key = await newKey(['write']);
    expect((await t.gql('{ viewer { id } }', {}, key.token)).data.viewer.id).toBe(t.keys.tenantId);
    const revokedAt = await revoke(key.id);
    expect(revokedAt).not.toBeNull();
    expect((await t.gql('{ viewer { id } }', {}, key.token)).errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'REVOKED' });
    expect(await revoke(key.id)).toBe(revokedAt);
    expect((await listed(key.id)).revokedAt).toBe(revokedAt);
    const events = await keyEvents(key.id);
    expect(events.map((e) => e.type)).toEqual(['api_key.created', 'api_key.revoked']);
    expect(must(events[1]).payload).toMatchObject({ keyId: key.id, prefix: expect.stringMatching(/^[a-z0-9]{12}$/), byKeyId: expect.any(String) });
    const verified = await t.gql('{ verifyLedger { ... on LedgerVerification { ok } } }', {}, t.keys.read);
    expect(verified.data.verifyLedger.ok).toBe(true);
  });

  it('expires: a key works until expiresAt, then is refused as EXPIRED', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const key = await newKey(['read'], expiresAt);
    expect((await listed(key.id)).expiresAt).toBe(expiresAt);
    expect((await t.gql('{ viewer { id } }', {}, key.token)).data.viewer.id).toBe(t.keys.tenantId);
    expect(must((await keyEvents(key.id))[0]).payload.expiresAt).toBe(expiresAt);
    // The clock moves past the expiry (a key expiring 1.5 s ahead expired before these checks on a
    // busy machine); the server sees it once its kept copy of the key is older than KEY_CACHE_MS.
    await t.services.db.pool.query('UPDATE api_keys SET expires_at = now() WHERE id = $1', [key.id]);
    const refused = await waitFor(async () => (await t.gql('{ viewer { id } }', {}, key.token)).errors?.[0]?.extensions, 'the key to be refused', 30_000);
    expect(refused).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'EXPIRED' });
  });

  it('refuses bad key input with InputLimitError and writes nothing', async () => {
    const before = await snapshots.take(t.keys.tenantId);
    const q = 'mutation($n: String!, $s: [String!]!) { createApiKey(name: $n, scopes: $s) { __typename ... on InputLimitError { violations { field } } } }';
    for (const [name, scopes, field] of [
      ['x', ['root'], 'scopes'],
      ['x', [], 'scopes'],
      [' ', ['read'], 'name'],
      ['a\u0000b', ['read'], 'name'],
      ['n'.repeat(201), ['read'], 'name'],
    ] as const) {
      const res = await t.gql(q, { n: name, s: scopes }, t.keys.admin);
      expect(res.data.createApiKey, JSON.stringify(res)).toEqual({ __typename: 'InputLimitError', violations: [{ field }] });
    }
    const unknown = await t.gql('mutation { revokeApiKey(id: "00000000-0000-4000-8000-000000000000") { __typename } }', {}, t.keys.admin);
    expect(unknown.data.revokeApiKey.__typename).toBe('NotFoundError');
    expect(await snapshots.take(t.keys.tenantId)).toEqual(before);
  });

  it("records the operator CLI's key creation and revocation in the ledger too", async () => {
    const tenant = (await t.services.db.pool.query('SELECT name FROM tenants WHERE id = $1', [t.keys.tenantId])).rows[0].name;
    const created = await keyCreate(t.services, { tenant, name: 'from cli', scopes: 'read' });
    await keyRevoke(t.services, tenant, created.id);
    const events = await keyEvents(created.id);
    expect(events.map((e) => e.type)).toEqual(['api_key.created', 'api_key.revoked']);
    expect(events.every((e) => e.payload.byOperator === 'cli')).toBe(true);
    expect(JSON.stringify(events)).not.toContain(must(parseToken(created.token)).secret);
  });

  it('refuses through the operator CLI what the API refuses (a past expiry, an unknown scope), writing nothing', async () => {
    const tenant = (await t.services.db.pool.query('SELECT name FROM tenants WHERE id = $1', [t.keys.tenantId])).rows[0].name;
    const before = await snapshots.take(t.keys.tenantId);
    const past = keyCreate(t.services, { tenant, name: 'expired', scopes: 'read', expiresAt: '2001-01-01T00:00:00Z' });
    await expect(past).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining('expiresAt must be in the future') });
    await expect(keyCreate(t.services, { tenant, name: 'x', scopes: 'root' })).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringContaining('unknown scopes: root'),
    });
    expect(await snapshots.take(t.keys.tenantId)).toEqual(before);
  });
});

describe('keys kept between requests', () => {
  it('refuses a key in use at once when this server revokes it', async () => {
    const key = await newKey(['read']);
    expect((await t.gql('{ viewer { id } }', {}, key.token)).data.viewer.id).toBe(t.keys.tenantId);
    await revoke(key.id);
    expect((await t.gql('{ viewer { id } }', {}, key.token)).errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'REVOKED' });
  });

  it('refuses a key in use within KEY_CACHE_MS when another process revokes it', async () => {
    const keyCacheMs = 300;
    const other = await startTestApp({ KEY_CACHE_MS: String(keyCacheMs), LEARNING_WORKERS: '0' }, { shareDatabaseOf: t });
    try {
      const key = await newKey(['read']);
      expect((await other.gql('{ viewer { id } }', {}, key.token)).data.viewer.id).toBe(t.keys.tenantId);
      const revokedAt = Date.now();
      await revoke(key.id);
      await waitUntil(
        async () => (await other.gql('{ viewer { id } }', {}, key.token)).errors?.[0]?.extensions?.reason === 'REVOKED',
        'refused on the other server',
      );
      expect(Date.now() - revokedAt).toBeLessThan(keyCacheMs + BUSY_SLACK_MS);
    } finally {
      await other.stop();
    }
  });
});

describe('production settings', () => {
  it('turns off introspection, GraphiQL and field suggestions with NODE_ENV=production', async () => {
    const prod = await startTestApp({ NODE_ENV: 'production' }, { shareDatabaseOf: t });
    try {
      const introspection = await post(prod, '{ __schema { types { name } } }', {}, t.keys.admin);
      expect(introspection.body.data ?? null).toBeNull();
      expect(introspection.body.errors[0].message).toMatch(/introspection/i);
      const typo = await post(prod, '{ viewr { id } }', {}, t.keys.admin);
      expect(typo.body.errors[0].message).not.toMatch(/Did you mean/);
      const page = await fetch(prod.url, { headers: { accept: 'text/html' } });
      expect(await page.text()).not.toContain('GraphiQL');
      // The development server of the same database answers all three.
      expect((await post(t, '{ __schema { queryType { name } } }', {}, t.keys.admin)).body.data.__schema.queryType.name).toBe('Query');
      expect((await post(t, '{ viewr { id } }', {}, t.keys.admin)).body.errors[0].message).toMatch(/Did you mean/);
    } finally {
      await prod.stop();
    }
  });
});
