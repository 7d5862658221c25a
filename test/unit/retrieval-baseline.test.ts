// The benchmark's keyword baseline and its measure (test/support/retrieval-baseline.ts): seed 003's
// scan as its reference code computes it, and NDCG@k by hand-computed values.
import { describe, expect, it } from 'vitest';
import type { RetrievalQuery } from '../../src/retrieval/score.ts';
import { ndcgAtK, rankBySeed003, type Seed003Episode, seed003Matches, seed003Score } from '../support/retrieval-baseline.ts';

const NO_CONTEXT = { domain: null, language: null, framework: null, tags: [] };

function seedEpisode(id: string, description: string, context: Partial<Seed003Episode['context']> = {}, rewardTotal: number | null = null): Seed003Episode {
  return { id, description, context: { ...NO_CONTEXT, ...context }, rewardTotal };
}

describe('seed003Score', () => {
  // The reference memory's own scoring test (ARCHITECTURE.md, "Sources"): context 0.4 + 0.3 + 0.1 capped at 0.4, 1 long word of 3 → 0.1.
  const query: RetrievalQuery = {
    description: 'rust web api',
    taskType: null,
    context: { domain: 'web-api', language: 'rust', framework: null, tags: ['rest'] },
  };
  const episode = seedEpisode('e1', 'Implement a rust web api with axum', { domain: 'web-api', language: 'rust', framework: 'axum', tags: ['rest'] });

  it('matches the hand-computed 0.5 of the reference memory test_calculate_relevance_score', () => {
    expect(seed003Score(query, episode)).toBeCloseTo(0.5, 12);
  });

  it('adds 0.3 × the raw reward total', () => {
    expect(seed003Score(query, { ...episode, rewardTotal: 1.5 })).toBeCloseTo(0.95, 12);
  });

  it('counts long words found as substrings over all query words, and shared tags at 0.1 each', () => {
    const login: RetrievalQuery = {
      description: 'Fix flaky login test in CI',
      taskType: null,
      context: { domain: 'auth', language: 'ts', framework: null, tags: ['ci', 'login'] },
    };
    const candidate = seedEpisode('e2', 'Login page testing is FLAKY', { domain: 'web', language: 'ts', tags: ['login', 'ci'] }, 2);
    // reward 0.3 × 2; context min(0.4, language 0.3 + 2 tags 0.2); words flaky, login, test of 6.
    expect(seed003Score(login, candidate)).toBeCloseTo(0.6 + 0.4 + 0.3 * (3 / 6), 12);
    expect(seed003Score(login, { ...candidate, context: { ...candidate.context, tags: ['ci'] } })).toBeCloseTo(0.6 + 0.4 + 0.15, 12);
    expect(seed003Score(login, { ...candidate, context: { ...NO_CONTEXT, tags: ['ci'] } })).toBeCloseTo(0.6 + 0.1 + 0.15, 12);
  });

  it('scores 0 for an empty description and no context', () => {
    expect(seed003Score({ description: '   ', taskType: null, context: NO_CONTEXT }, seedEpisode('e', 'anything'))).toBe(0);
  });
});

describe('seed003Matches and rankBySeed003', () => {
  const query: RetrievalQuery = { description: 'deploy the service in k8s', taskType: null, context: { ...NO_CONTEXT, tags: ['ops'] } };

  it('matches on a long description word, a shared tag, or a shared non-null field', () => {
    expect(seed003Matches(query, seedEpisode('a', 'Redeploy everything'))).toBe(true);
    expect(seed003Matches(query, seedEpisode('b', 'nothing', { tags: ['ops'] }))).toBe(true);
    expect(seed003Matches(query, seedEpisode('c', 'in the k8s cluster'))).toBe(false); // 'the', 'in', 'k8s' are too short
    expect(seed003Matches(query, seedEpisode('d', 'nothing'))).toBe(false); // both domains null is no match
  });

  it('filters, sorts best first with ties by id, and truncates', () => {
    const episodes = [
      seedEpisode('z', 'deploy it', {}, 1),
      seedEpisode('y', 'deploy it', {}, 1),
      seedEpisode('x', 'service deploy', {}, 1),
      seedEpisode('w', 'unrelated', {}, 3),
    ];
    expect(rankBySeed003(query, episodes, 10).map((hit) => hit.id)).toEqual(['x', 'y', 'z']);
    expect(rankBySeed003(query, episodes, 2).map((hit) => hit.id)).toEqual(['x', 'y']);
  });
});

describe('ndcgAtK', () => {
  const relevance = { a: 3, b: 2, c: 1 };

  it('is 1 for the ideal order', () => {
    expect(ndcgAtK(['a', 'b', 'c'], relevance, 3)).toBeCloseTo(1, 12);
  });

  it('matches the hand-computed value for the reversed order', () => {
    const dcg = 1 / 1 + 3 / Math.log2(3) + 7 / 2;
    const ideal = 7 / 1 + 3 / Math.log2(3) + 1 / 2;
    expect(ndcgAtK(['c', 'b', 'a'], relevance, 3)).toBeCloseTo(dcg / ideal, 12);
    expect(dcg / ideal).toBeCloseTo(0.6806, 4);
  });

  it('cuts both rankings at k and gives unjudged ids no gain', () => {
    expect(ndcgAtK(['b', 'a'], relevance, 1)).toBeCloseTo(3 / 7, 12);
    expect(ndcgAtK(['x', 'a'], new Map(Object.entries(relevance)), 2)).toBeCloseTo(7 / Math.log2(3) / (7 + 3 / Math.log2(3)), 12);
  });

  it('never rewards repeating a relevant id', () => {
    expect(ndcgAtK(['a', 'a'], { a: 3, b: 2 }, 2)).toBeLessThan(1);
  });

  it('is 0 when nothing is relevant or k is 0', () => {
    expect(ndcgAtK(['a'], {}, 5)).toBe(0);
    expect(ndcgAtK(['a'], { a: 0 }, 5)).toBe(0);
    expect(ndcgAtK(['a'], relevance, 0)).toBe(0);
  });
});
