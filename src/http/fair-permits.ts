// Permits for expensive work, fair between groups (tenants): at most `perGroup` run at once for one
// group and `total` across all of them. A group waits only behind itself while fewer than `total`
// groups are busy; beyond that, freed permits go round-robin to the groups that wait, so one tenant's
// queue of verifications never delays another's by more than one turn. Pure: no I/O.
export class FairPermits {
  private running = 0;
  private readonly runningBy = new Map<string, number>();
  /** Waiters per group; the map's order is the round-robin order (a group served moves to the back). */
  private readonly queues = new Map<string, Array<() => void>>();

  constructor(
    private readonly perGroup: number,
    private readonly total: number,
  ) {}

  /** Waits for a permit of `group`; resolves with its release (calling it twice is harmless). */
  async take(group: string): Promise<() => void> {
    if (!this.queues.has(group) && this.canRun(group)) this.start(group);
    else await new Promise<void>((resolve) => this.enqueue(group, resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= 1;
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

  private canRun(group: string): boolean {
    return this.running < this.total && (this.runningBy.get(group) ?? 0) < this.perGroup;
  }

  private start(group: string): void {
    this.running += 1;
    this.runningBy.set(group, (this.runningBy.get(group) ?? 0) + 1);
  }

  private enqueue(group: string, resolve: () => void): void {
    const queue = this.queues.get(group);
    if (queue) queue.push(resolve);
    else this.queues.set(group, [resolve]);
    this.dispatch();
  }

  /** Hands free permits to waiting groups, one per group per round, in round-robin order. */
  private dispatch(): void {
    for (const [group, queue] of [...this.queues]) {
      if (this.running >= this.total) return;
      if (!this.canRun(group)) continue;
      const next = queue.shift();
      this.queues.delete(group);
      if (queue.length) this.queues.set(group, queue);
      if (!next) continue;
      this.start(group);
      next();
    }
  }
}
