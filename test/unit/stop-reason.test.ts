import { describe, expect, it } from 'vitest';
import { canContinue, evaluateStopCondition, isSuccessful, type StopReason } from '../../src/stops/stop-reason.ts';

const EVERY_KIND: StopReason[] = [
  { kind: 'completed' },
  { kind: 'budget_exhausted', resource: 'tokens' },
  { kind: 'max_episodes' },
  { kind: 'blocked', reason: 'awaiting approval' },
  { kind: 'escalated', reason: 'needs a human' },
  { kind: 'error', message: 'boom', recoverable: true },
  { kind: 'error', message: 'boom', recoverable: false },
  { kind: 'cancelled' },
  { kind: 'failed', reason: 'tests fail' },
];

describe('isSuccessful (CTR-EP05)', () => {
  it('is true only for completed', () => {
    expect(EVERY_KIND.filter(isSuccessful).map((r) => r.kind)).toEqual(['completed']);
  });
});

describe('canContinue (CTR-EP06)', () => {
  it('is true for budget_exhausted, max_episodes and blocked only', () => {
    expect(EVERY_KIND.filter(canContinue).map((r) => r.kind)).toEqual(['budget_exhausted', 'max_episodes', 'blocked']);
  });

  it('does not continue after an error, even a recoverable one', () => {
    expect(canContinue({ kind: 'error', message: 'x', recoverable: true })).toBe(false);
  });
});

describe('evaluateStopCondition (INV-EP04)', () => {
  const base = { budgetExhausted: null, holonStop: null, episodesExecuted: 1, maxEpisodes: 10 };

  it('continues (null) when nothing stops', () => {
    expect(evaluateStopCondition(base)).toBeNull();
  });

  it('budget exhaustion wins over the holon stop and max episodes', () => {
    expect(evaluateStopCondition({ budgetExhausted: 'wall_time', holonStop: { kind: 'completed' }, episodesExecuted: 10, maxEpisodes: 10 })).toEqual({
      kind: 'budget_exhausted',
      resource: 'wall_time',
    });
  });

  it('accepts a lease resource as the exhausted budget', () => {
    expect(evaluateStopCondition({ ...base, budgetExhausted: 'tool_calls' })).toEqual({ kind: 'budget_exhausted', resource: 'tool_calls' });
  });

  it("the holon's own stop wins over max episodes", () => {
    const holonStop: StopReason = { kind: 'escalated', reason: 'unsure' };
    expect(evaluateStopCondition({ ...base, holonStop, episodesExecuted: 10 })).toBe(holonStop);
  });

  it('stops at max episodes exactly, not one before', () => {
    expect(evaluateStopCondition({ ...base, episodesExecuted: 9 })).toBeNull();
    expect(evaluateStopCondition({ ...base, episodesExecuted: 10 })).toEqual({ kind: 'max_episodes' });
    expect(evaluateStopCondition({ ...base, episodesExecuted: 11 })).toEqual({ kind: 'max_episodes' });
  });

  it('never stops for max episodes when unlimited', () => {
    expect(evaluateStopCondition({ ...base, episodesExecuted: 1_000_000, maxEpisodes: null })).toBeNull();
  });
});
