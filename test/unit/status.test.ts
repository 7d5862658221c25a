import { describe, expect, it } from 'vitest';
import { IllegalTransitionError } from '../../src/core/errors.ts';
import {
  allowedActions,
  checkTransition,
  EPISODE_ACTIONS,
  EPISODE_STATUSES,
  type EpisodeAction,
  type EpisodeStatus,
  isEpisodeStatus,
  isTerminal,
  requireTransition,
} from '../../src/episodes/status.ts';

// The expected machine, written out independently of the implementation's table.
const LEGAL: Record<EpisodeStatus, Partial<Record<EpisodeAction, EpisodeStatus>>> = {
  running: {
    block: 'blocked',
    complete: 'completed',
    fail: 'failed',
    cancel: 'cancelled',
    escalate: 'escalated',
    logSteps: 'running',
    checkpoint: 'running',
    critique: 'running',
  },
  blocked: { resume: 'running', fail: 'failed', cancel: 'cancelled', escalate: 'escalated', critique: 'blocked' },
  completed: { critique: 'completed', appendLateTelemetry: 'completed' },
  failed: {},
  cancelled: {},
  escalated: {},
};

const ALL_PAIRS = EPISODE_STATUSES.flatMap((status) => EPISODE_ACTIONS.map((action) => [status, action] as const));
const LEGAL_PAIRS = ALL_PAIRS.filter(([status, action]) => LEGAL[status][action] !== undefined);
const ILLEGAL_PAIRS = ALL_PAIRS.filter(([status, action]) => LEGAL[status][action] === undefined);

describe('checkTransition', () => {
  it('covers 6 statuses x 10 actions, 15 of them legal', () => {
    expect(ALL_PAIRS).toHaveLength(60);
    expect(LEGAL_PAIRS).toHaveLength(15);
    expect(ILLEGAL_PAIRS).toHaveLength(45);
  });

  it.each(LEGAL_PAIRS)('%s --%s--> allowed', (status, action) => {
    expect(checkTransition(status, action)).toEqual({ ok: true, to: LEGAL[status][action] });
  });

  it.each(ILLEGAL_PAIRS)('%s --%s--> refused', (status, action) => {
    const result = checkTransition(status, action);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.from).toBe(status);
    expect(result.action).toBe(action);
    expect(result.message).toContain(action);
    expect(result.message).toContain(status);
  });

  it('names the allowed actions in the refusal', () => {
    const result = checkTransition('blocked', 'complete');
    expect(result).toMatchObject({ ok: false, allowed: ['resume', 'fail', 'cancel', 'escalate', 'critique'] });
    expect(result.ok === false && result.message).toBe('Cannot complete an episode that is blocked (allowed: resume, fail, cancel, escalate, critique)');
  });

  it('says a final status has no exits', () => {
    const result = checkTransition('failed', 'resume');
    expect(result).toMatchObject({ ok: false, allowed: [] });
    expect(result.ok === false && result.message).toBe('Cannot resume an episode that is failed (it is final)');
  });

  it('keeps steps and checkpoints to running episodes only', () => {
    for (const status of EPISODE_STATUSES.filter((s) => s !== 'running')) {
      expect(checkTransition(status, 'logSteps').ok).toBe(false);
      expect(checkTransition(status, 'checkpoint').ok).toBe(false);
    }
  });
});

describe('allowedActions', () => {
  it.each(EPISODE_STATUSES)('lists exactly the legal client actions of %s', (status) => {
    const legal = EPISODE_ACTIONS.filter((action) => LEGAL[status][action] !== undefined && action !== 'appendLateTelemetry');
    expect(allowedActions(status)).toEqual(legal);
  });

  it('never offers the service-only late telemetry action, though it is legal on a completed episode', () => {
    expect(checkTransition('completed', 'appendLateTelemetry')).toEqual({ ok: true, to: 'completed' });
    expect(allowedActions('completed')).toEqual(['critique']);
  });
});

describe('isTerminal', () => {
  it.each([
    ['running', false],
    ['blocked', false],
    ['completed', true],
    ['failed', true],
    ['cancelled', true],
    ['escalated', true],
  ] as const)('%s -> %s', (status, terminal) => {
    expect(isTerminal(status)).toBe(terminal);
  });

  it('no action leads out of a terminal status', () => {
    for (const [status, action] of ALL_PAIRS.filter(([s]) => isTerminal(s))) {
      const result = checkTransition(status, action);
      if (result.ok) expect(result.to).toBe(status);
    }
  });
});

describe('isEpisodeStatus', () => {
  it('accepts every status and nothing else', () => {
    for (const status of EPISODE_STATUSES) expect(isEpisodeStatus(status)).toBe(true);
    expect(isEpisodeStatus('RUNNING')).toBe(false);
    expect(isEpisodeStatus('paused')).toBe(false);
    expect(isEpisodeStatus('')).toBe(false);
  });
});

describe('requireTransition', () => {
  it('returns the status every legal action leads to', () => {
    for (const [status, action] of LEGAL_PAIRS) expect(requireTransition({ status }, action)).toBe(LEGAL[status][action]);
  });

  it('throws IllegalTransitionError naming the status, the action and what is allowed', () => {
    for (const [status, action] of ILLEGAL_PAIRS) {
      const attempt = () => requireTransition({ status }, action);
      expect(attempt).toThrow(IllegalTransitionError);
      expect(attempt).toThrow(expect.objectContaining({ from: status, action, allowed: allowedActions(status) }));
    }
  });
});
