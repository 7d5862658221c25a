import { describe, expect, it } from 'vitest';
import { holonStopForOutcome } from '../../src/episodes/outcome.ts';
import { type LoopStopInput, loopStopCondition, startRefusal } from '../../src/stops/loop-stop.ts';

const charge = (extra: Partial<NonNullable<LoopStopInput['leaseCharge']>> = {}): NonNullable<LoopStopInput['leaseCharge']> => ({
  ok: true,
  exhausted: null,
  overdrawn: null,
  leaseId: 'L',
  leaseEnded: null,
  ...extra,
});
const base: LoopStopInput = { holonStop: null, leaseCharge: charge(), episodesExecuted: 1, maxEpisodes: 10 };

describe('holonStopForOutcome', () => {
  it('reads SUCCESS as the goal reached, FAILURE as failed, PARTIAL as go on', () => {
    expect(holonStopForOutcome({ kind: 'success', verdict: 'ok', artifacts: [] })).toEqual({ kind: 'completed' });
    expect(holonStopForOutcome({ kind: 'failure', reason: 'tests fail' })).toEqual({ kind: 'failed', reason: 'tests fail' });
    expect(holonStopForOutcome({ kind: 'partial', verdict: 'half', completed: [], failed: [] })).toBeNull();
  });
});

describe('loopStopCondition (INV-EP03, INV-EP04)', () => {
  it('goes on when nothing stops it', () => {
    expect(loopStopCondition(base)).toBeNull();
    expect(loopStopCondition({ ...base, leaseCharge: null, maxEpisodes: null })).toBeNull();
  });

  it('stops with budget_exhausted when the deduction failed, over the holon’s own stop and max episodes', () => {
    const input = { ...base, holonStop: { kind: 'completed' as const }, leaseCharge: charge({ ok: false, overdrawn: 'tool_calls' }), episodesExecuted: 10 };
    expect(loopStopCondition(input)).toEqual({ kind: 'budget_exhausted', resource: 'tool_calls' });
  });

  it('stops with budget_exhausted when the lease is spent out and the holon would go on', () => {
    expect(loopStopCondition({ ...base, leaseCharge: charge({ exhausted: 'tokens' }) })).toEqual({ kind: 'budget_exhausted', resource: 'tokens' });
  });

  it('lets a holon stop that spent exactly the last unit stand', () => {
    const holonStop = { kind: 'escalated' as const, reason: 'done here' };
    expect(loopStopCondition({ ...base, holonStop, leaseCharge: charge({ exhausted: 'episodes' }) })).toBe(holonStop);
  });

  it('ranks the holon’s stop over max episodes', () => {
    const holonStop = { kind: 'error' as const, message: 'boom', recoverable: true };
    expect(loopStopCondition({ ...base, holonStop, episodesExecuted: 10 })).toBe(holonStop);
    expect(loopStopCondition({ ...base, episodesExecuted: 10 })).toEqual({ kind: 'max_episodes' });
    expect(loopStopCondition({ ...base, episodesExecuted: 9 })).toBeNull();
  });

  it('ends the loop on a revoked or expired lease unless the holon reached its own stop; budget still comes first', () => {
    const ended = charge({ leaseEnded: 'expired' });
    expect(loopStopCondition({ ...base, leaseCharge: ended, episodesExecuted: 10 })).toEqual({
      kind: 'error',
      message: 'lease L is expired',
      recoverable: false,
    });
    expect(loopStopCondition({ ...base, leaseCharge: ended, holonStop: { kind: 'completed' } })).toEqual({ kind: 'completed' });
    expect(loopStopCondition({ ...base, leaseCharge: charge({ leaseEnded: 'revoked', exhausted: 'tokens' }) })).toEqual({
      kind: 'budget_exhausted',
      resource: 'tokens',
    });
  });
});

describe('startRefusal', () => {
  it('refuses with the recorded stop, or when every allowed episode has started', () => {
    expect(startRefusal({ stopCondition: { kind: 'completed' }, maxEpisodes: null }, 0)).toEqual({ kind: 'completed' });
    expect(startRefusal({ stopCondition: null, maxEpisodes: 3 }, 3)).toEqual({ kind: 'max_episodes' });
    expect(startRefusal({ stopCondition: null, maxEpisodes: 3 }, 2)).toBeNull();
    expect(startRefusal({ stopCondition: null, maxEpisodes: null }, 1e6)).toBeNull();
  });
});
