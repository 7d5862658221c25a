// subscribeLedger against the real server: events verified as they arrive, resumed after the
// socket is dropped with every event delivered exactly once, and a tampered stream refused.
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { must } from '../../src/core/must.ts';
import { createEpisodicClient, type EpisodicClient, type EpisodicError, type LedgerEvent, LedgerStreamVerifier, unwrap } from '../../src/index.ts';
import { chainHash, GENESIS_HASH } from '../../src/ledger/format/hash.ts';
import { stopServices } from '../../src/services.ts';
import { startTestApp, type TestApp, useApp } from '../support/app.ts';
import { clientFor, sleep, startProxy, waitFor } from './support.ts';

let t: TestApp;
let api: EpisodicClient;
useApp((app) => {
  t = app;
  api = clientFor(t);
});

async function episodeWithSteps(n: number): Promise<string> {
  const ep = unwrap(await api.startEpisode({ taskDescription: 'stream me', taskType: 'stream' })).episode;
  for (let i = 0; i < n; i++) unwrap(await api.logStep(ep.id, { kind: 'tool_call', tool: 'shell', action: `step ${i}` }));
  return ep.id;
}

const quickRetry = async () => {
  await sleep(50);
};

describe('subscribeLedger', () => {
  it('replays from afterSeq 0 and follows live events, each verified against the chain', async () => {
    await episodeWithSteps(2);
    const events: LedgerEvent[] = [];
    const errors: EpisodicError[] = [];
    const sub = api.subscribeLedger({ afterSeq: 0, onEvent: (e) => void events.push(e), onError: (e) => errors.push(e) });
    await waitFor(() => events.length >= 3, 10_000, 'replay');
    await episodeWithSteps(1);
    const head = Number((await api.ledgerHead()).seq);
    await waitFor(() => events.at(-1)?.seq === head, 10_000, 'live events');
    await sub.close();
    expect(errors).toEqual([]);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: head }, (_, i) => i + 1));
    expect(must(events[0]).prevHash).toBe(GENESIS_HASH);
    expect(sub.lastSeq).toBe(head);
  });

  it('starts after a cursor: fetches and checks the anchor hash, then links the first event to it', async () => {
    await episodeWithSteps(1);
    const head = Number((await api.ledgerHead()).seq);
    const from = head - 2;
    const events: LedgerEvent[] = [];
    const errors: unknown[] = [];
    const sub = api.subscribeLedger({ afterSeq: from, onEvent: (e) => void events.push(e), onError: (e) => errors.push(e) });
    await waitFor(() => events.length === 2, 10_000, 'two events');
    await sub.close();
    expect(errors).toEqual([]);
    expect(events.map((e) => e.seq)).toEqual([from + 1, from + 2]);
  });

  it('resumes after the server side drops the socket, delivering every event exactly once and in order', async () => {
    const proxy = await startProxy(t.url);
    const subscribes: Array<string | undefined> = [];
    class RecordingWebSocket extends WebSocket {
      override send(data: unknown, ...rest: unknown[]) {
        const message = JSON.parse(String(data));
        if (message.type === 'subscribe') subscribes.push(message.payload.variables.afterSeq);
        return (super.send as (...args: unknown[]) => void)(data, ...rest);
      }
    }
    const viaProxy = createEpisodicClient({ url: proxy.url, apiKey: t.keys.admin, webSocketImpl: RecordingWebSocket });
    const start = Number((await api.ledgerHead()).seq);
    const events: LedgerEvent[] = [];
    const errors: unknown[] = [];
    const connects: boolean[] = [];
    const sub = viaProxy.subscribeLedger({
      afterSeq: start,
      retryWait: quickRetry,
      onConnected: ({ reconnect }) => connects.push(reconnect),
      onEvent: (e) => void events.push(e),
      onError: (e) => errors.push(e),
    });
    try {
      await waitFor(() => connects.length === 1, 10_000, 'connection');
      await episodeWithSteps(3);
      await waitFor(() => events.length === 4, 10_000, 'first batch'); // started + 3 steps.logged

      const beforeDrop = must(events.at(-1)).seq;
      expect(proxy.dropAll()).toBeGreaterThan(0);
      // Written while the client is disconnected: must arrive after the resume, once.
      await episodeWithSteps(3);
      await waitFor(() => connects.length >= 2, 10_000, 'reconnect');
      await episodeWithSteps(2);
      const head = Number((await api.ledgerHead()).seq);
      await waitFor(() => events.at(-1)?.seq === head, 15_000, 'all events');

      proxy.dropAll(); // a second drop, mid-stream
      await episodeWithSteps(1);
      const head2 = Number((await api.ledgerHead()).seq);
      await waitFor(() => events.at(-1)?.seq === head2, 15_000, 'events after the second drop');

      expect(errors).toEqual([]);
      expect(connects.slice(0, 3)).toEqual([false, true, true]);
      // Each new subscribe asked for what follows the last event received, not for a replay.
      expect(subscribes.slice(0, 3)).toEqual([String(start), String(beforeDrop), String(head)]);
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: head2 - start }, (_, i) => start + i + 1));
    } finally {
      await sub.close();
      await proxy.close();
    }
  });

  it('resumes on another server process after its server shuts down (a restart), exactly once', async () => {
    const first = await startTestApp();
    const proxy = await startProxy(first.url);
    const writer = clientFor(first);
    const events: LedgerEvent[] = [];
    const errors: unknown[] = [];
    const sub = clientFor(first, first.keys.read, proxy.url).subscribeLedger({
      afterSeq: 0,
      retryWait: quickRetry,
      onEvent: (e) => void events.push(e),
      onError: (e) => errors.push(e),
    });
    let second: TestApp | undefined;
    try {
      unwrap(await writer.startEpisode({ taskDescription: 'before the restart', taskType: 'restart' }));
      await waitFor(() => events.length === 1, 10_000, 'first event');
      await first.app.stop(); // graceful shutdown: the server closes the socket (1001)
      second = await startTestApp({}, { shareDatabaseOf: first });
      proxy.retarget(second.url);
      const ep = unwrap(await clientFor(second).startEpisode({ taskDescription: 'after the restart', taskType: 'restart' })).episode;
      unwrap(await clientFor(second).logStep(ep.id, { kind: 'observation', observation: 'still here' }));
      await waitFor(() => events.length === 3, 15_000, 'events after the restart');
      expect(errors).toEqual([]);
      expect(events.map((e) => e.seq)).toEqual([1, 2, 3]);
    } finally {
      await sub.close();
      await proxy.close();
      await second?.stop(); // closes its own pool only: the database is first's
      await stopServices(first.services); // first.app is already stopped
      await first.database.drop();
    }
  });

  it('verifies a filtered stream event by event (seqs are not contiguous)', async () => {
    const id = await episodeWithSteps(2);
    await episodeWithSteps(1); // other events in between
    const events: LedgerEvent[] = [];
    const errors: unknown[] = [];
    const sub = api.subscribeLedger({ afterSeq: 0, filter: { episodeId: id }, onEvent: (e) => void events.push(e), onError: (e) => errors.push(e) });
    await waitFor(() => events.length === 3, 10_000, 'filtered events');
    await sub.close();
    expect(errors).toEqual([]);
    expect(events.every((e) => e.episodeId === id)).toBe(true);
  });

  it('reports in lastSeq the last event handed over, so a later run resumes without a gap', async () => {
    await episodeWithSteps(3);
    const head = Number((await api.ledgerHead()).seq);
    const first: LedgerEvent[] = [];
    const sub = api.subscribeLedger({
      afterSeq: 0,
      onEvent: (e) => {
        first.push(e);
        if (first.length === 2) void sub.close(); // more events may already have arrived: they are not handed over
      },
    });
    await sub.done;
    expect(first.map((e) => e.seq)).toEqual([1, 2]);
    expect(sub.lastSeq).toBe(2);
    const rest: LedgerEvent[] = [];
    const again = api.subscribeLedger({ afterSeq: sub.lastSeq, onEvent: (e) => void rest.push(e) });
    await waitFor(() => rest.at(-1)?.seq === head, 10_000, 'the rest');
    await again.close();
    expect(rest.map((e) => e.seq)).toEqual(Array.from({ length: head - 2 }, (_, i) => i + 3));
  });

  it('reports an unreachable server through onError at once instead of retrying forever', async () => {
    const errors: EpisodicError[] = [];
    const sub = createEpisodicClient({ url: 'http://127.0.0.1:1/graphql', apiKey: 'k' }).subscribeLedger({
      verify: false,
      onEvent: () => undefined,
      onError: (e) => errors.push(e),
    });
    await sub.done;
    expect(errors).toMatchObject([{ kind: 'transport' }]);
  });

  it('reports a refused key through onError and ends', async () => {
    const errors: EpisodicError[] = [];
    const sub = clientFor(t, `epk_aaaaaaaaaaaa_${'a'.repeat(43)}`).subscribeLedger({
      afterSeq: 0,
      verify: false,
      onEvent: () => undefined,
      onError: (e) => errors.push(e),
    });
    await sub.done;
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ kind: 'transport', status: 4403 });
  });
});

describe('watchEpisode and watchSteps', () => {
  it('follow an episode through its changes and its journal', async () => {
    const ep = unwrap(await api.startEpisode({ taskDescription: 'watched', taskType: 'watch' })).episode;
    const statuses: string[] = [];
    const batches: number[][] = [];
    const w1 = api.watchEpisode(ep.id, (e) => statuses.push(`${e.status}:${e.stepCount}`));
    const w2 = api.watchSteps(ep.id, { afterSeq: 0, onBatch: (b) => batches.push(b.steps.map((s) => s.stepNumber)) });
    await waitFor(() => statuses.length === 1, 10_000, 'the initial state');
    unwrap(
      await api.logSteps(ep.id, [
        { kind: 'observation', observation: 'a' },
        { kind: 'observation', observation: 'b' },
      ]),
    );
    unwrap(await api.completeEpisode(ep.id, { kind: 'SUCCESS', verdict: 'ok' }));
    await waitFor(() => statuses.at(-1) === 'COMPLETED:2' && batches.length === 1, 10_000, 'the updates');
    await Promise.all([w1.close(), w2.close()]);
    expect(statuses[0]).toBe('RUNNING:0');
    expect(batches).toEqual([[1, 2]]);
  });
});

describe('client-side verification of a tampered stream', () => {
  async function genuine(): Promise<LedgerEvent[]> {
    await episodeWithSteps(2);
    return unwrap(await api.ledgerEvents({ after: 0, first: 6 })).events;
  }

  function feed(events: LedgerEvent[], verifier = new LedgerStreamVerifier({ afterSeq: 0 })) {
    return events.map((e) => verifier.check(e));
  }

  it('accepts the genuine stream and skips a replayed duplicate', async () => {
    const events = await genuine();
    const checks = feed([...events.slice(0, 3), must(events[1]), ...events.slice(3)]);
    expect(checks.every((c) => c.ok)).toBe(true);
    expect(checks.filter((c) => c.ok && c.duplicate)).toHaveLength(1);
  });

  it('detects a changed payload, a dropped event, a forged link and a rehashed forgery', async () => {
    const events = await genuine();
    const changed = events.map((e, i) => (i === 2 ? { ...e, payload: { ...(e.payload as object), forged: true } } : e));
    expect(feed(changed)[2]).toMatchObject({ ok: false, report: { problem: 'hash-mismatch' } });

    const dropped = [...events.slice(0, 2), ...events.slice(3)];
    expect(feed(dropped)[2]).toMatchObject({ ok: false, report: { problem: 'seq-gap' } });

    // A forger who recomputes the event's own hash still cannot link it to the verified chain.
    const forged = { ...must(events[2]), payload: { forged: true }, prevHash: 'ab'.repeat(32) };
    forged.hash = chainHash(forged.prevHash, forged);
    expect(feed([must(events[0]), must(events[1]), forged])[2]).toMatchObject({ ok: false, report: { problem: 'prev-hash-mismatch' } });

    const foreign = { ...must(events[1]), tenantId: '00000000-0000-0000-0000-000000000001' };
    expect(feed([must(events[0]), foreign])[1]).toMatchObject({ ok: false, report: { problem: 'tenant-mismatch' } });
  });

  it('checks the first event after a cursor against the anchor hash', async () => {
    const events = await genuine();
    const anchored = new LedgerStreamVerifier({ afterSeq: 2, prevHash: must(events[1]).hash });
    expect(anchored.check(must(events[2]))).toMatchObject({ ok: true, linked: true });
    const wrongAnchor = new LedgerStreamVerifier({ afterSeq: 2, prevHash: 'cd'.repeat(32) });
    expect(wrongAnchor.check(must(events[2]))).toMatchObject({ ok: false, report: { problem: 'prev-hash-mismatch' } });
  });
});
