// The feedback loop: completeEpisode(usedRetrievals) credits (success) or debits (failure) what the
// used retrievals served, with a retrieval.feedback ledger event, and ranking uses the credit.
import { describe, expect, it } from 'vitest';
import { FEEDBACK_RATE } from '../../src/retrieval/receipts.ts';
import { counts, startInput } from '../lifecycle/support.ts';
import { corpus, SHOP } from '../patterns/corpus.ts';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { FAILURE, ids, type Learner, learnerTenant, ledger, SUCCESS } from './support.ts';

let t: TestApp;
useApp((app) => (t = app));

const CONTEXT = { domain: 'infra', language: 'go', tags: ['k8s'] };
const description = 'Roll out the new ingress controller';

/**
 * Two episodes alike in everything that ranks; only the agent (a filter, not a ranking feature)
 * tells them apart. No tool steps: the second would otherwise confirm patterns the first started,
 * and its learning bonus would set them apart.
 */
async function twins(l: Learner) {
  const make = async (agent: string) => {
    const episode = await l.api.startOk(startInput({ taskDescription: description, taskType: 'ops', context: CONTEXT, agent }));
    await l.completeOk(episode.id, SUCCESS, 'SYNC');
    return episode.id as string;
  };
  return { a: await make('twin-a'), b: await make('twin-b') };
}

const query = { description, taskType: 'ops', context: CONTEXT };

describe('feedback loop', () => {
  it('ranks an episode credited by a used retrieval above its twin', async () => {
    const { keys, l } = await learnerTenant(t, 'feedback-credit');
    const twin = await twins(l);
    const before = await l.relevant(query);
    expect(ids(before.episodes).sort()).toEqual([twin.a, twin.b].sort());
    expect(Math.abs(before.episodes[0].score.total - before.episodes[1].score.total)).toBeLessThan(0.005);

    // A retrieval that served only twin b, used by an episode that succeeded.
    const served = await l.relevant(query, { filter: { agent: 'twin-b' } });
    expect(ids(served.episodes)).toEqual([twin.b]);
    const user = await l.api.startOk(startInput({ taskDescription: 'Tidy the changelog', taskType: 'chore' }));
    const done = await l.completeOk(user.id, SUCCESS, 'ASYNC', [served.retrievalId]);
    expect(done.feedback).toEqual({ retrievalIds: [served.retrievalId], target: 1, episodes: 1, patterns: 0, uses: 1, confirmed: 1 });

    const after = (await l.relevant(query)).episodes.filter((e: Json) => e.episode.id === twin.a || e.episode.id === twin.b);
    expect(ids(after)).toEqual([twin.b, twin.a]);
    expect(after[0].score.feedback).toBeCloseTo(FEEDBACK_RATE, 10);
    expect(after[0].score).toMatchObject({ feedbackUses: 1, feedbackResemblance: 1 });
    expect(after[1].score.feedback).toBe(0);
    expect(after[1].score).toMatchObject({ feedbackUses: 0, feedbackResemblance: 0 });
    expect(after[0].score.total - after[1].score.total).toBeGreaterThan(0.025);
    expect(after[0].episode.feedbackCredit).toBeCloseTo(FEEDBACK_RATE, 10);

    const [event] = await ledger(t, keys.tenantId, 'retrieval.feedback');
    expect(event).toMatchObject({
      episodeId: user.id,
      payload: {
        retrievalIds: [served.retrievalId],
        target: 1,
        episodes: 1,
        patterns: 0,
        uses: 1,
        confirmed: 1,
        rate: FEEDBACK_RATE,
        outcome: 'success',
        credit: 'query-relative',
      },
    });
  });

  it('reads a used retrieval id in any letter case, two spellings of one id as one', async () => {
    const { l } = await learnerTenant(t, 'feedback-letter-case');
    const twin = await twins(l);
    const served = await l.relevant(query, { filter: { agent: 'twin-b' } });
    const user = await l.api.startOk(startInput({ taskDescription: 'Tidy the changelog', taskType: 'chore' }));
    const done = await l.completeOk(user.id, SUCCESS, 'ASYNC', [served.retrievalId.toUpperCase(), served.retrievalId]);
    expect(done.feedback).toMatchObject({ retrievalIds: [served.retrievalId], episodes: 1, uses: 1 });
    expect((await l.relevant(query)).episodes.find((e: Json) => e.episode.id === twin.b).score.feedbackUses).toBe(1);
  });

  it('applies the credit only to later queries that resemble the query that served the episode', async () => {
    const { keys, l } = await learnerTenant(t, 'feedback-relative');
    const twin = await twins(l);
    const served = await l.relevant(query, { filter: { agent: 'twin-b' } });
    const user = await l.api.startOk(startInput({ taskDescription: 'Tidy the changelog', taskType: 'chore' }));
    await l.completeOk(user.id, SUCCESS, 'ASYNC', [served.retrievalId]);
    const { rows: uses } = await t.services.db.pool.query(
      `SELECT f.episode_id, f.used_by, f.target, r.query_terms FROM episode_feedback f JOIN retrievals r ON r.id = f.retrieval_id WHERE f.tenant_id = $1`,
      [keys.tenantId],
    );
    expect(uses).toEqual([{ episode_id: twin.b, used_by: user.id, target: 1, query_terms: ['controller', 'ingress', 'new', 'roll'] }]);

    // Shares "ingress" with the crediting query ("the" and "out" are stop words): 1 of its 4 equally rare terms (< 0.4).
    const other = { description: 'Debug why the ingress drops websocket upgrades', taskType: 'ops', context: CONTEXT };
    const unrelated = (await l.relevant(other)).episodes.filter((e: Json) => e.episode.id === twin.b)[0];
    expect(unrelated.score).toMatchObject({ feedback: 0, feedbackUses: 0 });
    expect(unrelated.score.feedbackResemblance).toBeCloseTo(1 / 4, 10);
    // Still credited overall (Episode.feedbackCredit), and for a query holding most of the crediting one's terms.
    expect(unrelated.episode.feedbackCredit).toBeCloseTo(FEEDBACK_RATE, 10);
    const close = { description: 'Roll out the new ingress controller to staging first', taskType: 'ops', context: CONTEXT };
    const resembling = (await l.relevant(close)).episodes;
    expect(ids(resembling)[0]).toBe(twin.b);
    expect(resembling[0].score).toMatchObject({ feedbackUses: 1, feedbackResemblance: 1 });
    expect(resembling[0].score.feedback).toBeCloseTo(FEEDBACK_RATE, 10);
  });

  it('credits a served episode only when the successful run changed one of its files (artifacts)', async () => {
    const { keys, l } = await learnerTenant(t, 'feedback-grounded');
    const twin = await twins(l); // both changed result.txt
    const served = await l.relevant(query, { filter: { agent: 'twin-b' } });
    const user = await l.api.startOk(startInput({ taskDescription: 'Roll out the new ingress controller', taskType: 'ops' }));
    const done = await l.completeOk(user.id, { kind: 'SUCCESS', verdict: 'done', artifacts: ['deploy/ingress.yaml'] }, 'ASYNC', [served.retrievalId]);
    expect(done.feedback).toEqual({ retrievalIds: [served.retrievalId], target: 1, episodes: 1, patterns: 0, uses: 1, confirmed: 0 });
    const after = (await l.relevant(query)).episodes.find((e: Json) => e.episode.id === twin.b);
    expect(after.score).toMatchObject({ feedback: 0, feedbackUses: 1, feedbackResemblance: 1 });
    expect(after.episode.feedbackCredit).toBe(0);
    const [event] = await ledger(t, keys.tenantId, 'retrieval.feedback');
    expect(event?.payload).toMatchObject({ target: 1, uses: 1, confirmed: 0 });
  });

  it('debits on failure, so the debited twin ranks below the other', async () => {
    const { l } = await learnerTenant(t, 'feedback-debit');
    const twin = await twins(l);
    const served = await l.relevant(query, { filter: { agent: 'twin-a' } });
    const user = await l.api.startOk(startInput({ taskDescription: 'Tidy the changelog', taskType: 'chore' }));
    const done = await l.completeOk(user.id, FAILURE, 'ASYNC', [served.retrievalId]);
    expect(done.feedback).toMatchObject({ target: -1, episodes: 1 });
    const after = (await l.relevant(query)).episodes.filter((e: Json) => e.episode.id === twin.a || e.episode.id === twin.b);
    expect(ids(after)).toEqual([twin.b, twin.a]);
    expect(after[1].score.feedback).toBeCloseTo(-FEEDBACK_RATE, 10);
  });

  it('moves the credit as a moving average that stays within [-1, 1]', async () => {
    const { l } = await learnerTenant(t, 'feedback-average');
    const twin = await twins(l);
    const served = await l.relevant(query, { filter: { agent: 'twin-a' } });
    for (let i = 0; i < 3; i += 1) {
      const user = await l.api.startOk(startInput({ taskDescription: `user ${i}`, taskType: 'ops' }));
      await l.completeOk(user.id, SUCCESS, 'ASYNC', [served.retrievalId]);
    }
    expect((await l.episode(twin.a)).feedbackCredit).toBeCloseTo(1 - (1 - FEEDBACK_RATE) ** 3, 10);
    const partial = await l.api.startOk(startInput({ taskDescription: 'user partial', taskType: 'ops' }));
    const done = await l.completeOk(partial.id, { kind: 'PARTIAL', verdict: 'half', completed: ['a'], failed: ['b'] }, 'ASYNC', [served.retrievalId]);
    expect(done.feedback.target).toBe(0);
  });

  it('credits the patterns a used pattern retrieval served', async () => {
    const { l } = await learnerTenant(t, 'feedback-patterns');
    for (const run of corpus()) await l.run({ description: run.description, context: run.context, steps: run.steps, outcome: run.outcome });
    const task = { description: 'discount_code is applied twice', context: SHOP };
    const served = await l.relevantPatterns(task, 3);
    expect(served.patterns).toHaveLength(3);
    const user = await l.api.startOk(startInput({ taskDescription: 'build the image', taskType: 'ops' }));
    const done = await l.completeOk(user.id, SUCCESS, 'ASYNC', [served.retrievalId]);
    expect(done.feedback).toMatchObject({ episodes: 0, patterns: 3 });
    const after = await l.relevantPatterns(task, 10);
    const credited = after.patterns.filter((p: Json) => served.patterns.some((s: Json) => s.pattern.id === p.pattern.id));
    expect(credited).toHaveLength(3);
    for (const p of credited) {
      expect(p.pattern.feedbackCredit).toBeCloseTo(FEEDBACK_RATE, 10);
      expect(p.score.feedback).toBeCloseTo(FEEDBACK_RATE, 10);
    }
  }, 300_000); // replays the 43-run pattern corpus through the API

  it('refuses unknown or foreign retrieval ids and changes nothing', async () => {
    const mine = await learnerTenant(t, 'feedback-refuse-a');
    const other = await learnerTenant(t, 'feedback-refuse-b');
    await twins(other.l);
    const foreign = await other.l.relevant(query);
    const user = await mine.l.api.startOk(startInput({ taskDescription: 'anything', taskType: 'ops' }));
    const before = await counts(t, mine.keys.tenantId);
    for (const used of [[foreign.retrievalId], ['00000000-0000-0000-0000-000000000000'], ['not-a-uuid']]) {
      const refused = await mine.l.complete(user.id, SUCCESS, 'SYNC', used);
      expect(refused).toMatchObject({ __typename: 'NotFoundError', entity: 'Retrieval', notFoundId: used[0] });
    }
    const tooMany = await mine.l.complete(
      user.id,
      SUCCESS,
      'SYNC',
      Array.from({ length: 33 }, (_, i) => `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`),
    );
    expect(tooMany).toMatchObject({ __typename: 'InputLimitError', violations: [{ field: 'usedRetrievals' }] });
    expect(await counts(t, mine.keys.tenantId)).toEqual(before);
    expect((await mine.l.episode(user.id)).status).toBe('RUNNING');
    const { rows } = await t.services.db.pool.query('SELECT max(feedback_credit) AS credit FROM episodes WHERE tenant_id = $1', [other.keys.tenantId]);
    expect(rows[0].credit).toBe(0);
  });
});
