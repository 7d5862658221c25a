// The fan-out bus: notifications are coalesced and sent after commit, carry only tenant and head,
// wake each local subscriber once per new head, and an unreachable transport stops start-up.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { Coalescer, decodeHeads, encodeHeads, LocalSubscribers } from '../../src/ledger/fanout/bus-core.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { createMigratedDatabase } from '../support/db.ts';
import { freePort } from '../support/ports.ts';
import { startServerProcess } from '../support/process.ts';
import { startEpisode, storedLedger, waitUntil } from './support.ts';

describe('coalescing', () => {
  it('sends one batch per interval with the highest seq per tenant', async () => {
    const sent: Array<Map<string, number>> = [];
    const sentAt: number[] = [];
    const outbox = new Coalescer(
      50,
      async (heads) => void (sent.push(heads), sentAt.push(performance.now())),
      () => undefined,
    );
    for (let seq = 1; seq <= 100; seq++) outbox.add('a', seq);
    outbox.add('b', 7);
    outbox.add('a', 3); // an older head changes nothing
    await waitUntil(() => sent.length === 1, 'the first batch');
    expect([...must(sent[0])]).toEqual([
      ['a', 100],
      ['b', 7],
    ]);
    outbox.add('a', 101);
    await waitUntil(() => sent.length === 2, 'the second batch');
    expect(must(sentAt[1]) - must(sentAt[0])).toBeGreaterThanOrEqual(40); // held back about the interval, not sent at once (timers may fire a few ms early under load)
    expect([...must(sent[1])]).toEqual([['a', 101]]);
  });

  it('logs the first of a run of failed sends only', async () => {
    const failures: unknown[] = [];
    let fail = true;
    const outbox = new Coalescer(
      1,
      async () => {
        if (fail) throw new Error('down');
      },
      (err) => failures.push(err),
    );
    for (let i = 1; i <= 5; i++) {
      outbox.add('a', i);
      await outbox.drain();
    }
    fail = false;
    outbox.add('a', 6);
    await outbox.drain();
    fail = true;
    outbox.add('a', 7);
    await outbox.drain();
    expect(failures).toHaveLength(2);
  });

  it('splits payloads under the NOTIFY limit and skips malformed lines', () => {
    const heads = new Map(Array.from({ length: 500 }, (_, i) => [crypto.randomUUID(), i + 1] as [string, number]));
    const payloads = encodeHeads(heads);
    expect(payloads.length).toBeGreaterThan(1);
    expect(payloads.every((p) => Buffer.byteLength(p) < 8000)).toBe(true);
    expect(new Map(payloads.flatMap(decodeHeads))).toEqual(heads);
    expect(decodeHeads('t1 5\ngarbage\nt2 -1\nt3 x\nt4 9')).toEqual([
      ['t1', 5],
      ['t4', 9],
    ]);
  });
});

describe('local subscribers', () => {
  it('wakes for a new head once (a process hears its own notifications back), and everyone on wakeAll', () => {
    const local = new LocalSubscribers();
    const woken: string[] = [];
    const stopA = local.add('t', () => woken.push('a'));
    local.add('t', () => woken.push('b'));
    local.add('u', () => woken.push('u'));
    local.wake('t', 5);
    local.wake('t', 5); // the echo
    local.wake('t', 4); // an older head
    expect(woken).toEqual(['a', 'b']);
    stopA();
    local.wakeAll();
    expect(woken).toEqual(['a', 'b', 'b', 'u']);
  });
});

describe('PostgreSQL notifications', () => {
  let t: TestApp;
  let listener: pg.Client;
  const payloads: string[] = [];
  beforeAll(async () => {
    t = await startTestApp();
    listener = new pg.Client({ connectionString: t.database.url });
    await listener.connect();
    listener.on('notification', (m) => payloads.push(must(m.payload)));
    await listener.query('LISTEN episodic_ledger');
  });
  afterAll(async () => {
    await listener.end();
    await t.stop();
  });

  it('sends fewer notifications than commits, each with only tenant and head, ending at the head', async () => {
    await Promise.all(Array.from({ length: 30 }, () => startEpisode(t)));
    const head = (await storedLedger(t)).length;
    expect(head).toBe(30);
    await waitUntil(() => payloads.some((p) => p === `${t.keys.tenantId} ${head}`), 'the head notification');
    expect(payloads.length).toBeLessThan(30);
    for (const p of payloads) expect(p).toMatch(new RegExp(`^${t.keys.tenantId} \\d+$`));
  });
});

describe('start-up', () => {
  it('refuses to start with one clear line when REDIS_URL cannot be reached', async () => {
    const database = await createMigratedDatabase();
    try {
      const proc = startServerProcess({ DATABASE_URL: database.url, PORT: String(await freePort()), REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
      expect(await proc.exited()).toBe(1);
      const lines = proc.stderr().trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^episodic: cannot connect to Redis at redis:\/\/127\.0\.0\.1:\d+ \(REDIS_URL\)/);
    } finally {
      await database.drop();
    }
  });
});
