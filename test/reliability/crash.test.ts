// SIGKILL of a server process in the middle of heavy concurrent ingestion, then a restart: every
// acknowledged step is stored, nothing is half-written, step numbers stay contiguous and the
// ledger verifies. In-doubt calls (no answer) are retried with their keys: no duplicate appears.
import { expect, it } from 'vitest';
import { checkedReport, SCENARIO_TEST_MS, useEmptyDatabase } from './fixture.ts';
import { crashDuringIngest } from './scenarios.ts';

const database = useEmptyDatabase();

it(
  'loses no acknowledged step when the server is SIGKILLed mid-stream',
  async () => {
    const report = await crashDuringIngest({ databaseUrl: database.url, writers: 24, episodes: 8, maxBatch: 20, killAfterAcks: 1_500 });
    await checkedReport('sigkill-during-ingest', report, [
      'ackedBeforeKill',
      'inFlightAtKill',
      'callsInDoubt',
      'inDoubtCommitted',
      'halfWritten',
      'restartMs',
      'ackedChecked',
      'lost',
      'problems',
    ]);
    expect(report.halfWritten).toBe(0);
    expect(report.ackedBeforeKill).toBeGreaterThanOrEqual(1_500);
    expect(report.inFlightAtKill).toBeGreaterThan(0);
    expect(report.afterRestart.ackedChecked).toBeGreaterThanOrEqual(report.ackedBeforeKill);
    expect(report.afterRestart.verify.ok).toBe(true);
    expect(report.afterRetry.verify.ok).toBe(true);
  },
  SCENARIO_TEST_MS,
);
