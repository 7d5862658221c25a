/**
 * Whether one new observation contradicts a pattern, given its statistics before that observation
 * and its latest earlier observations. Pure; it applies patterns.ts's isContradicted twice:
 *
 * - to the new observation alone (merging it drives the success rate below the bar), and
 * - to the window of the last PATTERN_RULES.recentWindow observations, the new one included, against
 *   the statistics from before that window (an established pattern that has stopped working). The
 *   statistics before the window are recovered by taking its earlier observations back out.
 */
import { clamp } from './facts.ts';
import { isContradicted, patternEffectiveness, PATTERN_RULES, type PatternObservation, type PatternStats } from './patterns.ts';

export function contradictedBy(before: PatternStats, earlier: readonly PatternObservation[], current: PatternObservation): boolean {
  if (isContradicted(before, [current])) return true;
  const window = [...earlier.slice(-(PATTERN_RULES.recentWindow - 1)), current];
  if (window.length < PATTERN_RULES.recentWindow) return false;
  return isContradicted(withoutObservations(before, window.slice(0, -1)), window);
}

/** The statistics as they were before `observations` (the latest ones merged) were added. */
export function withoutObservations(stats: PatternStats, observations: readonly PatternObservation[]): PatternStats {
  const occurrences = stats.occurrences - observations.length;
  if (occurrences <= 0) return { occurrences: 0, successes: 0, successRate: 0, meanReward: 0, effectiveness: 0 };
  const successes = Math.max(0, stats.successes - observations.filter((o) => o.success).length);
  const rewards = observations.reduce((sum, o) => sum + clamp(o.episodeReward, 0, 1), 0);
  const meanReward = clamp((stats.meanReward * stats.occurrences - rewards) / occurrences, 0, 1);
  const successRate = successes / occurrences;
  return { occurrences, successes, successRate, meanReward, effectiveness: patternEffectiveness(successRate, meanReward, occurrences) };
}
