// Permits for expensive work, fair between groups (tenants): at most `perGroup` run at once for one
// group and `total` units across all of them (one unit per permit unless a caller says its work
// costs more: a large read's bytes in memory). A group waits only behind itself while there is room;
// beyond that, freed units go round-robin to the groups that wait, so one tenant's queue of
// verifications never delays another's by more than one turn. A turn whose units are not all free
// yet waits for them, and so do the groups behind it: heavy work is never passed over for ever.
// Pure: no I/O.
interface Waiter {
  units: number;
  resolve(): void;
}

export class FairPermits {
  private running = 0;
  private readonly runningBy = new Map<string, number>();
  /** Waiters per group; the map's order is the round-robin order (a group served moves to the back). */
  private readonly queues = new Map<string, Waiter[]>();

  constructor(
    private readonly perGroup: number,
    private readonly total: number,
  ) {}

  /** Units in use now (read by tests). */
  get inUse(): number {
    return this.running;
  }

  /** Waits for a permit of `group` costing `units` (at most `total`); resolves with its release (calling it twice is harmless). */
  async take(group: string, units = 1): Promise<() => void> {
    const cost = Math.min(Math.max(units, 1), this.total);
    if (!this.queues.has(group) && this.canRun(group, cost) && !this.waitingForUnits()) this.start(group, cost);
    else await new Promise<void>((resolve) => this.enqueue(group, { units: cost, resolve }));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= cost;
      const left = (this.runningBy.get(group) ?? 1) - 1;
      if (left > 0) this.runningBy.set(group, left);
      else this.runningBy.delete(group);
      this.dispatch();
    };
  }

  /** Waiting callers of `group` (read by test/unit/fair-permits.test.ts). */
  waiting(group: string): number {
    return this.queues.get(group)?.length ?? 0;
  }

  private canRun(group: string, units: number): boolean {
    return this.running + units <= this.total && (this.runningBy.get(group) ?? 0) < this.perGroup;
  }

  /** Some group waits for free units (not for its own perGroup): a newcomer queues behind it. */
  private waitingForUnits(): boolean {
    for (const group of this.queues.keys()) if ((this.runningBy.get(group) ?? 0) < this.perGroup) return true;
    return false;
  }

  private start(group: string, units: number): void {
    this.running += units;
    this.runningBy.set(group, (this.runningBy.get(group) ?? 0) + 1);
  }

  private enqueue(group: string, waiter: Waiter): void {
    const queue = this.queues.get(group);
    if (queue) queue.push(waiter);
    else this.queues.set(group, [waiter]);
    this.dispatch();
  }

  /** Hands free permits to waiting groups, one per group per round, in round-robin order. */
  private dispatch(): void {
    for (const [group, queue] of [...this.queues]) {
      if ((this.runningBy.get(group) ?? 0) >= this.perGroup) continue;
      const head = queue[0];
      // The next group in turn waits until its units are free, and the groups behind it with it.
      if (head && this.running + head.units > this.total) return;
      queue.shift();
      this.queues.delete(group);
      if (queue.length) this.queues.set(group, queue);
      if (!head) continue;
      this.start(group, head.units);
      head.resolve();
    }
  }
}
