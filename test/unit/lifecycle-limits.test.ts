// The input limits of critiques, free-text reasons, hashes, work items and leases: each violation
// names its field and limit, and valid input has none.
import { describe, expect, it } from 'vitest';
import { CALL_LIMITS, freeTextViolations, validateCritique } from '../../src/episodes/call-limits.ts';
import { LEASE_LIMITS, validateLeaseInput, validateResumeWorkItem, validateWorkItem } from '../../src/leases/limits.ts';
import { hashViolations } from '../../src/validation/violations.ts';

const fields = (list: Array<{ field: string }>) => list.map((v) => v.field);

describe('critique limits', () => {
  it('accepts a critique inside the limits', () => {
    expect(validateCritique({ verdict: 'good', score: 1, feedback: null, virtueScores: [{ name: 'honesty', score: 0 }] })).toEqual([]);
  });

  it('names every bad score, name and count at once', () => {
    const many = Array.from({ length: CALL_LIMITS.virtueScores + 1 }, (_, i) => ({ name: `v${i}`, score: 0.5 }));
    expect(
      fields(
        validateCritique({
          verdict: 'x',
          score: 1.5,
          virtueScores: [
            { name: '', score: -0.1 },
            { name: 'n'.repeat(101), score: NaN },
          ],
        }),
      ),
    ).toEqual(['score', 'virtueScores.0.name', 'virtueScores.0.score', 'virtueScores.1.name', 'virtueScores.1.score']);
    expect(validateCritique({ verdict: 'x', virtueScores: many })).toEqual([
      expect.objectContaining({ field: 'virtueScores', limit: CALL_LIMITS.virtueScores, actual: CALL_LIMITS.virtueScores + 1 }),
    ]);
  });

  it('bounds verdict and feedback in bytes and refuses NUL', () => {
    expect(fields(validateCritique({ verdict: 'é'.repeat(CALL_LIMITS.reasonBytes / 2 + 1), feedback: 'a\u0000b', virtueScores: [] }))).toEqual([
      'verdict',
      'feedback',
    ]);
  });
});

describe('free text and hashes', () => {
  it('measures bytes, not characters', () => {
    expect(freeTextViolations('label', 'é'.repeat(128), CALL_LIMITS.labelBytes)).toEqual([]);
    expect(freeTextViolations('label', 'é'.repeat(129), CALL_LIMITS.labelBytes)).toEqual([
      expect.objectContaining({ field: 'label', limit: 256, actual: 258 }),
    ]);
  });

  it('wants 64 lowercase hex digits', () => {
    expect(hashViolations('packHash', 'a'.repeat(64))).toEqual([]);
    expect(hashViolations('packHash', null)).toEqual([]);
    expect(fields(hashViolations('packHash', 'A'.repeat(64)))).toEqual(['packHash']);
  });
});

describe('work item and lease limits', () => {
  it('checks title, description, metadata and maxEpisodes', () => {
    expect(validateWorkItem({ title: 'fix the build', maxEpisodes: 3 })).toEqual([]);
    expect(
      fields(validateWorkItem({ title: ' ', description: 'd'.repeat(LEASE_LIMITS.descriptionChars + 1), metadata: { a: 'x\u0000' }, maxEpisodes: 0 })),
    ).toEqual(['title', 'description', 'metadata.a', 'maxEpisodes']);
    expect(fields(validateResumeWorkItem(-1))).toEqual(['maxEpisodes']);
  });

  it('checks parties, scope entries and a negative budget', () => {
    expect(validateLeaseInput({ issuer: 'planner', holder: 'agent', scope: ['*'], budget: { tokens: 10, episodes: null } })).toEqual([]);
    const scope = Array.from({ length: LEASE_LIMITS.scopeEntries + 1 }, () => 'repo');
    expect(fields(validateLeaseInput({ issuer: '', holder: 'h'.repeat(201), scope: [...scope.slice(0, 1), ''], budget: { tokens: -1 } }))).toEqual([
      'issuer',
      'holder',
      'scope.1',
      'budget.tokens',
    ]);
    expect(fields(validateLeaseInput({ issuer: 'a', holder: 'b', scope, budget: {} }))).toEqual(['scope']);
  });
});
