// SIGTERM while steps are being ingested: every call the server had read gets its answer (the
// group-commit buffer is drained before exit), every acknowledged step is stored, exit code 0.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEmptyDatabase, type TestDatabase } from '../support/db.ts';
import { recordReport, summary } from './harness.ts';
import { gracefulShutdown } from './scenarios.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await createEmptyDatabase();
});
afterAll(() => database.drop());

it('answers every call in flight at SIGTERM, stores every acknowledged step, and exits 0', async () => {
  // A 500 ms group-commit window parks the calls in the buffer, so the signal finds them there.
  const report = await gracefulShutdown({ databaseUrl: database.url, writers: 24, windowMs: 500, graceMs: 100 });
  await recordReport('sigterm-during-ingest', report);
  console.log(summary(report, ['inFlightAtSignal', 'answeredAfterSignal', 'unansweredInFlight', 'exitCode', 'exitAfterMs', 'afterSignalCalls', 'ackedChecked', 'lost', 'problems']));
  expect(report.problems).toEqual([]);
  expect(report.exitCode).toBe(0);
  expect(report.lost).toBe(0);
  expect(report.unansweredInFlight).toBe(0);
  expect(report.answeredAfterSignal).toBeGreaterThanOrEqual(24);
}, 90_000);
