// CPU-heavy randomized tests size their work to a time budget instead of a fixed count: on an idle
// machine they run their full count; on a busy one (CI shares the machine) they stop at the budget
// after at least `min` trials, so they finish well inside their timeout whatever the load.

export interface TrialBudget {
  /** Trials always run, however slow the machine: enough for every case to be drawn. */
  min: number;
  /** Trials run when the machine is fast enough (the idle-machine count). */
  max: number;
  /** Wall-clock budget in ms after which no trial beyond `min` starts. */
  budgetMs: number;
}

/** Runs `trial(0..)` up to `max` times, stopping at the budget once `min` ran; returns the count run. */
export function runTrials({ min, max, budgetMs }: TrialBudget, trial: (index: number) => void): number {
  const end = performance.now() + budgetMs;
  let run = 0;
  while (run < max && (run < min || performance.now() < end)) trial(run++);
  return run;
}

/**
 * A timeout for a budgeted test: the budget, plus the `min` trials at `slowdown` times the time they
 * take on an idle machine (`idleMsPerTrial`), plus setup. Load 8-9 on 2 cores slowed hashing 8x (the
 * tamper test: 7.5 s idle, 61.7 s in CI) and load 21 up to 33x (measured), hence 40x.
 */
export function budgetTimeout({ min, budgetMs }: TrialBudget, idleMsPerTrial: number, slowdown = 40): number {
  return Math.ceil(budgetMs + min * idleMsPerTrial * slowdown + 10_000);
}
