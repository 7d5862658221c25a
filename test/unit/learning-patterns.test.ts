import { describe, expect, it } from 'vitest';
import {
  PATTERN_RULES,
  decideCandidates,
  extractCandidates,
  isContradicted,
  mergePattern,
  patternEffectiveness,
  patternKey,
  type PatternEpisode,
  type PatternKind,
  type PatternStats,
} from '../../src/learning/patterns.ts';
import type { StepFacts } from '../../src/learning/facts.ts';

function step(stepNumber: number, tool: string | null, resultKind: StepFacts['resultKind'], errorClass: string | null = null): StepFacts {
  return { stepNumber, kind: 'tool_call', tool, resultKind, latencyMs: 10, tokens: 1, errorClass };
}

const EMPTY_CONTEXT = { domain: null, language: null, framework: null, tags: [] };

function episode(steps: StepFacts[], overrides: Partial<PatternEpisode> = {}): PatternEpisode {
  return { outcome: { kind: 'success', verdict: 'ok', artifacts: [] }, context: EMPTY_CONTEXT, steps, reward: 0.8, ...overrides };
}

function keysOf(found: PatternEpisode, kind: PatternKind): string[] {
  return extractCandidates(found).filter((candidate) => candidate.kind === kind).map((candidate) => candidate.key);
}

function stats(occurrences: number, successes: number, meanReward = 0.8): PatternStats {
  const successRate = successes / occurrences;
  return { occurrences, successes, successRate, meanReward, effectiveness: patternEffectiveness(successRate, meanReward, occurrences) };
}

describe('extractCandidates: tool sequences', () => {
  it('takes 2- and 3-grams inside successful stretches only', () => {
    const steps = [step(1, 'a', 'success'), step(2, 'b', 'success'), step(3, 'c', 'success'), step(4, 'd', 'error'), step(5, 'e', 'success'), step(6, 'f', 'success')];
    expect(keysOf(episode(steps), 'tool_sequence')).toEqual([
      'tool_sequence:["a","b"]',
      'tool_sequence:["b","c"]',
      'tool_sequence:["a","b","c"]',
      'tool_sequence:["e","f"]',
    ]);
  });

  it('skips one tool repeated, and sees through result-less and tool-less steps', () => {
    const steps = [
      step(1, 'a', 'success'),
      step(2, 'a', 'success'),
      { ...step(3, null, null), kind: 'observation' },
      { ...step(4, null, 'error'), kind: 'llm_call' },
      step(5, 'b', 'success'),
    ];
    expect(keysOf(episode(steps), 'tool_sequence')).toEqual(['tool_sequence:["a","b"]', 'tool_sequence:["a","a","b"]']);
  });

  it('gives the same key to the same sequence whatever the case, spacing or step order', () => {
    const first = episode([step(1, 'Shell', 'success'), step(2, ' git', 'success')]);
    const second = episode([step(9, 'git ', 'success'), step(8, 'SHELL', 'success')]);
    expect(keysOf(first, 'tool_sequence')).toEqual(keysOf(second, 'tool_sequence'));
    expect(keysOf(first, 'tool_sequence')).toEqual([patternKey('tool_sequence', ['shell', 'git'])]);
  });

  it('keeps keys unambiguous when names hold separators', () => {
    const joined = episode([step(1, 'a","b', 'success'), step(2, 'c', 'success')]);
    const split = episode([step(1, 'a', 'success'), step(2, 'b","c', 'success')]);
    expect(keysOf(joined, 'tool_sequence')).not.toEqual(keysOf(split, 'tool_sequence'));
  });

  it('extracts at most maxCandidatesPerKind of a kind', () => {
    const steps = Array.from({ length: 100 }, (_, index) => step(index + 1, `t${index}`, 'success'));
    expect(keysOf(episode(steps), 'tool_sequence')).toHaveLength(PATTERN_RULES.maxCandidatesPerKind);
  });
});

describe('extractCandidates: decision points and error recoveries', () => {
  it('records the branch taken after a failure, retries included', () => {
    const steps = [step(1, 'npm', 'error'), step(2, 'npm', 'timeout'), step(3, 'yarn', 'success')];
    expect(keysOf(episode(steps), 'decision_point')).toEqual([
      'decision_point:["npm","error","npm"]',
      'decision_point:["npm","timeout","yarn"]',
    ]);
  });

  it('records a recovery only when a different tool succeeds next, keyed by error class', () => {
    const steps = [step(1, 'npm', 'error', 'EACCES'), step(2, 'npm', 'success'), step(3, 'curl', 'timeout'), step(4, 'wget', 'success')];
    expect(keysOf(episode(steps), 'error_recovery')).toEqual(['error_recovery:["curl","timeout","wget"]']);
    const withClass = [step(1, 'npm', 'error', 'EACCES'), step(2, 'sudo', 'success')];
    expect(keysOf(episode(withClass), 'error_recovery')).toEqual(['error_recovery:["npm","eacces","sudo"]']);
  });
});

describe('extractCandidates: context patterns', () => {
  it('pairs every context feature with the most-used successful tools', () => {
    const context = { domain: 'Web', language: 'ts', framework: null, tags: ['API', 'api', 'auth'] };
    const steps = [step(1, 'curl', 'success'), step(2, 'jq', 'success'), step(3, 'jq', 'success'), step(4, 'sed', 'error')];
    expect(keysOf(episode(steps, { context }), 'context_pattern')).toEqual([
      'context_pattern:["domain","web","jq"]',
      'context_pattern:["domain","web","curl"]',
      'context_pattern:["language","ts","jq"]',
      'context_pattern:["language","ts","curl"]',
      'context_pattern:["tag","api","jq"]',
      'context_pattern:["tag","api","curl"]',
      'context_pattern:["tag","auth","jq"]',
      'context_pattern:["tag","auth","curl"]',
    ]);
  });
});

describe('extractCandidates: observations', () => {
  it('counts only a success outcome as success and clamps the reward', () => {
    const steps = [step(1, 'a', 'success'), step(2, 'b', 'success')];
    const [success] = extractCandidates(episode(steps, { reward: 3 }));
    const [partial] = extractCandidates(episode(steps, { outcome: { kind: 'partial', verdict: 'p', completed: ['x'], failed: [] } }));
    expect(success!.observation).toEqual({ success: true, episodeReward: 1 });
    expect(partial!.observation.success).toBe(false);
  });

  it('finds nothing in an episode without tool steps', () => {
    expect(extractCandidates(episode([{ ...step(1, null, null), kind: 'checkpoint' }]))).toEqual([]);
  });
});

describe('mergePattern and patternEffectiveness', () => {
  it('starts a pattern from its first observation', () => {
    expect(mergePattern(null, { success: true, episodeReward: 0.6 })).toEqual({
      occurrences: 1,
      successes: 1,
      successRate: 1,
      meanReward: 0.6,
      effectiveness: 1 * 0.5 * (0.5 + 0.5 * 0.6),
    });
  });

  it('updates occurrences, success rate and mean reward when found again', () => {
    const first = mergePattern(null, { success: true, episodeReward: 0.6 });
    const second = mergePattern(first, { success: false, episodeReward: 0.2 });
    expect(second.occurrences).toBe(2);
    expect(second.successes).toBe(1);
    expect(second.successRate).toBe(0.5);
    expect(second.meanReward).toBeCloseTo(0.4, 12);
    expect(second.effectiveness).toBeCloseTo(0.5 * ((1 + Math.log(2) / 3) / 2) * (0.5 + 0.5 * 0.4), 12);
  });

  it('grows with occurrences up to full confidence at ln n = 3', () => {
    expect(patternEffectiveness(1, 1, 1)).toBe(0.5);
    expect(patternEffectiveness(1, 1, 2)).toBeGreaterThan(patternEffectiveness(1, 1, 1));
    expect(patternEffectiveness(1, 1, 21)).toBe(1);
    expect(patternEffectiveness(1, 1, 1000)).toBe(1);
    expect(patternEffectiveness(0, 1, 1000)).toBe(0);
  });
});

describe('decideCandidates', () => {
  it('rejects a pattern seen once with too_few_occurrences, even at a perfect rate', () => {
    const decision = decideCandidates([{ key: 'k', stats: stats(1, 1) }]);
    expect(decision).toEqual({ kept: [], rejected: [{ key: 'k', reason: 'too_few_occurrences' }] });
  });

  it('checks occurrences before the success rate', () => {
    expect(decideCandidates([{ key: 'k', stats: stats(1, 0) }]).rejected).toEqual([{ key: 'k', reason: 'too_few_occurrences' }]);
  });

  it('rejects a success rate of 0.59 and keeps 0.6', () => {
    const decision = decideCandidates([
      { key: 'low', stats: stats(100, 59) },
      { key: 'bar', stats: stats(5, 3) },
    ]);
    expect(decision.kept.map((candidate) => candidate.key)).toEqual(['bar']);
    expect(decision.rejected).toEqual([{ key: 'low', reason: 'low_success_rate' }]);
  });

  it('keeps the 10 most effective of 11 valid candidates and rejects the 11th as over_episode_limit', () => {
    const candidates = Array.from({ length: 11 }, (_, index) => ({ key: `k${index}`, stats: stats(2, 2, index / 10) }));
    const decision = decideCandidates(candidates);
    expect(decision.kept).toHaveLength(10);
    expect(decision.kept[0]!.key).toBe('k10');
    expect(decision.rejected).toEqual([{ key: 'k0', reason: 'over_episode_limit' }]);
  });

  it('breaks effectiveness ties by occurrences, then key', () => {
    const same = stats(4, 4);
    const decision = decideCandidates([
      { key: 'b', stats: same },
      { key: 'a', stats: same },
      { key: 'c', stats: { ...same, occurrences: 5 } },
    ]);
    expect(decision.kept.map((candidate) => candidate.key)).toEqual(['c', 'a', 'b']);
  });
});

describe('isContradicted', () => {
  const failure = { success: false, episodeReward: 0.1 };
  const success = { success: true, episodeReward: 0.9 };

  it('is true when newer evidence drives the success rate below the bar', () => {
    expect(isContradicted(stats(3, 2), [failure])).toBe(true);
  });

  it('is false when the rate stays at or above the bar', () => {
    expect(isContradicted(stats(3, 2), [success])).toBe(false);
    expect(isContradicted(stats(4, 3), [failure])).toBe(false); // 3 of 5 = 0.6
    expect(isContradicted(stats(3, 2), [])).toBe(false);
  });

  it('is false for a pattern that never met the bar', () => {
    expect(isContradicted(stats(1, 1), [failure])).toBe(false);
    expect(isContradicted(stats(10, 5), [failure])).toBe(false);
  });

  it('lets a full window of recent failures supersede a long-established pattern', () => {
    expect(isContradicted(stats(100, 90), Array.from({ length: PATTERN_RULES.recentWindow }, () => failure))).toBe(true);
    expect(isContradicted(stats(100, 90), Array.from({ length: PATTERN_RULES.recentWindow - 1 }, () => failure))).toBe(false);
  });
});
