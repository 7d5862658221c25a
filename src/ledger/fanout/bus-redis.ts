// Fan-out through Redis (REDIS_URL): a publisher and a subscriber connection. ioredis reconnects
// with backoff by itself; this class re-subscribes after each reconnect and then wakes everyone,
// since messages published while the subscriber was away are gone.
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { redactUrl } from '../../config.ts';
import { type BusOptions, decodeHeads, encodeHeads, FanOutBase, FanOutUnavailableError, type LedgerBus } from './bus-core.ts';

const CHANNEL = 'episodic:ledger';
/** Revoked key ids, one per message. */
const KEYS_CHANNEL = 'episodic:keys';

export class RedisLedgerBus extends FanOutBase implements LedgerBus {
  // No offline queue: during an outage publishes fail at once instead of piling up in memory.
  private readonly pub: Redis;
  private readonly sub: Redis;
  private subscribed = false;

  constructor(
    private readonly url: string,
    log: Logger,
    options: BusOptions,
  ) {
    super(log, options);
    this.pub = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    this.sub = new Redis(url, { lazyConnect: true, autoResubscribe: false });
    // ioredis emits an error per failed reconnect attempt; the close/ready transitions are logged instead.
    for (const connection of [this.pub, this.sub]) connection.on('error', (err) => log.debug({ err }, 'redis connection error'));
    this.sub.on('message', (channel: string, payload: string) => {
      if (channel === KEYS_CHANNEL) return this.revokedHere(payload);
      if (channel !== CHANNEL) return;
      for (const [tenantId, seq] of decodeHeads(payload)) this.local.wake(tenantId, seq);
    });
    this.sub.on('close', () => {
      if (this.subscribed) log.warn('ledger subscriber lost its Redis connection; reconnecting');
      this.subscribed = false;
    });
  }

  get healthy(): boolean {
    return this.subscribed && this.pub.status === 'ready';
  }

  async start(): Promise<void> {
    try {
      await Promise.all([this.pub.connect(), this.sub.connect()]);
      await this.sub.subscribe(CHANNEL, KEYS_CHANNEL);
    } catch (err) {
      this.pub.disconnect();
      this.sub.disconnect();
      throw new FanOutUnavailableError(`cannot connect to Redis at ${redactUrl(this.url)} (REDIS_URL): ${(err as Error).message}`);
    }
    this.subscribed = true;
    // Registered after the first connection, so it runs on reconnects only.
    this.sub.on('ready', () => void this.resubscribe());
    this.local.startSafetyTicks(this.options.safetyReadMs);
  }

  async stop(): Promise<void> {
    this.local.stopSafetyTicks();
    await this.outbox.drain();
    this.subscribed = false;
    this.pub.disconnect();
    this.sub.disconnect();
  }

  protected async send(heads: Map<string, number>): Promise<void> {
    const pipeline = this.pub.pipeline();
    for (const payload of encodeHeads(heads)) pipeline.publish(CHANNEL, payload);
    const results = (await pipeline.exec()) ?? [];
    const failed = results.find(([err]) => err);
    if (failed) throw failed[0];
  }

  protected async sendRevoked(keyId: string): Promise<void> {
    await this.pub.publish(KEYS_CHANNEL, keyId);
  }

  private async resubscribe(): Promise<void> {
    try {
      await this.sub.subscribe(CHANNEL, KEYS_CHANNEL);
    } catch (err) {
      // The connection dropped again; its next 'ready' retries.
      return this.log.warn({ err }, 'ledger subscriber could not re-subscribe');
    }
    this.subscribed = true;
    this.log.info('ledger subscriber reconnected to Redis');
    this.local.wakeAll();
  }
}
