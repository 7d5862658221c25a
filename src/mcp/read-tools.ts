// The tools an agent calls before a task (what to read) and to read one run: any key may call them.
import { z } from 'zod';
import { RETRIEVAL_LIMITS } from '../retrieval/inputs.ts';
import {
  type BriefEpisode,
  type RelevantFile,
  relevantEpisodesText,
  relevantFilesText,
  relevantPatternsText,
  type ScoredEpisode,
  type ScoredPattern,
} from './format.ts';
import { episodeText, type FullEpisode } from './format-episode.ts';
import { OPERATIONS } from './operations.ts';
import { answer, defineTool } from './tool.ts';

const text = (max: number, what: string) => z.string().max(max).describe(`${what} (at most ${max} characters)`);

/** The task an agent is about to do, as the retrieval queries take it. */
export const TASK_INPUT = {
  task: z
    .string()
    .min(1)
    .describe(
      `The task you are about to do: the issue text or your own summary; error messages and file names help (at most ${RETRIEVAL_LIMITS.descriptionBytes} bytes)`,
    ),
  taskType: text(100, 'Kind of task, e.g. bugfix, feature, refactor').optional(),
  language: text(RETRIEVAL_LIMITS.fieldChars, 'Programming language, e.g. python').optional(),
  framework: text(RETRIEVAL_LIMITS.fieldChars, 'Framework, e.g. django').optional(),
  domain: text(RETRIEVAL_LIMITS.fieldChars, 'Domain or repository, e.g. django/django').optional(),
  tags: z.array(z.string().max(RETRIEVAL_LIMITS.tagChars)).max(RETRIEVAL_LIMITS.tagCount).optional().describe(`Tags (at most ${RETRIEVAL_LIMITS.tagCount})`),
  limit: z.number().int().min(1).max(RETRIEVAL_LIMITS.maxResults).default(5).describe(`How many results (1 to ${RETRIEVAL_LIMITS.maxResults}, default 5)`),
};

type TaskArgs = { task: string; taskType?: string; language?: string; framework?: string; domain?: string; tags?: string[] };

/** RetrievalTaskInput from the tool arguments. */
function retrievalTask(a: TaskArgs) {
  const context = { language: a.language, framework: a.framework, domain: a.domain, tags: a.tags };
  return { description: a.task, taskType: a.taskType, context };
}

type Union<T> = T | { __typename: `${string}Error` };

const relevantEpisodes = defineTool({
  name: 'relevant_episodes',
  title: 'Past runs of similar tasks',
  description:
    'Call before you start a task: finds completed past runs of similar tasks, best first, with their outcome, the files they changed, what went wrong and lessons. Set includeFailures to also see similar runs that failed. The answer carries a retrieval id: pass it to complete_episode (usedRetrievals) if it helped.',
  scope: 'read',
  input: {
    ...TASK_INPUT,
    includeFailures: z.boolean().default(false).describe('Also list similar failed runs, as warnings'),
    episodeId: z.string().optional().describe('Your episode id (start_episode answers it): an experiment on the memory counts your run'),
  },
  run: async (a, request) => {
    type Result = Union<{ __typename: 'RelevantEpisodes'; retrievalId: string | null; episodes: ScoredEpisode[]; warnings: ScoredEpisode[] | null }>;
    const variables = { task: retrievalTask(a), limit: a.limit, includeFailures: a.includeFailures, episodeId: a.episodeId };
    const result = await request<Result>(OPERATIONS.relevantEpisodes, variables);
    return answer(result, (r) => relevantEpisodesText(r as Extract<Result, { __typename: 'RelevantEpisodes' }>));
  },
});

const relevantFiles = defineTool({
  name: 'relevant_files',
  title: 'Files to read before a task',
  description:
    'Call before you start a task: the files past runs of similar tasks changed, most likely first, with how many of those runs resolved their task or failed and an example run. Read these files first. The answer carries a retrieval id: pass it to complete_episode (usedRetrievals) if it helped.',
  scope: 'read',
  input: TASK_INPUT,
  run: async (a, request) => {
    type Result = Union<{ __typename: 'RelevantFiles'; retrievalId: string | null; files: RelevantFile[] }>;
    const result = await request<Result>(OPERATIONS.relevantFiles, { task: retrievalTask(a), limit: a.limit });
    return answer(result, (r) => relevantFilesText(r as Extract<Result, { __typename: 'RelevantFiles' }>));
  },
});

const relevantPatterns = defineTool({
  name: 'relevant_patterns',
  title: 'Lessons learnt for a task',
  description:
    'Call before you start a task: patterns learnt from past runs that apply to it (tools, error recoveries, files that such tasks change), with their success rate and lift (negative lift: a warning). The answer carries a retrieval id: pass it to complete_episode (usedRetrievals) if it helped.',
  scope: 'read',
  input: TASK_INPUT,
  run: async (a, request) => {
    type Result = Union<{ __typename: 'RelevantPatterns'; retrievalId: string | null; patterns: ScoredPattern[] }>;
    const result = await request<Result>(OPERATIONS.relevantPatterns, { task: retrievalTask(a), limit: a.limit });
    return answer(result, (r) => relevantPatternsText(r as Extract<Result, { __typename: 'RelevantPatterns' }>));
  },
});

const MAX_STEPS_SHOWN = 100;

const episode = defineTool({
  name: 'episode',
  title: 'Read one run',
  description:
    'Reads one episode (a run) by id, e.g. one that relevant_episodes found: its task, status, outcome, files changed, lessons and its first steps (tool, action, result).',
  scope: 'read',
  input: {
    id: z.string().min(1).max(128).describe('The episode id (a UUID)'),
    steps: z.number().int().min(0).max(MAX_STEPS_SHOWN).default(20).describe(`How many of its first steps to show (0 to ${MAX_STEPS_SHOWN}, default 20)`),
  },
  run: async (a, request) => {
    type Result = Union<BriefEpisode & { __typename: 'Episode' }>;
    const result = await request<Result>(OPERATIONS.episode, { id: a.id, steps: a.steps });
    return answer(result, (r) => episodeText(r as FullEpisode));
  },
});

export const READ_TOOLS = [relevantEpisodes, relevantFiles, relevantPatterns, episode];
