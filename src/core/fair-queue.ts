// Fair shares of a fixed number of slots (request slots, database connections) between tenants and,
// within a tenant, between API keys (max-min fair sharing, as deficit round robin with a quantum of
// one slot gives it). A caller may take several slots at once (its work's cost: an OTLP export's
// spans, an MCP batch's calls), at most the key's share, so heavy work holds what it costs. A caller runs at once while a slot is free and its key has nobody waiting, so
// one key alone may use every idle slot; once callers wait, each freed slot goes to the waiting
// tenant holding the fewest slots and, within it, to the key holding the fewest (ties round-robin),
// so a key with many requests waits behind its own requests, never in front of another key's. Each
// key's queue is bounded (callers, and the bytes of the request bodies they hold while they wait) and
// each wait is timed (and given up when its caller aborts it), so a flood is refused (one answer)
// instead of held. One call, claim, answers a free slot synchronously (no promise on the hot path)
// or a wait.
//
// Why not a library: p-queue and bottleneck schedule one FIFO (with priorities, or one limiter per
// group without a shared, fair total); Envoy's and nginx's per-client limits cap a client
// (limit_conn) without sharing a total between clients; PgBouncer queues clients FIFO per pool. The
// rule here is small and pure (no I/O; test/unit/fair-queue.test.ts).

export type Release = () => void;

/** How long a key that asked for a slot counts as active for sharedPerKey. */
const ACTIVE_MS = 1000;

export interface FairQueueLimits {
  /** Slots in all. */
  capacity: number;
  /** Slots one key may hold at once while no other key is active (nginx's limit_conn); at most `capacity`. */
  perKey: number;
  /**
   * Slots one key may hold while another key is active (holds a slot, waits, or asked within
   * ACTIVE_MS), and the most one caller takes; at most perKey, which it defaults to. Few requests in
   * flight already keep the cores and connections busy, and more only queue their callbacks on the
   * one event loop in front of the other key's; a key alone gets perKey for work that waits on I/O.
   */
  sharedPerKey?: number;
  /** Callers of one key that may wait for a slot; beyond it a caller is refused at once. */
  queuedPerKey: number;
  /** Bytes (of the request bodies held while waiting) one key's waiting callers may hold; beyond it a caller is refused at once. No bound when absent. */
  queuedBytesPerKey?: number;
  /** How long a caller waits for a slot before it is refused. */
  waitMs: number;
}

/** Why a caller got no slot; 'aborted': it gave up its wait (its client went away). */
export type Refusal = 'key-busy' | 'full' | 'timeout' | 'aborted';

export class FairQueueRefusal extends Error {
  constructor(readonly reason: Refusal) {
    super(`no slot: ${reason}`);
  }
}

interface Waiter {
  units: number;
  bytes: number;
  grant(): void;
  refuse(reason: Refusal): void;
}

/** Adds `by` to a count, dropping counts that reach zero. */
function add(counts: Map<string, number>, name: string, by: number): void {
  const n = (counts.get(name) ?? 0) + by;
  if (n > 0) counts.set(name, n);
  else counts.delete(name);
}

interface Who {
  tenant: string;
  key: string;
  /** Slots the caller holds while it runs. */
  units: number;
}

export class FairQueue {
  private running = 0;
  private readonly runningBy = new Map<string, number>();
  private readonly runningByTenant = new Map<string, number>();
  /** Waiters per tenant and key; the maps' orders are the round-robin orders (one served moves to the back). */
  private readonly waiting = new Map<string, Map<string, Waiter[]>>();
  /** Bytes the waiters of each key hold. */
  private readonly queuedBytesBy = new Map<string, number>();
  /** When each key last asked for a slot (ms), kept for ACTIVE_MS: a victim asking one request at a time stays active between its requests. */
  private readonly askedAt = new Map<string, number>();
  private readonly sharedPerKey: number;

  constructor(private readonly limits: FairQueueLimits) {
    this.sharedPerKey = Math.min(limits.sharedPerKey ?? limits.perKey, limits.perKey);
  }

  get inUse(): number {
    return this.running;
  }

  get full(): boolean {
    return this.running >= this.limits.capacity;
  }

  /** Some caller waits (a cheap test before refusalNow). */
  get anyWaiting(): boolean {
    return this.waiting.size > 0;
  }

  /** Callers waiting in all (read by /metrics and tests). */
  get queued(): number {
    let n = 0;
    for (const keys of this.waiting.values()) for (const q of keys.values()) n += q.length;
    return n;
  }

  /**
   * Why a caller of `key` holding `bytes` would be refused at once now (it cannot start and its
   * key's queue is full), else null. Lets a door refuse before it reads and parses a body it would refuse anyway.
   */
  refusalNow(tenant: string, key: string, bytes = 0): Refusal | null {
    this.asked(key);
    const who = { tenant, key, units: 1 };
    return this.canStartNow(who) || this.roomToWait(who, bytes) ? null : this.refusalOf(who);
  }

  private who(tenant: string, key: string, units: number): Who {
    return { tenant, key, units: Math.max(1, Math.min(Math.ceil(units), this.sharedPerKey, this.limits.capacity)) };
  }

  /**
   * `units` slots (1 by default; at most the key's share) for a caller holding `bytes` (its
   * request's body) while it waits: the release at once when they are free and nobody of the key
   * waits (no promise: a hot path's caller goes on synchronously), else a promise of it in the
   * caller's fair turn. The promise rejects with FairQueueRefusal when the key's queue is full, the
   * wait passes waitMs, or `signal` aborts while the caller waits (its place is given up).
   */
  claim(tenant: string, key: string, units = 1, bytes = 0, signal?: AbortSignal): Release | Promise<Release> {
    this.asked(key);
    const who = this.who(tenant, key, units);
    if (this.canStartNow(who)) return this.start(who);
    if (!this.roomToWait(who, bytes)) return Promise.reject(new FairQueueRefusal(this.refusalOf(who)));
    if (signal?.aborted) return Promise.reject(new FairQueueRefusal('aborted'));
    return this.wait(who, bytes, signal);
  }

  private wait(who: Who, bytes: number, signal: AbortSignal | undefined): Promise<Release> {
    const queue = this.queueOf(who);
    return new Promise<Release>((resolve, reject) => {
      const leave = () => signal?.removeEventListener('abort', onAbort);
      const waiter: Waiter = {
        units: who.units,
        bytes,
        grant: () => {
          clearTimeout(timer);
          leave();
          resolve(this.start(who));
        },
        refuse: (reason) => reject(new FairQueueRefusal(reason)),
      };
      /** Out of the queue without a slot; the callers behind a heavy one may fit now. */
      const giveUp = (reason: Refusal) => {
        const at = queue.indexOf(waiter);
        if (at < 0) return;
        clearTimeout(timer);
        leave();
        queue.splice(at, 1);
        add(this.queuedBytesBy, who.key, -waiter.bytes);
        this.dropIfEmpty(who);
        waiter.refuse(reason);
        this.dispatch();
      };
      const onAbort = () => giveUp('aborted');
      const timer = setTimeout(() => giveUp('timeout'), this.limits.waitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
      add(this.queuedBytesBy, who.key, bytes);
    });
  }

  private refusalOf(who: Who): Refusal {
    return (this.runningBy.get(who.key) ?? 0) + who.units > this.shareOf(who.key) ? 'key-busy' : 'full';
  }

  /** The slots `key` may hold now: sharedPerKey while another key is active, else perKey. */
  shareOf(key: string): number {
    return this.sharedPerKey < this.limits.perKey && this.othersActive(key) ? this.sharedPerKey : this.limits.perKey;
  }

  private asked(key: string): void {
    if (this.sharedPerKey < this.limits.perKey) this.askedAt.set(key, Date.now());
  }

  /** Whether a key other than `key` holds a slot, waits, or asked within ACTIVE_MS (also read by paced heavy work, src/http/paced-work.ts). */
  othersActive(key: string): boolean {
    for (const other of this.runningBy.keys()) if (other !== key) return true;
    for (const keys of this.waiting.values()) for (const other of keys.keys()) if (other !== key) return true;
    const now = Date.now();
    for (const [other, at] of this.askedAt) {
      if (now - at > ACTIVE_MS) this.askedAt.delete(other);
      else if (other !== key) return true;
    }
    return false;
  }

  /** The key's queue has room for one more caller holding `bytes` (one caller always fits an empty byte budget). */
  private roomToWait(who: Who, bytes: number): boolean {
    const waiting = this.waiting.get(who.tenant)?.get(who.key)?.length ?? 0;
    if (waiting >= this.limits.queuedPerKey) return false;
    const held = this.queuedBytesBy.get(who.key) ?? 0;
    return waiting === 0 || held + bytes <= (this.limits.queuedBytesPerKey ?? Number.POSITIVE_INFINITY);
  }

  private fits(who: Who): boolean {
    return this.running + who.units <= this.limits.capacity && (this.runningBy.get(who.key) ?? 0) + who.units <= this.shareOf(who.key);
  }

  private canStartNow(who: Who): boolean {
    return this.fits(who) && !this.waiting.get(who.tenant)?.get(who.key)?.length;
  }

  private start(who: Who): Release {
    this.count(who, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.count(who, -1);
      this.dispatch();
    };
  }

  private count(who: Who, sign: 1 | -1): void {
    this.running += sign * who.units;
    add(this.runningBy, who.key, sign * who.units);
    add(this.runningByTenant, who.tenant, sign * who.units);
  }

  private queueOf(who: Who): Waiter[] {
    let keys = this.waiting.get(who.tenant);
    if (!keys) this.waiting.set(who.tenant, (keys = new Map()));
    let queue = keys.get(who.key);
    if (!queue) keys.set(who.key, (queue = []));
    return queue;
  }

  private dropIfEmpty(who: Who): void {
    const keys = this.waiting.get(who.tenant);
    if (keys?.get(who.key)?.length === 0) keys.delete(who.key);
    if (keys?.size === 0) this.waiting.delete(who.tenant);
  }

  /**
   * Hands free slots to waiters, one at a time: to the waiting tenant that holds the fewest slots, and
   * within it to the waiting key that holds the fewest; ties go round-robin (one served moves to the back).
   * A turn whose slots are not all free yet waits for them, and so does everyone behind it: a heavy
   * caller is never passed over for ever.
   */
  private dispatch(): void {
    while (!this.full) {
      const next = this.nextToServe();
      if (!next) return;
      const head = next.keys.get(next.key)?.[0];
      if (head && this.running + head.units > this.limits.capacity) return;
      this.grantNext(next.tenant, next.keys, next.key);
    }
  }

  private nextToServe(): { tenant: string; keys: Map<string, Waiter[]>; key: string } | undefined {
    let best: { tenant: string; keys: Map<string, Waiter[]>; key: string } | undefined;
    let bestHeld = Number.POSITIVE_INFINITY;
    for (const [tenant, keys] of this.waiting) {
      const held = this.runningByTenant.get(tenant) ?? 0;
      if (held >= bestHeld) continue;
      const key = this.leastBusyKey(keys);
      if (key === undefined) continue;
      best = { tenant, keys, key };
      bestHeld = held;
    }
    return best;
  }

  private leastBusyKey(keys: Map<string, Waiter[]>): string | undefined {
    let best: string | undefined;
    let bestHeld = Number.POSITIVE_INFINITY;
    for (const [key, queue] of keys) {
      const held = this.runningBy.get(key) ?? 0;
      if (held + (queue[0]?.units ?? 1) <= this.shareOf(key) && held < bestHeld) {
        best = key;
        bestHeld = held;
      }
    }
    return best;
  }

  private grantNext(tenant: string, keys: Map<string, Waiter[]>, key: string): void {
    const queue = keys.get(key) ?? [];
    const next = queue.shift();
    if (next) add(this.queuedBytesBy, key, -next.bytes);
    // Served: the key and the tenant go to the back of their round-robin orders.
    keys.delete(key);
    if (queue.length) keys.set(key, queue);
    this.waiting.delete(tenant);
    if (keys.size) this.waiting.set(tenant, keys);
    next?.grant();
  }
}
