// With REDIS_URL, fan-out goes through Redis instead of LISTEN/NOTIFY. Runs only where a Redis is
// configured (CI sets REDIS_URL when it has one).
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/store.ts';
import { must } from '../../src/core/must.ts';
import { RedisLedgerBus } from '../../src/ledger/fanout/bus-redis.ts';
import { acked, rawSocket } from '../security/support.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { testRedisUrl } from '../support/env.ts';
import { LEDGER_EVENTS, logSteps, range, seqsOf, startEpisode, storedLedger, waitUntil, watch } from './support.ts';

const redisUrl = testRedisUrl();
let one: TestApp | undefined;
let two: TestApp | undefined;

beforeAll(async () => {
  if (!redisUrl) return;
  // A long safety interval: deliveries must come from Redis messages and reconnects (and a long
  // key re-read: a revocation must come from its Redis message).
  const env = { REDIS_URL: redisUrl, LEDGER_TAIL_SAFETY_MS: '600000', KEY_RECHECK_MS: '600000' };
  one = await startTestApp(env);
  two = await startTestApp(env, { shareDatabaseOf: one });
});
afterAll(async () => {
  await two?.stop();
  await one?.stop();
});

it.runIf(!!redisUrl)('delivers events written through server 2 to a subscriber on server 1', async () => {
  const [a, b] = [must(one), must(two)];
  expect(a.services.ledgerBus).toBeInstanceOf(RedisLedgerBus);
  expect(a.services.ledgerBus.healthy).toBe(true);
  const w = watch(a.wsClient(a.keys.read), LEDGER_EVENTS, { afterSeq: '0' });
  const episode = await startEpisode(b);
  for (let i = 0; i < 5; i++) await logSteps(b, episode);
  const stored = await storedLedger(a);
  await waitUntil(() => w.values.length === stored.length, 'the events from server 2');
  expect(seqsOf(w.values)).toEqual(range(stored.length));
  w.stop();
});

it.runIf(!!redisUrl)('re-subscribes after Redis drops the subscriber and delivers what was written meanwhile', async () => {
  const [a, b] = [must(one), must(two)];
  const episode = await startEpisode(b);
  const head = (await storedLedger(a)).length;
  const w = watch(a.wsClient(a.keys.read), LEDGER_EVENTS, { afterSeq: String(head) });
  const admin = new Redis(must(redisUrl));
  try {
    await admin.client('KILL', 'TYPE', 'pubsub');
  } finally {
    admin.disconnect();
  }
  await waitUntil(() => !a.services.ledgerBus.healthy, 'server 1 to notice');
  await logSteps(b, episode); // published while server 1 is not subscribed
  await waitUntil(() => a.services.ledgerBus.healthy, 'the subscriber to come back');
  await waitUntil(() => w.values.length === 1, 'the event written during the outage');
  await logSteps(b, episode);
  await waitUntil(() => w.values.length === 2, 'an event after the outage');
  expect(seqsOf(w.values)).toEqual([head + 1, head + 2]);
  w.stop();
});

it.runIf(!!redisUrl)('closes a socket on server 2 at once when its key is revoked through server 1', async () => {
  const [a, b] = [must(one), must(two)];
  const key = await createApiKey(a.database.db.prisma, { tenantId: a.keys.tenantId, name: 'revoked via redis', scopes: ['read'] });
  const socket = rawSocket(b.url, key.token);
  await acked(socket);
  const revoked = await a.gql('mutation($id: ID!) { revokeApiKey(id: $id) { ... on ApiKey { revokedAt } } }', { id: key.id });
  expect(revoked.data?.revokeApiKey.revokedAt).toBeTruthy();
  // The key re-read is ten minutes away: only the revocation's Redis message can close it.
  expect((await socket.closed).code).toBe(4403);
});
