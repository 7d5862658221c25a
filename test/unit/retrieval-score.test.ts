import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  COMPARABLE_EVIDENCE,
  CONTEXT_FIELD_WEIGHTS,
  contextMatch,
  evidenceFirst,
  fixedEvidence,
  NEUTRAL_RECENCY,
  PRIOR_FACTOR,
  type RankingCandidate,
  RELEVANCE_WEIGHTS,
  recencyWeight,
  relevanceScore,
} from '../../src/retrieval/score.ts';

const NO_CONTEXT = { domain: null, language: null, framework: null, tags: [] };

describe('relevanceScore', () => {
  const query = { taskType: 'bugfix', context: { domain: 'd', language: 'l', framework: 'f', tags: ['a', 'b'] } };
  const perfect: RankingCandidate = { ...query, rewardNormalized: 1, textRank: 0.2, trigramSimilarity: 1, ageDays: 0, feedbackCredit: 1 };

  it('has positive weights summing to 1, field shares summing to 1, and priors that cannot swap clearly different evidence', () => {
    expect(COMPARABLE_EVIDENCE).toBeCloseTo(0.9 / 1.17, 12);
    const sum = (values: object): number => Object.values(values).reduce((total: number, value: number) => total + value, 0);
    expect(sum(RELEVANCE_WEIGHTS)).toBeCloseTo(1, 12);
    expect(sum(CONTEXT_FIELD_WEIGHTS)).toBeCloseTo(1, 12);
  });

  it('scores a perfect candidate PRIOR_FACTOR.max and the worst 0', () => {
    expect(relevanceScore(query, perfect).total).toBeCloseTo(PRIOR_FACTOR.max, 12);
    const worst: RankingCandidate = {
      taskType: 'other',
      context: { domain: 'x', language: null, framework: null, tags: [] },
      rewardNormalized: null,
      textRank: 0,
      trigramSimilarity: 0,
      ageDays: 1e9,
      feedbackCredit: -1,
    };
    expect(relevanceScore(query, worst).total).toBe(0);
  });

  it('matches a hand-computed breakdown', () => {
    const candidate: RankingCandidate = {
      taskType: 'feature',
      context: { domain: 'd', language: 'l', framework: 'other', tags: ['b', 'c'] },
      rewardNormalized: 0.5,
      textRank: 0.3,
      trigramSimilarity: 0.6,
      ageDays: 30,
      feedbackCredit: -0.5,
    };
    const asked = { taskType: 'bugfix', context: { domain: 'd', language: 'l', framework: null, tags: ['a', 'b'] } };
    const breakdown = relevanceScore(asked, candidate);
    // framework unspecified drops out: (0.3 + 0.25 + 0.1 × 1/2) / (0.3 + 0.2 + 0.25 + 0.1).
    const context = 0.6 / 0.85;
    expect(breakdown.contextMatch).toBeCloseTo(context, 12);
    expect(breakdown.reward).toBe(0.5);
    expect(breakdown.similarity).toBe(0.6);
    expect(breakdown.recency).toBeCloseTo(0.5, 12);
    expect(breakdown.feedback).toBe(-0.5);
    const evidence = (0.4 * context + 0.43 * 0.6) / 0.83;
    expect(breakdown.evidence).toBeCloseTo(evidence, 12);
    expect(breakdown.total).toBeCloseTo(evidence * (1 + 0.05 * 0.5 + 0.02 * 0.5 + 0.1 * -0.5), 12);
  });

  it('takes the learned evidence when given, and neutral recency for an unknown end time', () => {
    const breakdown = relevanceScore(query, { ...perfect, learnedEvidence: 0.25, ageDays: null });
    expect(breakdown.evidence).toBe(0.25);
    expect(breakdown.recency).toBe(NEUTRAL_RECENCY);
  });

  it('evidence first: priors never lift a run above one with clearly more evidence', () => {
    const unit = fc.double({ min: 0, max: 1, noNaN: true });
    const prior = fc.record({ reward: unit, recency: unit, feedback: fc.double({ min: -1, max: 1, noNaN: true }) });
    fc.assert(
      fc.property(unit, fc.double({ min: 0, max: COMPARABLE_EVIDENCE, noNaN: true }), prior, prior, (strong, share, weakPriors, strongPriors) => {
        const weak = strong * share;
        expect(evidenceFirst(weak, weakPriors)).toBeLessThanOrEqual(evidenceFirst(strong, strongPriors) + 1e-12);
      }),
      { numRuns: 300 },
    );
  });

  it('evidence first on the whole score: no text and no context never outranks real overlap', () => {
    const unit = fc.double({ min: 0, max: 1, noNaN: true });
    fc.assert(
      fc.property(fc.double({ min: 0.05, max: 1, noNaN: true }), unit, unit, fc.double({ min: 0, max: 1e4, noNaN: true }), (text, reward, credit, age) => {
        const none: RankingCandidate = {
          taskType: null,
          context: NO_CONTEXT,
          rewardNormalized: 1,
          textRank: 0,
          trigramSimilarity: 0,
          ageDays: 0,
          feedbackCredit: 1,
        };
        const some: RankingCandidate = { ...none, rewardNormalized: reward, textRank: text, ageDays: age, feedbackCredit: -credit };
        const asked = { taskType: null, context: NO_CONTEXT };
        expect(relevanceScore(asked, some).total).toBeGreaterThan(relevanceScore(asked, none).total);
      }),
      { numRuns: 300 },
    );
    expect(fixedEvidence({ contextMatch: 0, similarity: 0 })).toBe(0);
  });

  it('clamps out-of-range inputs', () => {
    const wild = relevanceScore(query, { ...perfect, rewardNormalized: 9, textRank: 7, trigramSimilarity: -1, ageDays: -10, feedbackCredit: 5 });
    expect(wild).toMatchObject({ reward: 1, similarity: 1, recency: 1, feedback: 1 });
  });

  it('ranks a debited episode below an otherwise identical neutral one', () => {
    expect(relevanceScore(query, { ...perfect, feedbackCredit: -0.2 }).total).toBeLessThan(relevanceScore(query, { ...perfect, feedbackCredit: 0 }).total);
  });
});

describe('contextMatch and recencyWeight', () => {
  it('is 0 for a query without context and 1 when the only given field matches', () => {
    const candidate = { taskType: 't', context: { domain: 'd', language: 'l', framework: 'f', tags: ['x'] } };
    expect(contextMatch({ taskType: null, context: NO_CONTEXT }, candidate)).toBe(0);
    expect(contextMatch({ taskType: null, context: { ...NO_CONTEXT, domain: 'd' } }, candidate)).toBe(1);
    expect(contextMatch({ taskType: null, context: { ...NO_CONTEXT, domain: 'D' } }, candidate)).toBe(0);
  });

  it('halves every 30 days and treats a future end as fresh', () => {
    expect(recencyWeight(0)).toBe(1);
    expect(recencyWeight(30)).toBeCloseTo(0.5, 12);
    expect(recencyWeight(60)).toBeCloseTo(0.25, 12);
    expect(recencyWeight(-3)).toBe(1);
  });
});
