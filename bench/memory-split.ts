// The held-out split shared by the memory benchmarks (retrieval and patterns): per repository,
// runs sorted by id, shuffled with a fixed seed, the first 20% (rounded up) held out as new tasks.
// Deterministic so that every part of the benchmark measures the same pool and queries.
import { rng } from './retrieval-data.ts';

export interface SplitInput {
  id: string;
  repository: string;
}

export interface Split<T> {
  pool: T[];
  heldOut: T[];
}

export const MEMORY_SPLIT_SEED = 15;
export const HELD_OUT_SHARE = 0.2;

export function splitByRepository<T extends SplitInput>(runs: T[], seed = MEMORY_SPLIT_SEED, share = HELD_OUT_SHARE): Split<T> {
  const byRepository = new Map<string, T[]>();
  for (const run of runs) byRepository.set(run.repository, [...(byRepository.get(run.repository) ?? []), run]);
  const pool: T[] = [];
  const heldOut: T[] = [];
  for (const repository of [...byRepository.keys()].sort()) {
    const group = [...(byRepository.get(repository) ?? [])].sort((a, b) => a.id.localeCompare(b.id));
    const shuffled = shuffle(group, rng(seed));
    const cut = Math.ceil(group.length * share);
    heldOut.push(...shuffled.slice(0, cut));
    pool.push(...shuffled.slice(cut));
  }
  return { pool, heldOut };
}

/** Leave-one-repository-out: the pool holds no run of the queried repository. */
export function leaveRepositoryOut<T extends SplitInput>(runs: T[], repository: string): Split<T> {
  return { pool: runs.filter((r) => r.repository !== repository), heldOut: runs.filter((r) => r.repository === repository) };
}

function shuffle<T>(items: T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
