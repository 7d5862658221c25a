// On-demand pattern extraction (the extractEpisodePatterns mutation, a SYNC completion) and the
// queued extraction job (learning/jobs.ts) take their locks in one order (learning/lock.ts), so
// running them at once on the same tenant, scope and episodes never deadlocks (PostgreSQL's 40P01).
// Before that order, the first round below already failed with "deadlock detected".
import { describe, expect, it } from 'vitest';
import { extractEpisodePatterns } from '../../src/learning/extract.ts';
import { EXTRACT_JOB, type FetchedJob, runBatch, runExtractionJobs } from '../../src/learning/jobs.ts';
import type { Writer } from '../../src/write.ts';
import { type Learner, learnerTenant } from '../learning/support.ts';
import { startInput } from '../lifecycle/support.ts';
import { type TestApp, useApp } from '../support/app.ts';
import { corpus, SHOP } from './corpus.ts';

let t: TestApp;
// No queue room: every ASYNC completion leaves its extraction skipped; the test runs the jobs itself.
useApp((app) => (t = app), { LEARNING_QUEUE_MAX_DEPTH: '0' });

const ROUNDS = 12;

async function history(l: Learner, every: number): Promise<string[]> {
  const ids: string[] = [];
  // One scope (SHOP's domain) and shared cue terms: every extraction touches the same pattern rows.
  for (const run of corpus().filter((_, i) => i % every === 0)) {
    const done = await l.run({ description: run.description, context: run.context, steps: run.steps, outcome: run.outcome, mode: 'ASYNC' });
    ids.push(done.episode.id);
  }
  return ids;
}

/** A running episode and the retrievals (episodes and patterns) it will report as used when it completes. */
async function userOfRetrievals(l: Learner, round: number): Promise<{ id: string; used: string[] }> {
  const description = `Cart totals ignore discount_code for order ${100 + round}; see checkout/cart.py`;
  const episode = await l.api.startOk(startInput({ taskDescription: description, context: SHOP }));
  const episodes = await l.relevant({ description, context: SHOP }, { limit: 5 });
  const patterns = await l.relevantPatterns({ description, context: SHOP }, 5);
  return { id: episode.id, used: [episodes.retrievalId, patterns.retrievalId] };
}

describe('pattern extraction locks', () => {
  it('runs queued jobs, on-demand extractions and completions that credit retrievals at once without a deadlock', async () => {
    const { keys, l } = await learnerTenant(t, 'locks');
    const ids = await history(l, 3);
    const pool = t.database.db.pool;
    const writer = t.services.writer;
    const errors: unknown[] = [];
    let retried = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      // Extraction runs once per episode: make it due again (the counts grow, which does not matter here).
      await pool.query(`UPDATE episodes SET learning_state = 'skipped' WHERE id = ANY($1::uuid[])`, [ids]);
      const user = await userOfRetrievals(l, round);
      // The job's batch in one order (each round another); meanwhile on-demand extractions of its
      // episodes, and a SYNC completion that credits episodes and patterns those extractions count.
      const order = round % 2 === 0 ? ids : [...ids].reverse();
      const jobs: FetchedJob[] = order.map((episodeId) => ({ id: `job-${episodeId}`, data: { tenantId: keys.tenantId, episodeId } }));
      const onDemand = order.slice(1).filter((_, i) => i % 2 === round % 2);
      const [job, completion, ...singles] = await Promise.allSettled([
        runExtractionJobs(writer, jobs),
        l.complete(user.id, { kind: 'SUCCESS', verdict: 'done', artifacts: ['checkout/cart.py'] }, 'SYNC', user.used),
        ...onDemand.map((id) => writer.run(keys.tenantId, (ctx) => extractEpisodePatterns(ctx, id, 'sync'))),
      ]);
      for (const s of singles) if (s.status === 'rejected') errors.push(s.reason);
      if (completion?.status === 'rejected') errors.push(completion.reason);
      else if (completion?.value.__typename !== 'FinishEpisodePayload') errors.push(JSON.stringify(completion?.value));
      if (job?.status === 'rejected') errors.push(job.reason);
      else if (job?.status === 'fulfilled') {
        if (job.value.failed.length) errors.push(job.value.lastError);
        retried += job.value.retried;
      }
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM episodes WHERE id = ANY($1::uuid[]) AND learning_state <> 'done'`, [ids]);
      expect(rows[0].n).toBe(0);
    }
    expect(errors.map(String)).toEqual([]);
    // The job path runs a deadlocked transaction again by itself: it must have had none to run again.
    expect(retried).toBe(0);
  }, 300_000);

  it('runs a job transaction that lost a race again instead of failing its jobs', async () => {
    const { keys, l } = await learnerTenant(t, 'transient');
    const ids = await history(l, 9);
    let conflicts = 2;
    // The first two transactions fail as PostgreSQL fails the loser of a deadlock or a serializable race.
    const losing: Writer = {
      ...t.services.writer,
      run: (tenantId, fn) => {
        if (conflicts > 0) {
          conflicts -= 1;
          const code = conflicts === 1 ? '40P01' : '40001';
          return Promise.reject(Object.assign(new Error(code === '40P01' ? 'deadlock detected' : 'could not serialize access'), { code }));
        }
        return t.services.writer.run(tenantId, fn);
      },
    };
    const jobs = ids.map((episodeId) => ({ id: `job-${episodeId}`, data: { tenantId: keys.tenantId, episodeId } }));
    const result = await runExtractionJobs(losing, jobs);
    expect(result).toMatchObject({ failed: [], retried: 2 });
    for (const id of ids) expect((await l.episode(id)).learningState).toBe('DONE');
  }, 300_000);

  it('marks the episode skipped, with the reason in the ledger, when its job fails its last retry', async () => {
    const { keys, l } = await learnerTenant(t, 'gives-up');
    const [id] = await history(l, 40);
    const pool = t.database.db.pool;
    await pool.query(`UPDATE episodes SET learning_state = 'queued' WHERE id = $1`, [id]);
    let failures = 2; // the batch's transaction, then the job's own
    const broken: Writer = {
      ...t.services.writer,
      run: (tenantId, fn) => (failures-- > 0 ? Promise.reject(new Error('disk full')) : t.services.writer.run(tenantId, fn)),
    };
    const failed: string[] = [];
    const queue = { fail: async (name: string, jobId: string) => void failed.push(`${name} ${jobId}`) };
    await runBatch(queue as never, broken, [{ id: 'last-try', data: { tenantId: keys.tenantId, episodeId: id ?? '' }, retryCount: 5, retryLimit: 5 }]);
    expect(failed).toEqual([`${EXTRACT_JOB} last-try`]);
    expect((await l.episode(id ?? '')).learningState).toBe('SKIPPED');
    const { rows } = await pool.query(`SELECT payload FROM ledger_events WHERE episode_id = $1 AND type = 'patterns.extraction_skipped' ORDER BY seq`, [id]);
    // The first says the queue was full when it ended (this app has no queue room); the second, this.
    expect(rows.map((r) => r.payload.reason)).toEqual(['queue_full', 'failed']);
    expect(rows[1]?.payload).toEqual({ reason: 'failed', attempts: 6, message: 'disk full' });
  }, 300_000);
});
