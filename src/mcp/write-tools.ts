// The tools that record the agent's own run, so the next task can learn from it: start an episode,
// log its steps, complete it. They need a key with write scope; a read key is not shown them.
import { z } from 'zod';
import { EPISODE_LIMITS } from '../episodes/limits.ts';
import { OUTCOME_LIMITS } from '../episodes/outcome-limits.ts';
import { STEP_LIMITS } from '../steps/limits.ts';
import { violationsText } from './format.ts';
import { OPERATIONS } from './operations.ts';
import { TASK_INPUT } from './read-tools.ts';
import { type ArgumentNames, answer, defineTool } from './tool.ts';

const { task, taskType, language, framework, domain, tags } = TASK_INPUT;
const episodeId = z.string().min(1).max(128).describe('The episode id start_episode returned');

const startEpisode = defineTool({
  name: 'start_episode',
  title: 'Start recording a run',
  description:
    'Call when you begin a task, so your run is remembered and later tasks can learn from it. Returns the episode id: log what you do with log_steps and finish with complete_episode.',
  scope: 'write',
  input: {
    task: task.describe(`The task, as you were given it (at most ${EPISODE_LIMITS.descriptionBytes} bytes)`),
    taskType: taskType.default('coding'),
    language,
    framework,
    domain,
    tags,
    agent: z.string().max(EPISODE_LIMITS.agentChars).optional().describe('Your name, e.g. claude-code'),
    dedupeKey: z.string().max(EPISODE_LIMITS.keyChars).optional().describe('Repeating a start with the same key returns the same episode (safe to retry)'),
    maxSteps: z
      .number()
      .int()
      .min(1)
      .max(EPISODE_LIMITS.maxSteps)
      .optional()
      .describe(`Stop the run after this many steps (at most ${EPISODE_LIMITS.maxSteps})`),
  },
  run: async (a, request) => {
    const input = {
      taskDescription: a.task,
      taskType: a.taskType,
      agent: a.agent,
      dedupeKey: a.dedupeKey,
      context: { language: a.language, framework: a.framework, domain: a.domain, tags: a.tags ?? [] },
      budget: a.maxSteps ? { maxSteps: a.maxSteps } : undefined,
    };
    type Result = { __typename: 'StartEpisodePayload'; deduplicated: boolean; episode: { id: string; status: string } } | { __typename: `${string}Error` };
    const result = await request<Result>(OPERATIONS.startEpisode, { input });
    return answer(result, (r) => {
      const { episode, deduplicated } = r as Extract<Result, { __typename: 'StartEpisodePayload' }>;
      const again = deduplicated ? ' (the same dedupeKey started it before)' : '';
      return `Episode ${episode.id} is ${episode.status}${again}. Log what you do with log_steps (episodeId "${episode.id}") and finish with complete_episode.`;
    });
  },
});

const STEP = z.object({
  kind: z.string().max(STEP_LIMITS.stepKindChars).default('tool_call').describe('tool_call (default), llm_call, observation, ...'),
  tool: z.string().max(STEP_LIMITS.toolChars).optional().describe('The tool, e.g. bash, edit_file'),
  action: z.string().optional().describe(`What you ran or asked, e.g. the command line (at most ${STEP_LIMITS.actionBytes} bytes)`),
  parameters: z.record(z.string(), z.unknown()).optional().describe('The tool arguments, as JSON'),
  status: z.enum(['success', 'error', 'timeout']).optional().describe('How the step ended; default: error when errorMessage is given, else success'),
  output: z.string().optional().describe('What it returned (trim long output)'),
  errorMessage: z.string().optional().describe('The error, when it failed'),
  errorClass: z.string().max(STEP_LIMITS.errorClassChars).optional().describe('The error type, e.g. AssertionError'),
  observation: z.string().optional().describe(`What you concluded from it (at most ${STEP_LIMITS.observationBytes} bytes)`),
  tokens: z.number().int().min(0).optional(),
  latencyMs: z.number().int().min(0).optional(),
  sideEffectKey: z.string().max(STEP_LIMITS.sideEffectKeyChars).optional().describe('Repeating a key logs the step once (safe to retry)'),
});

type StepArgs = z.infer<typeof STEP>;

/** StepInput from a tool step: the result union from status, output and errorMessage. */
export function stepInput({ status, output, errorMessage, errorClass, ...rest }: StepArgs) {
  const kind = status ?? (errorMessage !== undefined ? 'error' : output !== undefined ? 'success' : undefined);
  const result =
    kind === 'error'
      ? { kind: 'ERROR', message: errorMessage ?? 'failed', errorClass, output }
      : kind === 'timeout'
        ? { kind: 'TIMEOUT' }
        : kind === 'success'
          ? { kind: 'SUCCESS', output }
          : undefined;
  return { ...rest, result };
}

type StepResults = Array<{
  index: number;
  status: string;
  reason?: string | null;
  message?: string | null;
  violations?: Array<Record<string, unknown>> | null;
}>;

function loggedText(r: {
  accepted: number;
  duplicates: number;
  rejected: number;
  budgetExhausted: string | null;
  results: StepResults;
  episode: { id: string; status: string; stepCount: number };
}) {
  const lines = [
    `Logged ${r.accepted} step(s) to episode ${r.episode.id} (${r.episode.stepCount} in all, ${r.episode.status}); ${r.duplicates} duplicate(s), ${r.rejected} rejected.`,
  ];
  for (const s of r.results.filter((x) => x.status === 'REJECTED')) {
    lines.push(`  step ${s.index}: ${s.reason ?? 'rejected'}: ${s.violations?.length ? violationsText(s.violations) : (s.message ?? '')}`);
  }
  if (r.budgetExhausted) lines.push(`The ${r.budgetExhausted} budget is exhausted: the episode has stopped; no more steps are accepted.`);
  return lines.join('\n');
}

const logSteps = defineTool({
  name: 'log_steps',
  title: 'Record the steps of a run',
  description:
    'Records what you did in the episode, in order: each command, edit or model call with its result. Send steps as you go or in batches (up to 1000 a call). A step with an error teaches later runs what to avoid.',
  scope: 'write',
  input: {
    episodeId,
    steps: z.array(STEP).min(1).max(STEP_LIMITS.stepsPerCall).describe(`The steps, in the order they ran (1 to ${STEP_LIMITS.stepsPerCall})`),
  },
  run: async (a, request) => {
    type Result = { __typename: 'LogStepsPayload' } & Parameters<typeof loggedText>[0];
    const result = await request<Result | { __typename: `${string}Error` }>(OPERATIONS.logSteps, { episodeId: a.episodeId, steps: a.steps.map(stepInput) });
    return answer(result, (r) => loggedText(r as Result));
  },
});

const list = (what: string) =>
  z.array(z.string().max(OUTCOME_LIMITS.itemBytes)).max(OUTCOME_LIMITS.items).optional().describe(`${what} (at most ${OUTCOME_LIMITS.items} items)`);

/** complete_episode's flat arguments, where the API's outcome fields arrive from. */
const OUTCOME_ARGUMENTS: ArgumentNames = [
  ['outcome.verdict', 'summary'],
  ['outcome.artifacts', 'filesChanged'],
  ['outcome.completed', 'completed'],
  ['outcome.failed', 'failed'],
  ['outcome.reason', 'reason'],
  ['outcome.details', 'details'],
];

const completeEpisode = defineTool({
  name: 'complete_episode',
  title: 'Finish a run with its outcome',
  description:
    'Call when the task is done or you give up: records the outcome (success, partial or failure), the files you changed and why it failed, so relevant_episodes finds this run for similar tasks. Pass the retrieval ids of relevant_* answers that helped in usedRetrievals.',
  scope: 'write',
  input: {
    episodeId,
    outcome: z.enum(['success', 'partial', 'failure']).describe('success: the task is done; partial: some of it; failure: not done'),
    summary: z.string().optional().describe('success or partial: what you did, in a sentence (required for them)'),
    filesChanged: list('The files you changed, as repository paths'),
    completed: list('partial: the parts that are done'),
    failed: list('partial: the parts that are not'),
    reason: z.string().optional().describe('failure: why, in a sentence (required for it)'),
    details: z.string().optional().describe('failure: what went wrong in detail: the error, what you tried'),
    usedRetrievals: z.array(z.string().max(128)).max(100).optional().describe('Retrieval ids of relevant_* answers that helped'),
  },
  run: async (a, request) => {
    const kind = a.outcome.toUpperCase();
    const artifacts = a.filesChanged;
    const outcome =
      a.outcome === 'failure'
        ? { kind, reason: a.reason, details: a.details, artifacts }
        : { kind, verdict: a.summary, artifacts, ...(a.outcome === 'partial' ? { completed: a.completed ?? [], failed: a.failed ?? [] } : {}) };
    type Result = { __typename: 'FinishEpisodePayload'; episode: { id: string; status: string; reward: { normalized: number | null } | null } };
    const result = await request<Result | { __typename: `${string}Error` }>(OPERATIONS.completeEpisode, {
      episodeId: a.episodeId,
      outcome,
      usedRetrievals: a.usedRetrievals,
    });
    return answer(
      result,
      (r) => {
        const { episode } = r as Result;
        const reward = episode.reward?.normalized == null ? '' : `, reward ${episode.reward.normalized.toFixed(2)}`;
        return `Episode ${episode.id} is ${episode.status} (${kind}${reward}). relevant_episodes will find it for similar tasks.`;
      },
      OUTCOME_ARGUMENTS,
    );
  },
});

export const WRITE_TOOLS = [startEpisode, logSteps, completeEpisode];
