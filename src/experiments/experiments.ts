// Starting, pausing and resuming an experiment: each change commits with its ledger event
// (experiment.started, experiment.paused, experiment.resumed), so the claim an answer makes can be
// audited against what the experiment was and when it ran.
import { IllegalTransitionError, InputLimitError, NotFoundError } from '../core/errors.ts';
import type { WriteContext } from '../core/write-context.ts';
import { type ExperimentRequest, experimentViolations } from './limits.ts';
import { type Experiment, insertExperiment, lockExperiment, setExperimentStatus } from './store.ts';

/** What the ledger keeps of an experiment: everything that decides its assignments and its answer. */
const auditFields = (x: Experiment) => ({
  experimentId: x.id,
  name: x.name,
  kind: x.kind,
  controlShare: x.control_share,
  control: x.control,
  minSample: x.min_sample,
  seed: x.seed,
  scope: { workItemId: x.scope_work_item_id, agent: x.scope_agent, taskType: x.scope_task_type },
});

export async function startExperiment(ctx: WriteContext, request: ExperimentRequest): Promise<Experiment> {
  const violations = experimentViolations(request);
  if (violations.length > 0) throw new InputLimitError(violations);
  const experiment = await insertExperiment(ctx, {
    name: request.name,
    kind: request.kind,
    status: 'running',
    control_share: request.kind === 'holdout' ? request.controlShare : 0,
    control: request.control,
    min_sample: request.minSample,
    seed: request.seed,
    scope_work_item_id: request.scope.workItemId,
    scope_agent: request.scope.agent,
    scope_task_type: request.scope.taskType,
    started_at: ctx.now,
    paused_at: null,
  });
  ctx.events.push({ type: 'experiment.started', workItemId: request.scope.workItemId, payload: auditFields(experiment) });
  return experiment;
}

/** Pauses a running experiment (its episodes are served the memory again) or resumes a paused one. */
export async function changeExperimentStatus(ctx: WriteContext, id: string, action: 'pause' | 'resume'): Promise<Experiment> {
  const found = await lockExperiment(ctx, id);
  if (!found) throw new NotFoundError('Experiment', id);
  const from = action === 'pause' ? 'running' : 'paused';
  if (found.status !== from) {
    throw new IllegalTransitionError(found.status, action, [from], `experiment ${id} is ${found.status}; only a ${from} experiment can ${action}`);
  }
  const changed = await setExperimentStatus(ctx, id, action === 'pause' ? 'paused' : 'running');
  ctx.events.push({ type: action === 'pause' ? 'experiment.paused' : 'experiment.resumed', payload: { experimentId: id } });
  return changed;
}
