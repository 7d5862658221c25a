// Fair permits for expensive work: a group waits only behind itself, and freed permits go
// round-robin between waiting groups.
import { describe, expect, it } from 'vitest';
import { FairPermits } from '../../src/http/fair-permits.ts';

/** Takes a permit and records when it is granted. */
function taker(permits: FairPermits, order: string[]) {
  return async (group: string, label: string) => {
    const release = await permits.take(group);
    order.push(label);
    return release;
  };
}

describe('FairPermits', () => {
  it('lets another group run while one group queues behind its own permit', async () => {
    const order: string[] = [];
    const take = taker(new FairPermits(1, 3), order);
    const a1 = await take('A', 'a1');
    const a2 = take('A', 'a2');
    const b1 = await take('B', 'b1');
    expect(order).toEqual(['a1', 'b1']);
    a1();
    (await a2)();
    b1();
    expect(order).toEqual(['a1', 'b1', 'a2']);
  });

  it('serves waiting groups round-robin when the total is reached', async () => {
    const order: string[] = [];
    const permits = new FairPermits(2, 1);
    const take = taker(permits, order);
    const grants = new Map<string, Promise<() => void>>([['a1', take('A', 'a1')]]);
    for (const [group, label] of [
      ['A', 'a2'],
      ['A', 'a3'],
      ['A', 'a4'],
      ['B', 'b1'],
      ['C', 'c1'],
    ] as const)
      grants.set(label, take(group, label));
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['a1']);
    expect(permits.waiting('A')).toBe(3);
    // One permit: release whoever holds it, and see who is granted next.
    while (order.length < grants.size) {
      const holder = order[order.length - 1] ?? '';
      (await (grants.get(holder) as Promise<() => void>))();
      await new Promise((r) => setImmediate(r));
    }
    expect(order).toEqual(['a1', 'a2', 'b1', 'c1', 'a3', 'a4']);
  });

  it('never runs more than the total, nor more than perGroup for a group', async () => {
    const permits = new FairPermits(2, 3);
    const held = await Promise.all([permits.take('A'), permits.take('A'), permits.take('B')]);
    let granted = 0;
    void permits.take('A').then(() => (granted += 1));
    void permits.take('C').then(() => (granted += 1));
    await new Promise((r) => setImmediate(r));
    expect(granted).toBe(0);
    held[2]?.();
    await new Promise((r) => setImmediate(r));
    // B's permit went to C (A already runs perGroup = 2).
    expect([granted, permits.waiting('A'), permits.waiting('C')]).toEqual([1, 1, 0]);
    held[0]?.();
    held[0]?.();
    await new Promise((r) => setImmediate(r));
    expect(granted).toBe(2);
  });

  it('counts a permit at its units against the total: heavy work waits for room, and the groups behind it wait with it', async () => {
    const permits = new FairPermits(1, 10);
    const a = await permits.take('A', 6);
    const order: string[] = [];
    void permits.take('B', 6).then(() => order.push('B'));
    void permits.take('C', 2).then(() => order.push('C'));
    await new Promise((r) => setImmediate(r));
    // B's 6 do not fit beside A's 6; C's 2 would, but it is behind B in turn.
    expect([order, permits.inUse]).toEqual([[], 6]);
    a();
    await new Promise((r) => setImmediate(r));
    expect([order, permits.inUse]).toEqual([['B', 'C'], 8]);
    // A cost past the total takes the whole total, so it still runs.
    expect(await Promise.race([permits.take('D', 50).then(() => 'granted'), new Promise((r) => setTimeout(() => r('waits'), 20))])).toBe('waits');
  });
});
