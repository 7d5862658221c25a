// What every reliability test file does: an empty database of its own, and each scenario's report
// recorded, printed and free of broken promises (no problem found, nothing acknowledged lost).
// Kept apart from harness.ts, which the soak (bench/soak.ts) runs outside vitest.
import { afterAll, beforeAll, expect } from 'vitest';
import { createEmptyDatabase, type TestDatabase } from '../support/db.ts';
import { recordReport, summary } from './harness.ts';
import type { ScenarioReport } from './scenarios.ts';

/** An empty database for the test file, created before its tests (when `enabled`) and dropped after. */
/**
 * The timeout of a fault scenario: fixed work with real server processes (and a PostgreSQL or Redis
 * of its own). Idle they take 15-40 s; at load 25-30 on 2 cores they took 80-120 s (shutdown 81 s,
 * postgres-restart 111 s, crash 108 s, redis-outage 119 s against timeouts of 90-120 s), so 240 s.
 */
export const SCENARIO_TEST_MS = 240_000;

export function useEmptyDatabase(enabled = true): { readonly url: string } {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    if (enabled) database = await createEmptyDatabase();
  });
  afterAll(() => database?.drop());
  return {
    get url() {
      if (!database) throw new Error('the test database is not created (disabled, or used outside a test)');
      return database.url;
    },
  };
}

/** Records the report under test-results/reliability, prints `fields`, and checks the promises every scenario makes. */
export async function checkedReport<R extends ScenarioReport>(name: string, report: R, fields: Array<keyof R & string>): Promise<R> {
  await recordReport(name, report);
  console.log(summary(report, fields));
  expect(report.problems).toEqual([]);
  expect(report.lost).toBe(0);
  return report;
}
