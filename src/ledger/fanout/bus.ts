// Cross-process fan-out of "the ledger of tenant T grew to seq S". Writers publish after commit;
// subscribers are woken and read the new events from the ledger themselves, so a lost or
// duplicated notification can delay a delivery but never skip or repeat an event.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import { PgLedgerBus } from './bus-pg.ts';
import { RedisLedgerBus } from './bus-redis.ts';

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

export function createLedgerBus(config: Config, pool: pg.Pool, log: Logger): LedgerBus {
  const options: BusOptions = { coalesceMs: 20, safetyReadMs: config.subscriptions.safetyReadMs };
  const busLog = log.child({ component: 'ledger-bus' });
  return config.redisUrl ? new RedisLedgerBus(config.redisUrl, busLog, options) : new PgLedgerBus(pool, busLog, options);
}
