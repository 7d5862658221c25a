// Two servers on one database, as two processes would be: each has its own pool, writer and bus.
// Events written through one reach subscribers of the other (PostgreSQL LISTEN/NOTIFY), concurrent
// writers on both keep seq gapless and the chain valid, and a lost listener connection recovers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyChain } from '../../src/ledger/proofs/verify.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { LEDGER_EVENTS, logSteps, range, seqsOf, startEpisode, storedLedger, waitUntil, watch } from './support.ts';

let one: TestApp;
let two: TestApp;
beforeAll(async () => {
  // A long safety interval: deliveries in these tests must come from notifications and reconnects.
  one = await startTestApp({ LEDGER_TAIL_SAFETY_MS: '600000' });
  two = await startTestApp({ LEDGER_TAIL_SAFETY_MS: '600000' }, { shareDatabaseOf: one });
});
afterAll(async () => {
  await two?.stop();
  await one?.stop();
});

describe('fan-out across two servers', () => {
  it('delivers events written through server 2 to a subscriber on server 1', async () => {
    const w = watch(one.wsClient(one.keys.read), LEDGER_EVENTS, { afterSeq: '0' });
    const episode = await startEpisode(two);
    await waitUntil(() => w.values.length === 1, 'episode.started from server 2');
    await logSteps(two, episode, 2);
    await waitUntil(() => w.values.length === 2, 'steps.logged from server 2');
    expect(w.values.map((e) => e.type)).toEqual(['episode.started', 'steps.logged']);
    w.stop();
  });

  it('keeps seq gapless and the chain valid with writers on both servers, and both subscribers see it all', async () => {
    const watchers = [
      watch(one.wsClient(one.keys.read), LEDGER_EVENTS, { afterSeq: '0' }),
      watch(two.wsClient(two.keys.read), LEDGER_EVENTS, { afterSeq: '0' }),
    ];
    const episodes = await Promise.all([startEpisode(one), startEpisode(one), startEpisode(two), startEpisode(two)]);
    await Promise.all(
      episodes.map(async (episode, i) => {
        for (let n = 0; n < 25; n++) await logSteps(i < 2 ? one : two, episode, 1 + (n % 3));
      }),
    );
    const stored = await storedLedger(one);
    expect(seqsOf(stored)).toEqual(range(stored.length));
    expect(verifyChain(stored, { expectedFirstSeq: 1 })).toMatchObject({ ok: true, checked: stored.length });
    for (const w of watchers) {
      await waitUntil(() => w.values.length >= stored.length, 'every event on each server');
      expect(seqsOf(w.values)).toEqual(range(stored.length));
      expect(w.values.map((e) => e.hash)).toEqual(stored.map((e) => e.hash));
      w.stop();
    }
  });

  it('reconnects the listener after PostgreSQL drops it and delivers what was written meanwhile', async () => {
    const bus = one.services.ledgerBus;
    expect(bus.healthy).toBe(true);
    const episode = await startEpisode(two);
    const head = (await storedLedger(one)).length;
    const w = watch(one.wsClient(one.keys.read), LEDGER_EVENTS, { afterSeq: String(head) });

    const { rows } = await two.services.db.pool.query(
      `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN episodic_ledger'`,
    );
    expect(rows.length).toBe(2); // one listener per server
    await waitUntil(() => !bus.healthy, 'server 1 to notice');
    await logSteps(two, episode); // its notification finds no listener on server 1
    await waitUntil(() => bus.healthy, 'the listener to reconnect');
    await waitUntil(() => w.values.length === 1, 'the event written during the outage');
    await logSteps(two, episode); // and notifications flow again
    await waitUntil(() => w.values.length === 2, 'an event after the outage');
    expect(seqsOf(w.values)).toEqual([head + 1, head + 2]);
    w.stop();
  });
});
