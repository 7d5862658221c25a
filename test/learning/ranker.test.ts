// The learned ranker end to end: a tenant's history whose task texts mislead (each run's words are
// those of other modules' runs) while its changed files tell the truth; fitted on that history,
// the model puts the runs that changed the asked module's file first, and relevantEpisodes shows each
// feature's contribution. The learning queue queues a refit once the history is large enough.
import { describe, expect, it } from 'vitest';
import { queueDueRefits, RANKER_JOB } from '../../src/retrieval/ranker-jobs.ts';
import { loadTenantRanking, RANKER_TRAINING, rankingModelInfo, refitDue } from '../../src/retrieval/ranker-store.ts';
import { trainRankingModel } from '../../src/retrieval/ranker-training.ts';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { ids, learnerTenant } from './support.ts';

let t: TestApp;
useApp((app) => (t = app));

const MODULES = ['billing', 'shipping', 'catalog', 'reviews', 'search'];
const DECOYS = ['avalanche', 'bramble', 'cobalt', 'dervish', 'ember', 'fjord', 'glacier', 'harbor'];

/** Run j of module m: names its module once, and repeats a decoy shared with runs of other modules. */
const description = (m: string, j: number) => `Wrong totals from shop.${m} after the update.${` ${DECOYS[j % DECOYS.length]}`.repeat(12)}`;
const outcome = (m: string) => ({ kind: 'SUCCESS', verdict: 'done', artifacts: [`shop/${m}.py`] });

describe('learned ranker', () => {
  it('fits on the history, ranks the runs that changed the asked module first, and shows its contributions', async () => {
    const { keys, l } = await learnerTenant(t, 'ranker-fit');
    const pool = t.services.db.pool;
    const byModule = new Map<string, string[]>();
    for (let j = 0; j < 6; j++)
      for (const [k, m] of MODULES.entries()) {
        const done = await l.run({ description: description(m, j + k), outcome: outcome(m) });
        byModule.set(m, [...(byModule.get(m) ?? []), done.episode.id]);
      }
    expect((await loadTenantRanking(pool, keys.tenantId)).model).toBeNull();
    expect(await refitDue(pool, keys.tenantId)).toBe(true);
    const fixed = await l.relevant({ description: description('billing', 3), taskType: 'bugfix', context: {} }, { limit: 5 });
    const fitted = await trainRankingModel(pool, keys.tenantId);
    expect(fitted).not.toBeNull();
    expect(fitted?.queries).toBeGreaterThanOrEqual(RANKER_TRAINING.minQueries);
    expect(fitted?.model.weights.every((w) => w >= 0)).toBe(true);
    expect(await rankingModelInfo(pool, keys.tenantId)).toMatchObject({ episodes: 30, queries: fitted?.queries, pairs: fitted?.pairs });
    expect(await refitDue(pool, keys.tenantId)).toBe(false);

    const learned = await l.relevant({ description: description('billing', 3), taskType: 'bugfix', context: {} }, { limit: 5 });
    const billing = new Set(byModule.get('billing'));
    const share = (r: { episodes: Json[] }) => ids(r.episodes).filter((id) => billing.has(id)).length;
    expect(share(learned)).toBe(5);
    expect(share(learned)).toBeGreaterThanOrEqual(share(fixed));
    // evidence = exp(model score − the best candidate's): at most 1, and its ratios are those of the scores.
    const sum = (e: Json) => e.score.contributions.reduce((s: number, c: Json) => s + c.contribution, 0);
    const [first, ...rest] = learned.episodes;
    for (const e of learned.episodes) {
      expect(e.score.learned).toBe(true);
      expect(e.score.evidence).toBeLessThanOrEqual(1);
      expect(e.score.contributions.map((c: Json) => c.name)).toContain('change');
      expect(e.score.evidence / first.score.evidence).toBeCloseTo(Math.exp(sum(e) - sum(first)), 6);
    }
    expect(rest.length).toBe(4);

    // A list column may hold NULL (Prisma's migrations make them nullable): such a row is no model.
    await pool.query('UPDATE ranking_models SET weights = NULL WHERE tenant_id = $1', [keys.tenantId]);
    expect((await loadTenantRanking(pool, keys.tenantId)).model).toBeNull();
    const unlearned = await l.relevant({ description: description('billing', 3), taskType: 'bugfix', context: {} }, { limit: 5 });
    expect(unlearned.episodes.every((e: Json) => e.score.learned === false)).toBe(true);
  });

  it('queues a refit only for a tenant whose history is due', async () => {
    const { keys, l } = await learnerTenant(t, 'ranker-due');
    const { keys: small } = await learnerTenant(t, 'ranker-small');
    for (let j = 0; j < RANKER_TRAINING.minQueries; j++) await l.run({ description: description(MODULES[j % 5] ?? 'billing', j), outcome: outcome('billing') });
    const queued = await queueDueRefits(t.services.jobs, t.services.db.pool, [keys.tenantId, small.tenantId]);
    expect(queued).toEqual([keys.tenantId]);
    const waiting = await t.services.db.pool.query<{ delay: number }>(
      `SELECT extract(epoch FROM start_after - created_on)::float8 AS delay FROM pgboss.job WHERE name = $1 AND data->>'tenantId' = $2 ORDER BY created_on`,
      [RANKER_JOB, keys.tenantId],
    );
    expect(waiting.rowCount).toBeGreaterThanOrEqual(1);
    // Not at once: an import's endings are all in before its fit reads the history. (The tenant's
    // first job; one in a next slot starts at that slot, which may be sooner.)
    expect(waiting.rows[0]?.delay).toBeGreaterThanOrEqual(29);
  });

  it('queues at most one fit per tenant and slot however often an import finds the tenant due', async () => {
    const { keys, l } = await learnerTenant(t, 'ranker-burst');
    for (let j = 0; j < RANKER_TRAINING.minQueries; j++) await l.run({ description: description(MODULES[j % 5] ?? 'billing', j), outcome: outcome('billing') });
    const sends = 6;
    for (let batch = 0; batch < sends; batch++) await queueDueRefits(t.services.jobs, t.services.db.pool, [keys.tenantId]);
    // Slots are REFIT_SLOT_SECONDS of the clock; the learning queue may have sent one in an earlier slot.
    const { rows } = await t.services.db.pool.query<{ slot: Date; jobs: number }>(
      `SELECT singleton_on AS slot, count(*)::int AS jobs FROM pgboss.job WHERE name = $1 AND data->>'tenantId' = $2 GROUP BY singleton_on`,
      [RANKER_JOB, keys.tenantId],
    );
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows.every((r) => r.slot !== null && r.jobs === 1)).toBe(true);
    expect(rows.length).toBeLessThan(sends);
  });

  it('records a fit that keeps the fixed formula, so the tenant is not refitted before its history grows', async () => {
    const { keys, l } = await learnerTenant(t, 'ranker-none');
    // Every run changed a file of its own: no run is relevant to another, so nothing can be learned.
    for (let j = 0; j < RANKER_TRAINING.minQueries + 2; j++)
      await l.run({ description: description(MODULES[j % 5] ?? 'billing', j), outcome: outcome(`own${j}`) });
    const pool = t.services.db.pool;
    expect(await refitDue(pool, keys.tenantId)).toBe(true);
    expect(await trainRankingModel(pool, keys.tenantId)).toBeNull();
    expect((await loadTenantRanking(pool, keys.tenantId)).model).toBeNull();
    expect(await rankingModelInfo(pool, keys.tenantId)).toMatchObject({ episodes: RANKER_TRAINING.minQueries + 2, pairs: 0 });
    expect(await refitDue(pool, keys.tenantId)).toBe(false);
    const asked = await l.relevant({ description: description('billing', 3), taskType: 'bugfix', context: {} }, { limit: 5 });
    expect(asked.episodes.every((e: Json) => e.score.learned === false)).toBe(true);
  });
});
