// The term index a server keeps between relevantEpisodes calls (src/retrieval/term-cache.ts) is
// never served stale: an ending or a forgetting committed after a ranking filled it is in the next
// answer, which is the answer of a server that kept nothing (the same scores, bit for bit).
import { describe, expect, it } from 'vitest';
import { ids, learnerTenant } from '../learning/support.ts';
import { type TestApp, useApp } from '../support/app.ts';

let t: TestApp;
useApp((app) => (t = app));

const CTX = { domain: 'shop/backend', language: 'python' };
const FORGET = `mutation($e: ID!, $r: String!) { forgetEpisode(episodeId: $e, reason: $r) { __typename } }`;

/** The BM25 parts of an answer (the totals move with recency between calls). */
const bm25 = (r: { episodes: Array<{ score: { taskText: number; work: number; change: number } }> }) =>
  r.episodes.map(({ score }) => [score.taskText, score.work, score.change]);
const settle = () => new Promise((done) => setTimeout(done, 1100));

describe('the kept term index', () => {
  it('serves an ending and a forgetting committed after it was filled', async () => {
    const { keys, l } = await learnerTenant(t, 'kept-terms');
    for (const topic of ['Invoice totals round half cents', 'Invoice export drops the currency', 'Thumbnail worker leaks handles'])
      await l.run({ description: `${topic}. Fix it.`, context: CTX });
    const task = { description: 'invoice currency quetzal rounding', context: CTX };
    const before = await l.relevant(task, { limit: 5 });
    expect(before.episodes.length).toBeGreaterThan(0);
    // A word no kept posting has: only a fresh read of the index can find this run.
    const quetzal = await l.run({ description: 'Invoice quetzal currency rounds wrong. Fix it.', context: CTX });
    const after = await l.relevant(task, { limit: 5 });
    expect(ids(after.episodes)[0]).toBe(quetzal.episode.id);
    // Past the settling time (term-cache.ts SETTLE_MS) the kept copy is read again at the new
    // generation: every idf moved with the new document, and the kept ranking has the fresh one's BM25 parts.
    await settle();
    const again = await l.relevant(task, { limit: 5 });
    expect(ids(again.episodes)).toEqual(ids(after.episodes));
    expect(bm25(again)).toEqual(bm25(after));
    const forgotten = await t.gql(FORGET, { e: quetzal.episode.id, r: 'test' }, keys.admin);
    expect(forgotten.data.forgetEpisode.__typename).toBe('ForgetEpisodePayload');
    await settle();
    const gone = await l.relevant(task, { limit: 5 });
    expect(ids(gone.episodes)).not.toContain(quetzal.episode.id);
    // The frequencies are those before the ending again: the same BM25 parts (the totals move with recency).
    expect(ids(gone.episodes)).toEqual(ids(before.episodes));
    expect(bm25(gone)).toEqual(bm25(before));
  });
});
