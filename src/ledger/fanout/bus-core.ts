// What both fan-out transports share: the bus interface, this process's subscribers by tenant, the coalescing
// outbox, and the notification payload. A notification only says "tenant T has a head at seq S";
// subscribers always read the events themselves from the ledger.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';

export interface LedgerBus {
  /** Call after the commit that made `seq` the tenant's head. Coalesced; never blocks the writer. */
  publish(tenantId: string, seq: number): void;
  /** Also called once for everyone after a reconnect and on every safety tick. Returns unsubscribe. */
  subscribe(tenantId: string, listener: (headSeq: number) => void): () => void;
  /**
   * Call after the commit that revoked `keyId`: every process (this one at once) tells its
   * revocation listeners, which end that key's streams. Not coalesced: revocations are rare.
   */
  announceRevoked(keyId: string): void;
  /** Called with each revoked key id, in every process. Returns unsubscribe. */
  onRevoked(listener: (keyId: string) => void): () => void;
  start(): Promise<void>;
  /** Sends what is still pending, then disconnects. */
  stop(): Promise<void>;
  /** False while the transport is reconnecting (subscribers then rely on safety re-reads). */
  readonly healthy: boolean;
  /** Subscribers in this process. */
  readonly subscribers: number;
}

/** The fan-out transport could not be reached at start-up (a configuration problem, not a bug). */
export class FanOutUnavailableError extends Error {
  override name = 'FanOutUnavailableError';
}

export interface BusOptions {
  /** Publishes per tenant are merged into one notification per this window. */
  coalesceMs: number;
  /** Every subscriber re-reads this often even without a notification. */
  safetyReadMs: number;
}

export type HeadListener = (headSeq: number) => void;

interface TenantListeners {
  listeners: Set<HeadListener>;
  /** Highest head already announced here: a process hears its own notifications back. */
  announced: number;
}

/** Subscribers of this process, woken per tenant, and all at once after a reconnect or a safety tick. */
export class LocalSubscribers {
  private readonly byTenant = new Map<string, TenantListeners>();
  private ticker: NodeJS.Timeout | null = null;
  private listeners = 0;

  get count(): number {
    return this.listeners;
  }

  add(tenantId: string, listener: HeadListener): () => void {
    let entry = this.byTenant.get(tenantId);
    if (!entry) this.byTenant.set(tenantId, (entry = { listeners: new Set(), announced: 0 }));
    entry.listeners.add(listener);
    this.listeners += 1;
    return () => {
      if (entry.listeners.delete(listener)) this.listeners -= 1;
      if (!entry.listeners.size && this.byTenant.get(tenantId) === entry) this.byTenant.delete(tenantId);
    };
  }

  wake(tenantId: string, seq: number): void {
    const entry = this.byTenant.get(tenantId);
    if (!entry || seq <= entry.announced) return;
    entry.announced = seq;
    for (const listener of [...entry.listeners]) listener(seq);
  }

  /** Notifications may have been missed (reconnect, lost message): everyone re-reads once. */
  wakeAll(): void {
    for (const entry of [...this.byTenant.values()]) for (const listener of [...entry.listeners]) listener(entry.announced);
  }

  /** One timer for every subscriber, so their safety re-reads coincide and share a query. */
  startSafetyTicks(everyMs: number): void {
    this.ticker = setInterval(() => this.wakeAll(), everyMs);
    this.ticker.unref();
  }

  stopSafetyTicks(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
  }
}

/**
 * Keeps the highest seq per tenant and sends them as one batch at most once per interval, one
 * batch at a time. The first publish after a quiet interval goes out on the next turn of the loop.
 */
export class Coalescer {
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private sending: Promise<void> | null = null;
  private lastSentAt = -Infinity;
  private failing = false;

  constructor(
    private readonly intervalMs: number,
    private readonly send: (heads: Map<string, number>) => Promise<void>,
    /** Called on the first failure of a run of failures, so an outage logs once, not 50 times a second. */
    private readonly onFailure: (err: unknown) => void,
  ) {}

  add(tenantId: string, seq: number): void {
    if (seq > (this.pending.get(tenantId) ?? 0)) this.pending.set(tenantId, seq);
    this.schedule();
  }

  /** Sends whatever is pending now (shutdown). */
  async drain(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.sending;
    if (this.pending.size) await this.flush();
  }

  private schedule(): void {
    if (this.timer || this.sending || !this.pending.size) return;
    const wait = Math.max(0, this.lastSentAt + this.intervalMs - performance.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.sending = this.flush().finally(() => {
        this.sending = null;
        this.schedule();
      });
    }, wait);
  }

  private async flush(): Promise<void> {
    const heads = this.pending;
    this.pending = new Map();
    this.lastSentAt = performance.now();
    try {
      await this.send(heads);
      this.failing = false;
    } catch (err) {
      // Dropped, not retried: remote subscribers catch up on their safety re-read or reconnect.
      if (!this.failing) this.onFailure(err);
      this.failing = true;
    }
  }
}

/** What both transports do the same way: local delivery at once, remote delivery coalesced. */
export abstract class FanOutBase {
  protected readonly local = new LocalSubscribers();
  protected readonly outbox: Coalescer;
  private readonly revocationListeners = new Set<(keyId: string) => void>();

  constructor(
    protected readonly log: Logger,
    protected readonly options: BusOptions,
  ) {
    this.outbox = new Coalescer(
      options.coalesceMs,
      (heads) => this.send(heads),
      (err) => log.warn({ err }, 'ledger notifications are failing; other processes fall back to safety re-reads'),
    );
  }

  get subscribers(): number {
    return this.local.count;
  }

  publish(tenantId: string, seq: number): void {
    // Subscribers in this process need not wait for the round trip through the transport.
    this.local.wake(tenantId, seq);
    this.outbox.add(tenantId, seq);
  }

  subscribe(tenantId: string, listener: HeadListener): () => void {
    return this.local.add(tenantId, listener);
  }

  announceRevoked(keyId: string): void {
    // This process's streams end now, before the round trip; the others when the message arrives.
    this.revokedHere(keyId);
    this.sendRevoked(keyId).catch((err: unknown) =>
      this.log.warn({ err, keyId }, 'a key revocation could not be announced; other processes end its streams at their next key recheck'),
    );
  }

  onRevoked(listener: (keyId: string) => void): () => void {
    this.revocationListeners.add(listener);
    return () => this.revocationListeners.delete(listener);
  }

  /** A revocation heard from the transport (this process hears its own back: ending twice is a no-op). */
  protected revokedHere(keyId: string): void {
    if (!UUID.test(keyId)) return;
    for (const listener of [...this.revocationListeners]) listener(keyId);
  }

  /** Announces the heads to every process, this one included (it skips heads it already announced). */
  protected abstract send(heads: Map<string, number>): Promise<void>;

  /** Announces a revoked key to every process. */
  protected abstract sendRevoked(keyId: string): Promise<void>;
}

/** The channel is shared: only a key id is taken as one. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; Redis gets the same chunks. */
const MAX_PAYLOAD_CHARS = 7_900;

/** "tenantId seq" lines, split into payloads small enough for one notification each. */
export function encodeHeads(heads: Map<string, number>): string[] {
  const payloads: string[] = [];
  let current = '';
  for (const [tenantId, seq] of heads) {
    const line = `${tenantId} ${seq}`;
    if (current && current.length + 1 + line.length > MAX_PAYLOAD_CHARS) {
      payloads.push(current);
      current = line;
    } else {
      current = current ? `${current}\n${line}` : line;
    }
  }
  if (current) payloads.push(current);
  return payloads;
}

/** Skips malformed lines: the channel is shared, and a bad line must not stop the good ones. */
export function decodeHeads(payload: string): Array<[tenantId: string, seq: number]> {
  return payload.split('\n').flatMap((line) => {
    const [tenantId, seqText] = line.split(' ');
    const seq = Number(seqText);
    return tenantId && Number.isSafeInteger(seq) && seq > 0 ? [[tenantId, seq] as [string, number]] : [];
  });
}
