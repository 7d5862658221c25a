// The experiment operations as the CLI (`episodic experiment`, `episodic impact`) and the MCP tools
// send them, and memoryImpact as one block of text both print.
const ERRORS = '__typename ... on Error { message }';
const INPUT_ERRORS = `${ERRORS} ... on InputLimitError { violations { field limit message } }`;
const EXPERIMENT = 'id name kind status controlShare control minSample seed scopeWorkItemId scopeAgent scopeTaskType startedAt pausedAt';

export const EXPERIMENT_DOCUMENTS = {
  start: `mutation StartExperiment($input: StartExperimentInput!) { result: startExperiment(input: $input) { ${INPUT_ERRORS} ... on Experiment { ${EXPERIMENT} } } }`,
  pause: `mutation PauseExperiment($id: ID!) { result: pauseExperiment(id: $id) { ${ERRORS} ... on Experiment { ${EXPERIMENT} } } }`,
  resume: `mutation ResumeExperiment($id: ID!) { result: resumeExperiment(id: $id) { ${ERRORS} ... on Experiment { ${EXPERIMENT} } } }`,
  list: `query Experiments { result: experiments { __typename ${EXPERIMENT} } }`,
  impact: `query MemoryImpact($id: ID!) { result: memoryImpact(experimentId: $id) { ${ERRORS} ... on MemoryImpact {
    experiment { ${EXPERIMENT} } verdict method difference differenceLow differenceHigh pValue wins losses ties sentence
    arms { arm assigned ended successes successRate meanReward meanSteps meanTokens meanCost meanWallMs }
    unasked { arm assigned ended successes successRate meanReward meanSteps meanTokens meanCost meanWallMs } } } }`,
} as const;

export interface ExperimentView {
  id: string;
  name: string;
  kind: string;
  status: string;
  controlShare: number;
  control: string;
  minSample: number;
  scopeAgent: string | null;
  scopeTaskType: string | null;
  scopeWorkItemId: string | null;
}

export interface ArmView {
  arm: string;
  assigned: number;
  ended: number;
  successRate: number | null;
  meanReward: number | null;
  meanSteps: number | null;
  meanTokens: number | null;
  meanCost: number | null;
  meanWallMs: number | null;
}

export interface ImpactView {
  experiment: ExperimentView;
  verdict: string;
  method: string;
  sentence: string;
  arms: ArmView[];
  unasked: ArmView;
}

const num = (v: number | null, digits: number) => (v === null ? '-' : v.toFixed(digits));
const armLine = (a: ArmView) =>
  `${a.arm.padEnd(12)} ${String(a.assigned).padStart(6)} ${String(a.ended).padStart(6)}  ${a.successRate === null ? '   -' : `${Math.round(a.successRate * 100)} %`.padStart(5)}  ${num(a.meanReward, 2).padStart(6)} ${num(a.meanSteps, 1).padStart(6)} ${num(a.meanTokens, 0).padStart(8)} ${num(a.meanCost, 4).padStart(8)} ${num(a.meanWallMs, 0).padStart(8)}`;

/** One line per experiment. */
export function experimentLine(x: ExperimentView): string {
  const scope = [
    x.scopeAgent && `agent ${x.scopeAgent}`,
    x.scopeTaskType && `type ${x.scopeTaskType}`,
    x.scopeWorkItemId && `work item ${x.scopeWorkItemId}`,
  ].filter(Boolean);
  const share = x.kind === 'HOLDOUT' ? `${Math.round(x.controlShare * 100)} % ` : '';
  return `${x.id}  ${x.status.padEnd(7)} ${x.kind.toLowerCase()} ${share}against ${x.control.toLowerCase()}  ${x.name}${scope.length ? `  (${scope.join(', ')})` : ''}`;
}

/** The answer, the arms table and the method. */
export function impactText(i: ImpactView): string {
  return [
    i.sentence,
    '',
    `arm          assigned  ended  success  reward  steps   tokens     cost  wall ms`,
    ...i.arms.map(armLine),
    armLine(i.unasked),
    '',
    `${experimentLine(i.experiment)}`,
    `${i.verdict} by the ${i.method}, at least ${i.experiment.minSample} per arm before any claim (docs/LEARNING.md)`,
  ].join('\n');
}
