// SIGTERM while steps are being ingested: every call the server had read gets its answer (the
// group-commit buffer is drained before exit), every acknowledged step is stored, exit code 0.
import { expect, it } from 'vitest';
import { checkedReport, SCENARIO_TEST_MS, useEmptyDatabase } from './fixture.ts';
import { gracefulShutdown } from './scenarios.ts';

const database = useEmptyDatabase();

it(
  'answers every call in flight at SIGTERM, stores every acknowledged step, and exits 0',
  async () => {
    // A 500 ms group-commit window parks the calls in the buffer, so the signal finds them there.
    const report = await gracefulShutdown({ databaseUrl: database.url, writers: 24, windowMs: 500 });
    await checkedReport('sigterm-during-ingest', report, [
      'inFlightAtSignal',
      'answeredAfterSignal',
      'unansweredInFlight',
      'exitCode',
      'exitAfterMs',
      'afterSignalCalls',
      'ackedChecked',
      'lost',
      'problems',
    ]);
    expect(report.exitCode).toBe(0);
    expect(report.unansweredInFlight).toBe(0);
    expect(report.answeredAfterSignal).toBeGreaterThanOrEqual(24);
  },
  SCENARIO_TEST_MS,
);
