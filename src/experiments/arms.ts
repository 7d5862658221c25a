/**
 * Experiments on the memory: which arm an episode is served, and how an interleaving merges two
 * rankings. Pure.
 *
 * Assignment is a function of the experiment's seed and the episode's id (BLAKE3 of both, read as
 * a number in [0, 1)), so every retrieval of one run sees the same arm whatever process serves it,
 * and an auditor can recompute each recorded assignment from the ledger.
 */
import { blake3 } from '@noble/hashes/blake3.js';

/** What a holdout's control arm is served instead of the memory's ranking. */
export const CONTROL_RANKINGS = ['nothing', 'fixed_formula', 'bm25'] as const;
export type ControlRanking = (typeof CONTROL_RANKINGS)[number];

export const EXPERIMENT_KINDS = ['holdout', 'interleave'] as const;
export type ExperimentKind = (typeof EXPERIMENT_KINDS)[number];

/** memory: the service's own ranking; control: the holdout's control ranking; interleaved: both, merged. */
export type Arm = 'memory' | 'control' | 'interleaved';

/** A number in [0, 1) from the seed and a key, the same on every machine. */
export function seededUnit(seed: string, key: string): number {
  const digest = blake3(new TextEncoder().encode(`${seed}\u001f${key}`));
  // 48 bits: exact in a double, and far finer than any share an experiment uses.
  let value = 0;
  for (let i = 0; i < 6; i += 1) value = value * 256 + (digest[i] ?? 0);
  return value / 2 ** 48;
}

/** The arm of one episode: control for a share `controlShare` of episodes, else memory; interleaving serves everyone both. */
export function assignArm(kind: ExperimentKind, seed: string, episodeId: string, controlShare: number): Arm {
  if (kind === 'interleave') return 'interleaved';
  return seededUnit(seed, episodeId) < controlShare ? 'control' : 'memory';
}

/** Which ranking an interleaved item came from. */
export type Team = 'memory' | 'baseline';

export interface DraftedItem {
  id: string;
  team: Team;
}

/**
 * Team-draft interleaving (Radlinski, Kurup and Joachims 2008): the team with fewer picks picks
 * next (a seeded coin breaks a tie), taking its best item not yet picked. Each team's picks stand
 * for its ranking, so what the agent uses of them says which ranking served it better.
 */
export function teamDraft(memory: readonly string[], baseline: readonly string[], limit: number, seed: string, key: string): DraftedItem[] {
  const picked: DraftedItem[] = [];
  const taken = new Set<string>();
  const next = { memory: 0, baseline: 0 };
  const lists = { memory, baseline };
  const count = { memory: 0, baseline: 0 };
  const remaining = (team: Team) => {
    const list = lists[team];
    while (next[team] < list.length && taken.has(list[next[team]] as string)) next[team] += 1;
    return next[team] < list.length;
  };
  let round = 0;
  while (picked.length < limit && (remaining('memory') || remaining('baseline'))) {
    const tie = count.memory === count.baseline;
    const first: Team = tie ? (seededUnit(seed, `${key}:${round++}`) < 0.5 ? 'memory' : 'baseline') : count.memory < count.baseline ? 'memory' : 'baseline';
    const team: Team = remaining(first) ? first : first === 'memory' ? 'baseline' : 'memory';
    const id = lists[team][next[team]] as string;
    taken.add(id);
    count[team] += 1;
    picked.push({ id, team });
  }
  return picked;
}
