// episodic experiment start|pause|resume|list and episodic impact <id>: experiments on the memory
// (docs/LEARNING.md, "Does the memory help?") over the API.
import { EXPERIMENT_DOCUMENTS as D, type ExperimentView, experimentLine, type ImpactView, impactText } from '../client/experiments.ts';
import { defineCommand, failOnErrorResult, intOption, usage } from './remote.ts';

const EXPERIMENT_HELP = `Usage: episodic experiment start --name <name> [--kind holdout|interleave] [--share <0.01..0.9>]
         [--control nothing|fixed_formula|bm25] [--min-sample <n>] [--seed <s>] [--agent <a>] [--task-type <t>] [--work-item <id>]
       episodic experiment pause <id> | resume <id> | list
Starts, pauses, resumes or lists experiments on the memory. A holdout serves a seeded share of
episodes (default 10 %) the control ranking (default nothing); an interleaving serves every episode
the memory's ranking and the control's merged. Episodes take part when they pass their id to
relevantEpisodes (episodeId). Read the answer with: episodic impact <id>`;

const IMPACT_HELP = `Usage: episodic impact <experiment id>
Does the memory help? Per arm the runs and their means, and the answer in one sentence: the
difference in success rate with its 95 % interval and p-value (holdout), or which ranking the
agents used more (interleaving).`;

interface Result {
  __typename: string;
}

const oneExperiment = async (request: Promise<Result>) => {
  const x = failOnErrorResult(await request) as unknown as ExperimentView;
  return { text: experimentLine(x), json: x };
};

export const experimentCommand = defineCommand({
  name: 'experiment',
  summary: 'start, pause, resume or list experiments on the memory (holdout, interleaving)',
  help: EXPERIMENT_HELP,
  options: {
    name: { type: 'string' },
    kind: { type: 'string' },
    share: { type: 'string' },
    control: { type: 'string' },
    'min-sample': { type: 'string' },
    seed: { type: 'string' },
    agent: { type: 'string' },
    'task-type': { type: 'string' },
    'work-item': { type: 'string' },
  },
  async run({ values: v, positionals, client }) {
    const [action, id] = positionals;
    const request = <T>(query: string, variables: Record<string, unknown>) => client.request<T>(query, variables);
    if (action === 'list') {
      const list = await request<ExperimentView[]>(D.list, {});
      return { text: list.length ? list.map(experimentLine).join('\n') : 'no experiments', json: list };
    }
    if ((action === 'pause' || action === 'resume') && id) return oneExperiment(request<Result>(D[action], { id }));
    if (action !== 'start') throw usage('expected start, pause <id>, resume <id> or list', EXPERIMENT_HELP);
    if (!v.name) throw usage('missing --name', EXPERIMENT_HELP);
    const share = v.share === undefined ? undefined : Number(v.share);
    if (share !== undefined && !Number.isFinite(share)) throw usage(`--share must be a number, got "${v.share}"`, EXPERIMENT_HELP);
    const input = {
      name: v.name,
      kind: v.kind?.toUpperCase(),
      controlShare: share,
      control: v.control?.toUpperCase(),
      minSample: intOption(v['min-sample'], '--min-sample', EXPERIMENT_HELP, 1),
      seed: v.seed,
      scope: { agent: v.agent ?? null, taskType: v['task-type'] ?? null, workItemId: v['work-item'] ?? null },
    };
    return oneExperiment(request<Result>(D.start, { input }));
  },
});

export const impactCommand = defineCommand({
  name: 'impact',
  summary: 'does the memory help? what an experiment found, per arm and in one sentence',
  help: IMPACT_HELP,
  options: {},
  async run({ positionals, client }) {
    const [id] = positionals;
    if (!id) throw usage('missing the experiment id', IMPACT_HELP);
    const impact = failOnErrorResult(await client.request<Result>(D.impact, { id })) as unknown as ImpactView;
    return { text: impactText(impact), json: impact };
  },
});
