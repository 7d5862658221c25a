// PostgreSQL stops and starts again under a running server (a dedicated embedded PostgreSQL, never
// the shared test server), once with a fast shutdown and once with an immediate one (crash
// recovery): /readyz says 503 while it is away, writes fail at once with DATABASE_UNAVAILABLE,
// the server recovers by itself, and subscribers end with every event exactly once in seq order.
import { expect, it } from 'vitest';
import { checkedReport, SCENARIO_TEST_MS } from './fixture.ts';
import { postgresRestart } from './scenarios.ts';

it(
  'reports not-ready during a PostgreSQL outage, recovers on its own, and subscribers miss nothing',
  async () => {
    const report = await postgresRestart({ outages: ['fast', 'immediate'], downMs: 2_500 });
    await checkedReport('postgres-restart', report, [
      'outages',
      'events',
      'verifiedSubscriberEvents',
      'rawSubscriberEvents',
      'ackedChecked',
      'lost',
      'problems',
    ]);
    for (const outage of report.outages) {
      expect(outage.readyz503WhileDown).toBe(outage.readyzWhileDown);
      expect(Object.keys(outage.refusedWhileDown)).toEqual(['DATABASE_UNAVAILABLE']);
      expect(outage.readyAfterMs).toBeLessThan(15_000);
    }
  },
  SCENARIO_TEST_MS,
);
