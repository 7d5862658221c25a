// The experiment tools: memory_impact (any key) reads what an experiment found; experiment (a
// write key) starts, pauses or resumes one (docs/LEARNING.md, "Does the memory help?").
import { z } from 'zod';
import { EXPERIMENT_DOCUMENTS as D, type ExperimentView, experimentLine, type ImpactView, impactText } from '../client/experiments.ts';
import { answer, defineTool, type Tool } from './tool.ts';

type Union<T> = T | { __typename: `${string}Error` };

const memoryImpactTool = defineTool({
  name: 'memory_impact',
  title: 'Does the memory help?',
  description:
    'What an experiment on the memory found: per arm the runs, success rate and means, and one sentence with the difference in success rate, its 95 % interval and p-value (holdout) or which ranking the agents used more (interleaving).',
  scope: 'read',
  input: { experimentId: z.string().describe('The experiment id (experiment start answers it)') },
  run: async (a, request) => {
    const result = await request<Union<ImpactView & { __typename: 'MemoryImpact' }>>(D.impact, { id: a.experimentId });
    return answer(result, (r) => impactText(r as ImpactView));
  },
});

const experimentTool = defineTool({
  name: 'experiment',
  title: 'Start, pause or resume an experiment on the memory',
  description:
    'start: a holdout serves a seeded share of episodes (controlShare, default 0.1) the control ranking (default nothing); an interleaving serves every episode the memory and the control merged. Episodes take part when relevant_episodes is given their episodeId. pause / resume: by experimentId.',
  scope: 'write',
  input: {
    action: z.enum(['start', 'pause', 'resume']),
    experimentId: z.string().optional().describe('pause and resume: the experiment'),
    name: z.string().max(100).optional().describe('start: a name'),
    kind: z.enum(['holdout', 'interleave']).optional(),
    controlShare: z.number().optional().describe('start, holdout: the share served the control, 0.01 to 0.9'),
    control: z.enum(['nothing', 'fixed_formula', 'bm25']).optional(),
    minSample: z.number().int().optional().describe('start: runs per arm before any claim (default 100)'),
    agent: z.string().optional().describe('start: only this agent’s episodes'),
    taskType: z.string().optional().describe('start: only this task type'),
  },
  run: async (a, request) => {
    type Result = Union<ExperimentView & { __typename: 'Experiment' }>;
    if (a.action !== 'start') {
      const result = await request<Result>(D[a.action], { id: a.experimentId ?? '' });
      return answer(result, (r) => experimentLine(r as ExperimentView));
    }
    const input = {
      name: a.name ?? 'experiment',
      kind: a.kind?.toUpperCase(),
      controlShare: a.controlShare,
      control: a.control?.toUpperCase(),
      minSample: a.minSample,
      scope: { agent: a.agent ?? null, taskType: a.taskType ?? null },
    };
    return answer(await request<Result>(D.start, { input }), (r) => experimentLine(r as ExperimentView));
  },
});

export const EXPERIMENT_TOOLS: readonly Tool[] = [memoryImpactTool, experimentTool];
