// Redis as the ledger event bus, and Redis stopped under two running servers: /readyz says the
// fan-out is not connected, writes go on, subscribers still get every event (safety re-reads),
// a server started meanwhile refuses with one clear line, and fan-out recovers when Redis returns.
// Runs where a redis-server binary exists and REDIS_URL is set (as CI does when it has Redis);
// the scenario starts a redis-server of its own on a free loopback port and never touches REDIS_URL's.
import { expect, it } from 'vitest';
import { testRedisUrl } from '../support/env.ts';
import { checkedReport, SCENARIO_TEST_MS, useEmptyDatabase } from './fixture.ts';
import { redisAvailable } from './harness.ts';
import { redisOutage } from './scenarios.ts';

const enabled = redisAvailable() && !!testRedisUrl();
const database = useEmptyDatabase(enabled);

it.runIf(enabled)(
  'keeps serving and delivering while Redis is down, and reconnects when it returns',
  async () => {
    const report = await redisOutage({ databaseUrl: database.url, downMs: 3_000, safetyMs: 1_500 });
    await checkedReport('redis-outage', report, [
      'notConnectedAfterMs',
      'deliveryWhileDownMs',
      'writesAckedWhileDown',
      'reconnectedAfterMs',
      'deliveryAfterMs',
      'startWhileDown',
      'ackedChecked',
      'lost',
      'problems',
    ]);
    expect(report.fanoutWhileDown.every((f) => f !== 'connected')).toBe(true);
    expect(report.reconnectedAfterMs).toBeLessThan(15_000);
  },
  SCENARIO_TEST_MS,
);
