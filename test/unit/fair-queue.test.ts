// Fair shares of slots between tenants and keys (src/core/fair-queue.ts): one key alone uses every
// idle slot; once callers wait, freed slots go round-robin between tenants, then keys; a key's queue
// is bounded and a wait is timed.
import { describe, expect, it } from 'vitest';
import { FairQueue, FairQueueRefusal, type Release } from '../../src/core/fair-queue.ts';

const limits = { capacity: 2, perKey: 2, queuedPerKey: 100, waitMs: 60_000 };

/** claim's slots as a promise, whether they came at once or after a wait. */
const claimed = (queue: FairQueue, ...args: Parameters<FairQueue['claim']>) => Promise.resolve(queue.claim(...args));

/** Starts `take` calls in order and records the order in which they are granted. */
function recorder(queue: FairQueue) {
  const order: string[] = [];
  const grants = new Map<string, Promise<Release>>();
  const take = (tenant: string, key: string, label: string) => {
    const grant = claimed(queue, tenant, key).then((release) => {
      order.push(label);
      return release;
    });
    grants.set(label, grant);
    return grant;
  };
  return { order, grants, take };
}

describe('FairQueue', () => {
  it('lets one key use every idle slot, and queues the next one', async () => {
    const queue = new FairQueue({ ...limits, capacity: 3, perKey: 3 });
    const { order, take } = recorder(queue);
    await Promise.all([take('T', 'a', 'a1'), take('T', 'a', 'a2'), take('T', 'a', 'a3')]);
    expect(queue.inUse).toBe(3);
    expect(queue.full).toBe(true);
    void take('T', 'a', 'a4');
    await Promise.resolve();
    expect(order).toEqual(['a1', 'a2', 'a3']);
    expect(queue.queued).toBe(1);
  });

  it("serves another tenant's caller before the busy key's earlier waiters", async () => {
    const queue = new FairQueue(limits);
    const { order, grants, take } = recorder(queue);
    const held = await Promise.all([take('A', 'a', 'a1'), take('A', 'a', 'a2')]);
    for (let i = 3; i <= 6; i++) void take('A', 'a', `a${i}`);
    void take('B', 'b', 'b1');
    held[0]?.();
    await grants.get('b1');
    expect(order).toEqual(['a1', 'a2', 'b1']);
    held[1]?.();
    await grants.get('a3');
    expect(order).toEqual(['a1', 'a2', 'b1', 'a3']);
  });

  it('shares a tenant turn between its keys, and tenants before keys', async () => {
    const queue = new FairQueue({ ...limits, capacity: 1, perKey: 1 });
    const { order, grants, take } = recorder(queue);
    let release = await take('A', 'a', 'a1');
    void take('A', 'a', 'a2');
    void take('A', 'a', 'a3');
    void take('A', 'x', 'x1');
    void take('B', 'b', 'b1');
    for (const label of ['a2', 'b1', 'x1', 'a3']) {
      release();
      release = await (grants.get(label) as Promise<Release>);
    }
    // A (first to wait), then B, then A's other key, then a again.
    expect(order).toEqual(['a1', 'a2', 'b1', 'x1', 'a3']);
  });

  it('holds one key to perKey slots while others use the rest', async () => {
    const queue = new FairQueue({ ...limits, capacity: 4, perKey: 2 });
    const { order, take } = recorder(queue);
    await Promise.all([take('A', 'a', 'a1'), take('A', 'a', 'a2')]);
    void take('A', 'a', 'a3');
    await take('B', 'b', 'b1');
    expect(order).toEqual(['a1', 'a2', 'b1']);
    expect(queue.inUse).toBe(3);
  });

  it("refuses a caller past its key's queue, and one whose wait runs out; a release twice frees one slot", async () => {
    const queue = new FairQueue({ capacity: 1, perKey: 1, queuedPerKey: 1, waitMs: 20 });
    const release = await claimed(queue, 'A', 'a');
    const waiting = claimed(queue, 'A', 'a');
    await expect(claimed(queue, 'A', 'a')).rejects.toMatchObject({ reason: 'key-busy' });
    await expect(waiting).rejects.toBeInstanceOf(FairQueueRefusal);
    await expect(waiting).rejects.toMatchObject({ reason: 'timeout' });
    expect(queue.queued).toBe(0);
    release();
    release();
    expect(queue.inUse).toBe(0);
    expect(queue.claim('B', 'b')).toBeTypeOf('function');
    await expect(claimed(queue, 'B', 'b')).rejects.toMatchObject({ reason: 'timeout' });
  });

  it("bounds the bytes a key's waiters hold, lets one waiter of any size wait, and says beforehand who would be refused", async () => {
    const queue = new FairQueue({ capacity: 2, perKey: 1, queuedPerKey: 10, queuedBytesPerKey: 100, waitMs: 60_000 });
    const release = await claimed(queue, 'A', 'a', 1, 1_000);
    expect(queue.anyWaiting).toBe(false);
    expect(queue.refusalNow('A', 'a', 1_000)).toBeNull();
    const big = claimed(queue, 'A', 'a', 1, 150);
    expect(queue.anyWaiting).toBe(true);
    expect(queue.refusalNow('A', 'a', 1)).toBe('key-busy');
    await expect(claimed(queue, 'A', 'a', 1, 1)).rejects.toMatchObject({ reason: 'key-busy' });
    // Another key of the tenant, and another tenant, are not held to a's bytes.
    expect(queue.refusalNow('A', 'x', 1_000)).toBeNull();
    expect(queue.refusalNow('B', 'b', 1_000)).toBeNull();
    release();
    (await big)();
    // a's waiter was served: its bytes no longer count.
    const again = await claimed(queue, 'A', 'a');
    const small = [claimed(queue, 'A', 'a', 1, 60), claimed(queue, 'A', 'a', 1, 40)];
    expect(queue.queued).toBe(2);
    expect(queue.refusalNow('A', 'a', 1)).toBe('key-busy');
    expect(queue.refusalNow('A', 'a', 0)).toBeNull();
    again();
    (await small[0])?.();
    (await small[1])?.();
    expect(queue.inUse).toBe(0);
  });

  it('charges a caller the slots it asks for, at most its key share: a heavy key runs one at a time while another tenant runs at once', async () => {
    const queue = new FairQueue({ ...limits, capacity: 8, perKey: 4 });
    const first = await claimed(queue, 'A', 'a', 500);
    expect(queue.inUse).toBe(4);
    let second: Release | undefined;
    const waiting = claimed(queue, 'A', 'a', 500).then((r) => (second = r));
    const other = await claimed(queue, 'B', 'b', 1);
    expect(queue.inUse).toBe(5);
    await Promise.resolve();
    expect(second).toBeUndefined();
    first();
    await waiting;
    expect(queue.inUse).toBe(5);
    other();
    second?.();
    expect(queue.inUse).toBe(0);
  });

  it('keeps a heavy waiter its turn: freed slots wait for it rather than go to lighter callers behind it', async () => {
    const queue = new FairQueue({ ...limits, capacity: 4, perKey: 4 });
    const light = await Promise.all([claimed(queue, 'B', 'b'), claimed(queue, 'B', 'b'), claimed(queue, 'B', 'b')]);
    const order: string[] = [];
    const heavy = claimed(queue, 'A', 'a', 3).then((r) => (order.push('heavy'), r));
    await claimed(queue, 'C', 'c');
    const late = claimed(queue, 'D', 'd').then((r) => (order.push('late'), r));
    for (const release of light) release();
    await heavy;
    expect(order).toEqual(['heavy']);
    expect(queue.inUse).toBe(4);
    (await heavy)();
    await late;
    expect(order).toEqual(['heavy', 'late']);
  });
});

describe('FairQueue shared share', () => {
  const shared = { capacity: 10, perKey: 6, sharedPerKey: 2, queuedPerKey: 100, waitMs: 60_000 };

  it('lets a key alone hold perKey slots, and only sharedPerKey once another key is active', async () => {
    const queue = new FairQueue(shared);
    const { order, grants, take } = recorder(queue);
    await Promise.all(['a1', 'a2', 'a3', 'a4'].map((label) => take('A', 'a', label)));
    expect(queue.inUse).toBe(4);
    expect(queue.shareOf('a')).toBe(6);
    // Another tenant's key asks: it starts at once, and the busy key's next callers wait until it holds fewer than 2.
    await take('B', 'b', 'b1');
    expect(queue.shareOf('a')).toBe(2);
    void take('A', 'a', 'a5');
    await Promise.resolve();
    expect(order).toEqual(['a1', 'a2', 'a3', 'a4', 'b1']);
    for (const label of ['a1', 'a2']) (await grants.get(label))?.();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(order).not.toContain('a5'); // it still holds 2
    (await grants.get('a3'))?.();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(order).toContain('a5');
  });

  it('caps one caller at sharedPerKey slots, so heavy work always fits the share', async () => {
    const queue = new FairQueue(shared);
    const release = await claimed(queue, 'A', 'a', 50);
    expect(queue.inUse).toBe(2);
    release();
  });

  it('is perKey when sharedPerKey is absent', () => {
    expect(new FairQueue({ capacity: 4, perKey: 3, queuedPerKey: 1, waitMs: 10 }).shareOf('a')).toBe(3);
  });

  it('claim returns a free slot synchronously, and a wait (a promise) once the slots are taken, never overtaking a waiter of the same key', async () => {
    const queue = new FairQueue({ capacity: 2, perKey: 2, queuedPerKey: 10, waitMs: 60_000 });
    const first = queue.claim('A', 'a');
    const second = queue.claim('A', 'a', 1);
    expect(first).toBeTypeOf('function');
    expect(second).toBeTypeOf('function');
    expect(queue.inUse).toBe(2);
    const waiting = queue.claim('A', 'a');
    expect(waiting).toBeInstanceOf(Promise);
    (first as Release)();
    // The freed slot went to the waiter, not to a later claim.
    const granted = await waiting;
    const third = queue.claim('A', 'a');
    expect(third).toBeInstanceOf(Promise);
    (second as Release)();
    granted();
    (await third)();
    expect(queue.inUse).toBe(0);
  });

  it('resolves the waits of a full queue round-robin by tenant, then key, whatever order they came in', async () => {
    const queue = new FairQueue({ capacity: 1, perKey: 1, queuedPerKey: 10, waitMs: 60_000 });
    const held = queue.claim('A', 'a') as Release;
    const order: string[] = [];
    const labels = ['A/a 1', 'A/a 2', 'A/x 1', 'B/b 1', 'B/b 2'];
    const waits = labels.map((label) => {
      const [tenant, key] = label.split(/[/ ]/) as [string, string];
      const wait = queue.claim(tenant, key);
      expect(wait).toBeInstanceOf(Promise);
      return (wait as Promise<Release>).then((release) => {
        order.push(label);
        return release;
      });
    });
    let release = held;
    for (const expected of ['A/a 1', 'B/b 1', 'A/x 1', 'B/b 2', 'A/a 2']) {
      release();
      release = await (waits[labels.indexOf(expected)] as Promise<Release>);
      expect(order.at(-1)).toBe(expected);
    }
    release();
    expect(queue.inUse).toBe(0);
  });

  it('gives up an aborted waiter: refused as aborted, its place and bytes freed, the next waiter served', async () => {
    const queue = new FairQueue({ capacity: 1, perKey: 1, queuedPerKey: 2, queuedBytesPerKey: 100, waitMs: 60_000 });
    const held = queue.claim('A', 'a') as Release;
    const gone = new AbortController();
    const aborted = queue.claim('B', 'b', 1, 80, gone.signal);
    const next = queue.claim('B', 'b', 1, 20);
    expect(queue.queued).toBe(2);
    gone.abort();
    await expect(aborted).rejects.toMatchObject({ reason: 'aborted' });
    expect(queue.queued).toBe(1);
    // b's waiters hold 20 bytes now: one of 80 fits again.
    expect(queue.refusalNow('B', 'b', 80)).toBeNull();
    held();
    (await next)();
    expect(queue.inUse).toBe(0);
    // A signal aborted before the claim waits for nothing; one aborted after its grant changes nothing.
    const blocker = queue.claim('A', 'a') as Release;
    const late = new AbortController();
    late.abort();
    await expect(claimed(queue, 'B', 'b', 1, 0, late.signal)).rejects.toMatchObject({ reason: 'aborted' });
    const kept = new AbortController();
    const wait = queue.claim('B', 'b', 1, 0, kept.signal);
    blocker();
    const release = await wait;
    kept.abort();
    expect(queue.inUse).toBe(1);
    release();
    expect(queue.inUse).toBe(0);
  });
});
