// Learning keeps up with a burst of endings: queued pattern extractions start when they are queued
// and a backlog is fetched in batches, not one job per polling interval. The polling interval here
// is the longest allowed (60 s), so a queue that waited on polling could not finish within it. An
// import learns in its own transactions: every run is extracted when the import returns, no job queued.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../src/client/index.ts';
import { importRuns } from '../../src/import/index.ts';
import { EXTRACT_JOB } from '../../src/learning/jobs.ts';
import { RANKER_JOB } from '../../src/retrieval/ranker-jobs.ts';
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

async function extractJobs(): Promise<{ n: number; firstFetchMs: number; maxWaitSeconds: number }> {
  const { rows } = await t.database.db.pool.query(
    `SELECT count(*)::int AS n, (extract(epoch FROM min(started_on)) * 1000)::float AS "firstFetchMs",
            max(extract(epoch FROM started_on - created_on))::float AS "maxWaitSeconds"
       FROM pgboss.job WHERE name = $1`,
    [EXTRACT_JOB],
  );
  return rows[0];
}

async function extractedEvents(): Promise<number> {
  const { rows } = await t.database.db.pool.query(`SELECT count(*)::int AS n FROM ledger_events WHERE type = 'patterns.extracted'`);
  return rows[0].n;
}

/** RUNS episodes started and completed by concurrent callers, 8 at a time, each ending with extraction queued. */
async function endInBurst(): Promise<void> {
  const api = clientFor(t, t.keys.write);
  const waiting = Array.from({ length: RUNS }, (_, i) => i);
  const caller = async () => {
    for (let i = waiting.shift(); i !== undefined; i = waiting.shift()) {
      const input = {
        taskDescription: `Fix bug ${i} in the parser`,
        taskType: 'code_change',
        agent: 'queue-test',
        context: { domain: 'acme/app', language: 'python' },
      };
      const { episode } = unwrap(await api.startEpisode(input));
      unwrap(
        await api.completeEpisode(
          episode.id,
          i % 4 ? { kind: 'SUCCESS', verdict: 'resolved' } : { kind: 'FAILURE', verdict: 'unresolved', reason: 'tests failed' },
        ),
      );
    }
  };
  await Promise.all(Array.from({ length: 8 }, caller));
}

describe('pattern extraction during a burst of endings and an import', () => {
  it('extracts every queued ending within one polling interval', async () => {
    await endInBurst();
    let states = await learningStates();
    for (const deadline = Date.now() + 100_000; (states.pending ?? 0) + (states.queued ?? 0) > 0 && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 100));
      states = await learningStates();
    }
    expect(states).toEqual({ done: RUNS });
    // Woken by their enqueue, not by polling: a job was fetched before the workers' second poll,
    // and none waited anywhere near an interval (one job per poll would make the last wait 40).
    // Not "all done within half an interval of the start": 40 endings took most of a minute at load 28.
    const jobs = await extractJobs();
    expect(jobs.n).toBe(RUNS);
    expect(jobs.firstFetchMs).toBeLessThan(secondPollAt);
    expect(jobs.maxWaitSeconds).toBeLessThan(POLL_SECONDS);
    expect(await extractedEvents()).toBe(RUNS);
  }, 200_000); // 13 s idle, about a minute at load 28

  it('has every imported run extracted when the import returns, with no job queued for it, its ranker fit queued and its term index analyzed', async () => {
    const [states, events, jobs] = [await learningStates(), await extractedEvents(), (await extractJobs()).n];
    const tenant = await t.addTenant('importer');
    const report = await importRuns(clientFor(t, tenant.write), [await writeRuns()]);
    expect(report).toMatchObject({ imported: RUNS, failed: 0 });
    // What follows a burst (the refit, the statistics) runs after its answers: wait for it.
    await t.services.imports.drain();
    expect(await learningStates()).toEqual({ ...states, done: (states.done ?? 0) + RUNS });
    expect(await extractedEvents()).toBe(events + RUNS);
    expect((await extractJobs()).n).toBe(jobs);
    // The term index grew from nothing: its statistics were refreshed when the import's burst ended,
    // not left to autovacuum's next round (ANALYZE of a table this small counts every row).
    const { rows: stats } = await t.database.db.pool.query(
      `SELECT c.reltuples::int AS counted, (SELECT count(*)::int FROM episode_terms) AS n FROM pg_class c WHERE c.relname = 'episode_terms'`,
    );
    expect(stats[0].counted).toBe(stats[0].n);
    // The tenant's history grew past the first fit's minimum (20 episodes): a fit is queued for it.
    const { rows } = await t.database.db.pool.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND data->>'tenantId' = $2`, [
      RANKER_JOB,
      tenant.tenantId,
    ]);
    expect(rows[0].n).toBeGreaterThan(0);
  }, 200_000);
});
