// Fair shares of slots between tenants and keys (src/core/fair-queue.ts): one key alone uses every
// idle slot; once callers wait, freed slots go round-robin between tenants, then keys; a key's queue
// is bounded and a wait is timed.
import { describe, expect, it } from 'vitest';
import { FairQueue, FairQueueRefusal, type Release } from '../../src/core/fair-queue.ts';

const limits = { capacity: 2, perKey: 2, queuedPerKey: 100, waitMs: 60_000 };

/** Starts `take` calls in order and records the order in which they are granted. */
function recorder(queue: FairQueue) {
  const order: string[] = [];
  const grants = new Map<string, Promise<Release>>();
  const take = (tenant: string, key: string, label: string) => {
    const grant = queue.take(tenant, key).then((release) => {
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
    const release = await queue.take('A', 'a');
    const waiting = queue.take('A', 'a');
    await expect(queue.take('A', 'a')).rejects.toMatchObject({ reason: 'key-busy' });
    await expect(waiting).rejects.toBeInstanceOf(FairQueueRefusal);
    await expect(waiting).rejects.toMatchObject({ reason: 'timeout' });
    expect(queue.queued).toBe(0);
    release();
    release();
    expect(queue.inUse).toBe(0);
    expect(queue.tryTake('B', 'b')).toBeTypeOf('function');
    expect(queue.tryTake('B', 'b')).toBeNull();
  });

  it("bounds the bytes a key's waiters hold, lets one waiter of any size wait, and says beforehand who would be refused", async () => {
    const queue = new FairQueue({ capacity: 2, perKey: 1, queuedPerKey: 10, queuedBytesPerKey: 100, waitMs: 60_000 });
    const release = await queue.take('A', 'a', 1, 1_000);
    expect(queue.anyWaiting).toBe(false);
    expect(queue.refusalNow('A', 'a', 1_000)).toBeNull();
    const big = queue.take('A', 'a', 1, 150);
    expect(queue.anyWaiting).toBe(true);
    expect(queue.refusalNow('A', 'a', 1)).toBe('key-busy');
    await expect(queue.take('A', 'a', 1, 1)).rejects.toMatchObject({ reason: 'key-busy' });
    // Another key of the tenant, and another tenant, are not held to a's bytes.
    expect(queue.refusalNow('A', 'x', 1_000)).toBeNull();
    expect(queue.refusalNow('B', 'b', 1_000)).toBeNull();
    release();
    (await big)();
    // a's waiter was served: its bytes no longer count.
    const again = await queue.take('A', 'a');
    const small = [queue.take('A', 'a', 1, 60), queue.take('A', 'a', 1, 40)];
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
    const first = await queue.take('A', 'a', 500);
    expect(queue.inUse).toBe(4);
    let second: Release | undefined;
    const waiting = queue.take('A', 'a', 500).then((r) => (second = r));
    const other = await queue.take('B', 'b', 1);
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
    const light = await Promise.all([queue.take('B', 'b'), queue.take('B', 'b'), queue.take('B', 'b')]);
    const order: string[] = [];
    const heavy = queue.take('A', 'a', 3).then((r) => (order.push('heavy'), r));
    await queue.take('C', 'c');
    const late = queue.take('D', 'd').then((r) => (order.push('late'), r));
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
    const release = await queue.take('A', 'a', 50);
    expect(queue.inUse).toBe(2);
    release();
  });

  it('is perKey when sharedPerKey is absent', () => {
    expect(new FairQueue({ capacity: 4, perKey: 3, queuedPerKey: 1, waitMs: 10 }).shareOf('a')).toBe(3);
  });

  it('takeNow grants a free slot synchronously and never overtakes a waiter of the same key', async () => {
    const queue = new FairQueue({ capacity: 2, perKey: 2, queuedPerKey: 10, waitMs: 60_000 });
    const first = queue.takeNow('A', 'a');
    const second = queue.takeNow('A', 'a', 1);
    expect(first).toBeTypeOf('function');
    expect(second).toBeTypeOf('function');
    expect(queue.inUse).toBe(2);
    expect(queue.takeNow('B', 'b')).toBeNull();
    const waiting = queue.take('A', 'a');
    first?.();
    // The freed slot went to the waiter, not to a later takeNow.
    const granted = await waiting;
    expect(queue.takeNow('A', 'a')).toBeNull();
    second?.();
    granted();
    expect(queue.inUse).toBe(0);
  });
});
