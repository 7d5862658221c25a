// Candidate selection by PostgreSQL's statistics (after ANALYZE): rare words select, common words
// of a broad query select only within its context, and a query of nothing but common words finds
// nothing rather than scanning. A database of its own: ANALYZE changes what every query sees.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rankEpisodes } from '../../src/retrieval/store.ts';
import { forgetTermStats, MIN_SELECTIVE_ROWS, selectiveTags, selectiveWords, termStats, type TermStats } from '../../src/retrieval/term-stats.ts';
import { queryWords } from '../../src/retrieval/words.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { startInput } from '../lifecycle/support.ts';
import { ids, learner, SUCCESS, type Learner } from './support.ts';

let t: TestApp;
let l: Learner;
const ep: Record<string, string> = {};

async function seed(description: string, context: Record<string, unknown>) {
  const episode = await l.api.startOk(startInput({ taskDescription: description, taskType: 'bugfix', context }));
  await l.completeOk(episode.id, SUCCESS, 'ASYNC');
  return episode.id as string;
}

beforeAll(async () => {
  t = await startTestApp();
  l = learner(t);
  const things = ['login', 'checkout', 'cache', 'upload', 'session', 'search', 'report', 'token'];
  for (let i = 0; i < 40; i += 1) {
    await seed(`Fix the flaky ${things[i % things.length]} test in the service ${i}`, { domain: i % 2 ? 'web' : 'data', language: 'typescript', tags: ['ci'] });
  }
  ep.rare = await seed('Fix the flaky login test in the Zanzibar service', { domain: 'web', language: 'typescript' });
  ep.broad = await seed('Fix the flaky checkout test in the payments service', { domain: 'billing', language: 'java' });
  await t.services.db.pool.query('ANALYZE episodes');
  forgetTermStats(t.services.db.pool);
});
afterAll(() => t.stop());

/** The statistics of a big table in which every word of this file's descriptions but "zanzibar" is common. */
function bigTable(stats: TermStats): TermStats {
  const stopWords = ['the', 'a', 'to', 'in', 'of'].map((word): [string, number] => [word, 0.5]);
  const words = new Map([...[...stats.words].filter(([word]) => word !== 'zanzibar').map(([word]): [string, number] => [word, 0.05]), ...stopWords]);
  return { ...stats, rows: 10_000_000, words, tags: new Map([['ci', 0.5]]) };
}

describe('statistics', () => {
  it('reads word and tag frequencies and the table size from pg_stats and pg_class', async () => {
    const stats = await termStats(t.services.db.pool);
    expect(stats.rows).toBeGreaterThan(40);
    expect(stats.words.get('flaky')).toBeGreaterThan(0.9);
    expect(stats.tags.get('ci')).toBeGreaterThan(0.9);
    // In a table this small every word is cheap to look up: the absolute floor keeps them selective.
    expect(MIN_SELECTIVE_ROWS / stats.rows).toBeGreaterThan(1);
    expect(selectiveWords(['flaky', 'zanzibar'], stats)).toEqual(['zanzibar', 'flaky']);
    const big = bigTable(stats);
    expect(selectiveWords(queryWords('Fix the flaky login test in the Zanzibar service').all, big)).toEqual(['zanzibar']);
    expect(selectiveTags(['ci', 'rare-tag'], big)).toEqual(['rare-tag']);
  });

  it('finds the episode a rare word names through the API', async () => {
    const r = await l.relevant({ description: 'flaky test in Zanzibar', context: { domain: 'web' } });
    expect(ids(r.episodes)[0]).toBe(ep.rare);
    expect(r.episodes[0].score.textRank).toBeGreaterThan(0);
  });

  it('in a big table, selects a broad query by its least common words within its context, and nothing for stop words alone', async () => {
    const big = bigTable(await termStats(t.services.db.pool));
    const rank = (description: string, context: Record<string, unknown> = {}) => {
      const stats = { candidates: 0, trigram: false };
      const query = { description, taskType: 'bugfix', context: { domain: null, language: null, framework: null, tags: [], ...context } };
      return rankEpisodes(t.services.db.pool, { tenantId: t.keys.tenantId, query, status: 'completed', limit: 5, now: new Date(), stats }, big).then((r) => ({ r, stats }));
    };
    const broad = await rank('Fix the flaky checkout test', { domain: 'billing', language: 'java' });
    expect(broad.r[0]!.id).toBe(ep.broad);
    expect(broad.stats.trigram).toBe(false);
    const rare = await rank('flaky test in Zanzibar');
    expect(rare.r[0]!.id).toBe(ep.rare);
    const none = await rank('the a to in of');
    expect(none.r).toEqual([]);
    expect(none.stats).toEqual({ candidates: 0, trigram: false });
  });
});
