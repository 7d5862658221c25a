// memoryImpact: what an experiment found, per arm and as one answer with its statistics
// (verdict.ts, statistics.ts; docs/LEARNING.md "Does the memory help?").
import type pg from 'pg';
import { NotFoundError } from '../core/errors.ts';
import { type ArmMeasures, armMeasures, type Experiment, interleavingTally, readExperiment, unaskedMeasures } from './store.ts';
import { type HoldoutVerdict, holdoutVerdict, type InterleavingVerdict, interleavingVerdict } from './verdict.ts';

export interface MemoryImpact {
  experiment: Experiment;
  /** Per arm that asked for experience: memory and control (holdout) or interleaved. */
  arms: ArmMeasures[];
  /** Runs in scope since the experiment began that asked for nothing: counted apart, in no arm. */
  unasked: ArmMeasures;
  holdout: HoldoutVerdict | null;
  interleaving: InterleavingVerdict | null;
  sentence: string;
}

const emptyArm = (arm: string): ArmMeasures => ({
  arm,
  assigned: 0,
  ended: 0,
  successes: 0,
  meanReward: null,
  meanSteps: null,
  meanTokens: null,
  meanCost: null,
  meanWallMs: null,
});

export async function memoryImpact(pool: pg.Pool, tenantId: string, experimentId: string): Promise<MemoryImpact> {
  const experiment = await readExperiment(pool, tenantId, experimentId);
  if (!experiment) throw new NotFoundError('Experiment', experimentId);
  const [measured, unasked] = await Promise.all([armMeasures(pool, tenantId, experimentId), unaskedMeasures(pool, experiment)]);
  const arm = (name: string) => measured.find((m) => m.arm === name) ?? emptyArm(name);
  if (experiment.kind === 'interleave') {
    const tally = await interleavingTally(pool, tenantId, experimentId);
    const verdict = interleavingVerdict(tally.wins, tally.losses, tally.ties, experiment.control, experiment.min_sample);
    return { experiment, arms: [arm('interleaved')], unasked, holdout: null, interleaving: verdict, sentence: verdict.sentence };
  }
  const [memory, control] = [arm('memory'), arm('control')];
  const verdict = holdoutVerdict(
    { runs: memory.ended, successes: memory.successes },
    { runs: control.ended, successes: control.successes },
    experiment.min_sample,
  );
  return { experiment, arms: [memory, control], unasked, holdout: verdict, interleaving: null, sentence: verdict.sentence };
}
