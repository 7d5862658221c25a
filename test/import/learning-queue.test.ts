// Learning keeps up with an import: queued pattern extractions start when they are queued and a
// backlog is fetched in batches, not one job per polling interval. The polling interval here is
// the longest allowed (60 s), so a queue that waited on polling could not finish within it.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importRuns } from '../../src/import/index.ts';
import { clientFor } from '../client/support.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

const RUNS = 40;
const POLL_SECONDS = 60;

let t: TestApp;
/**
 * The workers fetch once as they start (the queue is empty then) and next a polling interval later,
 * not before this moment: extractions done before it were started by their enqueue, not by polling.
 */
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
    // Not half an interval after the import (a busy machine took 40 s): until the workers' next poll.
    while ((states.pending ?? 0) + (states.queued ?? 0) > 0 && Date.now() < secondPollAt) {
      await new Promise((r) => setTimeout(r, 100));
      states = await learningStates();
    }
    expect(states).toEqual({ done: RUNS });
    const { rows } = await t.database.db.pool.query(`SELECT count(*)::int AS n FROM ledger_events WHERE type = 'patterns.extracted'`);
    expect(rows[0].n).toBe(RUNS);
  }, 120_000);
});
