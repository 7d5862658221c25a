// Cross-process fan-out of "the ledger of tenant T grew to seq S". Writers publish after commit;
// subscribers are woken and read the new events from the ledger themselves, so a lost or
// duplicated notification can delay a delivery but never skip or repeat an event.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import type { BusOptions, LedgerBus } from './bus-core.ts';
import { PgLedgerBus } from './bus-pg.ts';
import { RedisLedgerBus } from './bus-redis.ts';

export type { LedgerBus } from './bus-core.ts';
export { FanOutUnavailableError } from './bus-core.ts';

export function createLedgerBus(config: Config, pool: pg.Pool, log: Logger): LedgerBus {
  const options: BusOptions = { coalesceMs: 20, safetyReadMs: config.subscriptions.safetyReadMs };
  const busLog = log.child({ component: 'ledger-bus' });
  return config.redisUrl ? new RedisLedgerBus(config.redisUrl, busLog, options) : new PgLedgerBus(pool, busLog, options);
}
