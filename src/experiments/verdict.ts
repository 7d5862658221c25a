/**
 * What an experiment says, in numbers and one plain sentence. Pure.
 *
 * No claim before each compared arm (holdout) or the decided retrievals (interleaving) reach the
 * experiment's minimum sample: the normal approximation and a team's first lucky runs are not to be
 * read as an answer.
 */
import { type Proportion, type ProportionDifference, SIGNIFICANCE, signTest, twoProportionTest } from './statistics.ts';

export type VerdictKind = 'too_few_runs' | 'raised' | 'lowered' | 'no_difference';

export interface HoldoutVerdict {
  kind: VerdictKind;
  comparison: ProportionDifference | null;
  sentence: string;
}

const percent = (rate: number) => `${Math.round(rate * 100)} %`;
const points = (difference: number) => `${difference >= 0 ? '+' : '−'}${Math.abs(Math.round(difference * 100))}`;
const pText = (p: number) => (p < 0.001 ? 'p < 0.001' : `p = ${p.toFixed(3)}`);

/** The holdout's answer: memory (treatment) against control. */
export function holdoutVerdict(memory: Proportion, control: Proportion, minSample: number): HoldoutVerdict {
  const runs = memory.runs + control.runs;
  const comparison = twoProportionTest(memory, control);
  if (comparison === null || memory.runs < minSample || control.runs < minSample) {
    const sentence = `too few runs to tell yet: ${memory.runs} with memory and ${control.runs} in control, at least ${minSample} each are needed`;
    return { kind: 'too_few_runs', comparison, sentence };
  }
  const rates = `from ${percent(control.successes / control.runs)} to ${percent(memory.successes / memory.runs)}`;
  const interval = `95 % CI ${points(comparison.low)} to ${points(comparison.high)} points, ${pText(comparison.pValue)}, ${runs} runs`;
  if (comparison.pValue >= SIGNIFICANCE) {
    return { kind: 'no_difference', comparison, sentence: `no difference found: success rate ${rates} with memory, ${interval}` };
  }
  const kind = comparison.difference > 0 ? 'raised' : 'lowered';
  return { kind, comparison, sentence: `memory ${kind} the success rate ${rates}, ${interval}` };
}

export interface InterleavingVerdict {
  kind: VerdictKind;
  wins: number;
  losses: number;
  ties: number;
  pValue: number;
  sentence: string;
}

/** The interleaving's answer: retrievals the memory's picks won, lost and tied against the baseline's. */
export function interleavingVerdict(wins: number, losses: number, ties: number, baseline: string, minSample: number): InterleavingVerdict {
  const pValue = signTest(wins, losses);
  const decided = wins + losses;
  const tally = `${wins} won, ${losses} lost, ${ties} tied`;
  if (decided < minSample) {
    return {
      kind: 'too_few_runs',
      wins,
      losses,
      ties,
      pValue,
      sentence: `too few decided runs to tell yet: ${tally}, at least ${minSample} decided are needed`,
    };
  }
  if (pValue >= SIGNIFICANCE) {
    return { kind: 'no_difference', wins, losses, ties, pValue, sentence: `no difference found between memory and ${baseline}: ${tally}, ${pText(pValue)}` };
  }
  const kind = wins > losses ? 'raised' : 'lowered';
  const better = wins > losses ? 'memory' : baseline;
  return { kind, wins, losses, ties, pValue, sentence: `${better} ranked better: the agents used its picks more in ${tally}, ${pText(pValue)}` };
}
