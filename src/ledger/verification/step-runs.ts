// Which stored step row answers which step entry of a verified page (verify-read.ts reads the
// rows, verify-range.ts checks them). The entries' steps are read as runs of step numbers per
// episode (a few index range scans, not one lookup per step); each row starts with its run and
// step number, so a flat table of slots (run, step number) -> row index finds an entry's row
// without a map or an episode id string per row.
import type { FieldRows } from './copy-rows.ts';

/** A step an event covers: the episode and the step number. */
export interface StepKey {
  episodeId: string;
  n: number;
}

/**
 * Steps by index, in columns (no object per step, so that they cross threads as a few arrays):
 * step k is step number ns[k] (NaN: no number was logged) of episode episodes[episodeOf[k]].
 */
export interface StepKeys {
  count: number;
  episodeOf: Int32Array;
  episodes: string[];
  ns: Float64Array;
}

/** The keys in columns. */
export function stepKeys(list: readonly StepKey[]): StepKeys {
  const episodes = [...new Set(list.map((key) => key.episodeId))];
  const index = new Map(episodes.map((id, i) => [id, i]));
  return {
    count: list.length,
    episodeOf: Int32Array.from(list, (key) => index.get(key.episodeId) as number),
    episodes,
    ns: Float64Array.from(list, (key) => key.n),
  };
}

/** Runs [lo[r], hi[r]] of step numbers of episodes[r]; keyRun[k] is key k's run, -1 when it names no row. */
export interface StepRuns {
  episodes: string[];
  lo: number[];
  hi: number[];
  keyRun: Int32Array;
}

/** Step numbers closer than this share one range scan; the rows between are read and ignored. */
const RUN_GAP = 8;
const MAX_INT4 = 2 ** 31 - 1;

/** The keys as runs of step numbers per episode, in key order. A number step_number cannot hold names no row: its key is in no run. */
export function runsOf(keys: StepKeys): StepRuns {
  const runs: StepRuns = { episodes: [], lo: [], hi: [], keyRun: new Int32Array(keys.count).fill(-1) };
  const open = new Int32Array(keys.episodes.length).fill(-1); // episode -> index of its latest run
  for (let k = 0; k < keys.count; k++) {
    const n = keys.ns[k] as number;
    if (!Number.isSafeInteger(n) || Math.abs(n) > MAX_INT4) continue;
    const episode = keys.episodeOf[k] as number;
    const at = open[episode] as number;
    if (at >= 0) {
      const hi = runs.hi[at] as number;
      if (n >= (runs.lo[at] as number) && n <= hi) {
        runs.keyRun[k] = at;
        continue;
      }
      if (n > hi && n <= hi + RUN_GAP) {
        runs.hi[at] = n;
        runs.keyRun[k] = at;
        continue;
      }
    }
    runs.keyRun[k] = runs.episodes.length;
    open[episode] = runs.episodes.length;
    runs.episodes.push(keys.episodes[episode] as string);
    runs.lo.push(n);
    runs.hi.push(n);
  }
  return runs;
}

/** A page's stored step rows (each [run, step_number, content_hash, members...]: step-check.ts) and where each key's row is. */
export interface StoredSteps extends FieldRows {
  runs: StepRuns;
  /** Run r's slot for step number n is slots[base[r] + n - lo[r]]: a row index, or -1. */
  slots: Int32Array;
  base: Int32Array;
}

/** The int4 at the field starting at p (its length, then 4 bytes), or NaN when the field is not 4 bytes. */
function int4Field(bytes: Uint8Array, p: number): number {
  const length = ((bytes[p] as number) << 24) | ((bytes[p + 1] as number) << 16) | ((bytes[p + 2] as number) << 8) | (bytes[p + 3] as number);
  if (length !== 4) return Number.NaN;
  return ((bytes[p + 4] as number) << 24) | ((bytes[p + 5] as number) << 16) | ((bytes[p + 6] as number) << 8) | (bytes[p + 7] as number);
}

/** The rows of `runs` as PostgreSQL sent them (each starting with its run and step number, as int4), with their slots. */
export function storedSteps(rows: FieldRows, runs: StepRuns): StoredSteps {
  const count = runs.episodes.length;
  const base = new Int32Array(count + 1);
  for (let r = 0; r < count; r++) base[r + 1] = (base[r] as number) + (runs.hi[r] as number) - (runs.lo[r] as number) + 1;
  const slots = new Int32Array(base[count] as number).fill(-1);
  for (let i = 0; i < rows.starts.length; i++) {
    const start = rows.starts[i] as number;
    // After the field count: the run (int4), then the step number (int4).
    const r = (rows.ends[i] as number) >= start + 18 ? int4Field(rows.bytes, start + 2) : Number.NaN;
    const n = r >= 0 ? int4Field(rows.bytes, start + 10) : Number.NaN;
    // The query reads only the run's range: a row outside it (or unreadable) answers no key.
    if (r < count && n >= (runs.lo[r] as number) && n <= (runs.hi[r] as number)) slots[(base[r] as number) + n - (runs.lo[r] as number)] = i;
  }
  return { ...rows, runs, slots, base };
}
/** The row index of key k (whose step number is n), or -1 when its row is absent. */
export function stepRowOf(steps: StoredSteps, k: number, n: number): number {
  const r = steps.runs.keyRun[k] ?? -1;
  if (r < 0) return -1;
  return steps.slots[(steps.base[r] as number) + n - (steps.runs.lo[r] as number)] as number;
}
