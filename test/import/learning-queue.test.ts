// Learning keeps up with an import: queued pattern extractions start when they are queued and a
// backlog is fetched in batches, not one job per polling interval. The polling interval here is
// the longest allowed (60 s), so a queue that waited on polling could not finish within it.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importRuns } from '../../src/import/index.ts';
import { EXTRACT_JOB } from '../../src/learning/jobs.ts';
import { clientFor } from '../client/support.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

const RUNS = 40;
const POLL_SECONDS = 60;

let t: TestApp;
/** The workers fetch as they start, from an empty queue, and poll next an interval later: not before this. */
let secondPollAt: number;
beforeAll(async () => {
  secondPollAt = Date.now() + POLL_SECONDS * 1000;
  t = await startTestApp({ JOB_POLL_SECONDS: String(POLL_SECONDS), LEARNING_WORKERS: '2' });
});
afterAll(() => t?.stop());

async function writeRuns(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'learn-'));
  for (let i = 0; i < RUNS; i += 1) {
    const steps = ['grep -rn foo src', 'cat src/a.py', "sed -i 's/a/b/' src/a.py", 'pytest -q'].map((command, n) => ({
      type: 'step',
      command,
      exitCode: 0,
      output: `out ${n}`,
    }));
    const run = { type: 'run', id: `acme__app-${i}`, task: `Fix bug ${i} in the parser`, resolved: i % 4 !== 0, patch: 'diff --git a/src/a.py b/src/a.py\n' };
    await writeFile(join(dir, `run-${i}.jsonl`), [run, ...steps].map((l) => JSON.stringify(l)).join('\n'));
  }
  return dir;
}

async function learningStates(): Promise<Record<string, number>> {
  const { rows } = await t.database.db.pool.query('SELECT learning_state AS state, count(*)::int AS n FROM episodes GROUP BY 1');
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}

describe('the learning queue during an import', () => {
  it('extracts every imported run within one polling interval', async () => {
    const report = await importRuns(clientFor(t, t.keys.write), [await writeRuns()]);
    expect(report).toMatchObject({ imported: RUNS, failed: 0 });
    let states = await learningStates();
    for (const deadline = Date.now() + 100_000; (states.pending ?? 0) + (states.queued ?? 0) > 0 && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 100));
      states = await learningStates();
    }
    expect(states).toEqual({ done: RUNS });
    // Woken by their enqueue, not by polling: a job was fetched before the workers' second poll,
    // and none waited anywhere near an interval (one job per poll would make the last wait 40).
    // Not "all done within half an interval of the import's start": the import of 40 runs alone
    // took most of a minute at load 28.
    const { rows: jobs } = await t.database.db.pool.query(
      `SELECT count(*)::int AS n, (extract(epoch FROM min(started_on)) * 1000)::float AS "firstFetchMs",
              max(extract(epoch FROM started_on - created_on))::float AS "maxWaitSeconds"
         FROM pgboss.job WHERE name = $1`,
      [EXTRACT_JOB],
    );
    expect(jobs[0].n).toBe(RUNS);
    expect(jobs[0].firstFetchMs).toBeLessThan(secondPollAt);
    expect(jobs[0].maxWaitSeconds).toBeLessThan(POLL_SECONDS);
    const { rows } = await t.database.db.pool.query(`SELECT count(*)::int AS n FROM ledger_events WHERE type = 'patterns.extracted'`);
    expect(rows[0].n).toBe(RUNS);
  }, 200_000); // the import and the extractions: 13 s idle, about a minute at load 28
});
