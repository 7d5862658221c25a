// The tail on its own, over an in-memory ledger: paging, outages, abort, coalesced wake-ups.
import { describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { isPoolSaturated, isUnavailable } from '../../src/db/errors.ts';
import type { LedgerBus } from '../../src/ledger/fanout/bus.ts';
import { LocalSubscribers } from '../../src/ledger/fanout/bus-core.ts';
import { LIVE_PAGE_SIZE } from '../../src/ledger/fanout/live-reads.ts';
import { cursorAfter, matchesFilter, type TailReads, tailLedger } from '../../src/ledger/fanout/tail.ts';
import type { StoredLedgerEvent } from '../../src/ledger/format/hash.ts';
import { range, waitUntil } from './support.ts';

const TENANT = '00000000-0000-4000-8000-000000000001';

function event(seq: number, episodeId = 'e1'): StoredLedgerEvent {
  return {
    tenantId: TENANT,
    seq,
    type: seq % 2 ? 'steps.logged' : 'episode.note',
    episodeId,
    workItemId: null,
    payload: {},
    createdAt: '',
    prevHash: '',
    hash: `h${seq}`,
  };
}

/** An in-memory ledger behind the tail's read interface, with a switch to fail reads like a dropped connection. */
function fakeLedger() {
  const events: StoredLedgerEvent[] = [];
  const local = new LocalSubscribers();
  let clock = 0;
  const state = { reads: 0, failing: false };
  const check = () => {
    state.reads += 1;
    if (state.failing) throw new Error('Connection terminated unexpectedly');
  };
  const reads: TailReads = {
    now: () => ++clock,
    head: async () => (check(), events.length),
    range: async (_t, after, to, filter) => (check(), events.filter((e) => e.seq > after && e.seq <= to && matchesFilter(e, filter)).slice(0, LIVE_PAGE_SIZE)),
    after: async (_t, after) => (check(), events.slice(after, after + LIVE_PAGE_SIZE)),
  };
  const bus = { subscribe: (t: string, l: (s: number) => void) => local.add(t, l) } as unknown as LedgerBus;
  const append = (n: number) => {
    for (let i = 0; i < n; i++) events.push(event(events.length + 1));
    local.wake(TENANT, events.length);
  };
  return { reads, bus, append, state, wakeAll: () => local.wakeAll() };
}

async function collect(gen: AsyncGenerator<StoredLedgerEvent>, into: number[]) {
  for await (const e of gen) into.push(e.seq);
}

describe('tailLedger', () => {
  it('replays in pages and then follows live, every seq once and in order', async () => {
    const ledger = fakeLedger();
    ledger.append(LIVE_PAGE_SIZE * 2 + 17);
    const abort = new AbortController();
    const seen: number[] = [];
    const done = collect(tailLedger({ ...ledger, tenantId: TENANT, cursor: cursorAfter(3), filter: null, signal: abort.signal }), seen);
    await waitUntil(() => seen.length === LIVE_PAGE_SIZE * 2 + 14, 'the replay');
    ledger.append(LIVE_PAGE_SIZE + 5); // more than a page in one wake-up
    await waitUntil(() => seen.length === LIVE_PAGE_SIZE * 3 + 19, 'the live events');
    abort.abort();
    await done;
    expect(seen).toEqual(range(LIVE_PAGE_SIZE * 3 + 22, 4));
  });

  it('holds its cursor through a database outage and resumes on the next wake-up without a gap', async () => {
    const ledger = fakeLedger();
    ledger.append(5);
    const abort = new AbortController();
    const cursor = cursorAfter(0);
    const seen: number[] = [];
    const done = collect(tailLedger({ ...ledger, tenantId: TENANT, cursor, filter: null, signal: abort.signal }), seen);
    await waitUntil(() => seen.length === 5, 'the replay');
    ledger.state.failing = true;
    const readsBefore = ledger.state.reads;
    ledger.append(3); // the read it triggers fails
    await waitUntil(() => ledger.state.reads > readsBefore, 'the failing read');
    expect(cursor.seen).toBe(5);
    ledger.state.failing = false;
    ledger.wakeAll(); // what the bus does after reconnecting
    await waitUntil(() => seen.length === 8, 'the events committed during the outage');
    abort.abort();
    await done;
    expect(seen).toEqual(range(8));
  });

  it('ends promptly on abort while waiting for a wake-up, and unsubscribes', async () => {
    const ledger = fakeLedger();
    const abort = new AbortController();
    const gen = tailLedger({ ...ledger, tenantId: TENANT, cursor: cursorAfter(null), filter: null, signal: abort.signal });
    const next = gen.next();
    await waitUntil(() => ledger.state.reads === 2, 'the head and the first live read'); // then it waits for a wake-up
    abort.abort();
    expect(await next).toEqual({ done: true, value: undefined });
    ledger.append(1);
    expect(ledger.state.reads).toBe(2); // the head and one live read, nothing after the abort
  });

  it('filters live events and coalesces wake-ups that arrive while the consumer is busy', async () => {
    const ledger = fakeLedger();
    const abort = new AbortController();
    const gen = tailLedger({ ...ledger, tenantId: TENANT, cursor: cursorAfter(0), filter: { types: ['steps.logged'] }, signal: abort.signal });
    const first = gen.next();
    ledger.append(1);
    expect((await first).value?.seq).toBe(1);
    const readsBefore = ledger.state.reads;
    for (let i = 0; i < 50; i++) ledger.append(1); // 50 wake-ups while the consumer holds seq 1
    const seen: number[] = [1];
    for (let i = 0; i < 25; i++) seen.push(must((await gen.next()).value).seq);
    expect(seen).toEqual(range(51).filter((s) => s % 2 === 1));
    expect(ledger.state.reads - readsBefore).toBeLessThanOrEqual(2);
    abort.abort();
    await gen.return(undefined);
  });

  it('rethrows errors that are not an unreachable database', async () => {
    const ledger = fakeLedger();
    ledger.reads.head = async () => {
      throw new TypeError('a bug');
    };
    const gen = tailLedger({ ...ledger, tenantId: TENANT, cursor: cursorAfter(0), filter: null, signal: new AbortController().signal });
    await expect(gen.next()).rejects.toThrow('a bug');
  });
});

describe('isUnavailable', () => {
  it('tells a lost connection from a bug', () => {
    const pgError = (code: string) => Object.assign(new Error('x'), { code });
    expect(
      [pgError('57P01'), pgError('08006'), pgError('53300'), pgError('ECONNREFUSED'), new Error('Connection terminated unexpectedly')].map(isUnavailable),
    ).toEqual([true, true, true, true, true]);
    expect([pgError('42P01'), pgError('23505'), new TypeError('x'), 'Connection terminated'].map(isUnavailable)).toEqual([false, false, false, false]);
  });

  it('tells a saturated pool (no free connection) from a lost database', () => {
    const waited = new Error('timeout exceeded when trying to connect');
    expect([isPoolSaturated(waited), isUnavailable(waited)]).toEqual([true, false]);
    expect([new Error('Connection terminated due to connection timeout'), Object.assign(new Error('x'), { code: '08006' })].map(isPoolSaturated)).toEqual([
      false,
      false,
    ]);
  });
});
