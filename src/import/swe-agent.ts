// SWE-agent's `.traj` (0.x and 1.x): `trajectory[]` of {action, observation, thought/response,
// execution_time (1.x), state}, `history[]` of chat messages, `info` (`submission`: the final patch,
// `exit_status`, `model_stats`), and `environment` / `replay_config` (1.x). `history` may open with
// a demonstration (messages flagged is_demo, or one message starting "Here is a demonstration"),
// which carries its own ISSUE: the run's task is the first user message after it. SWE-agent records
// no exit codes (an observation's own markers decide the result kind) and no timestamps (the run's
// times stay unknown).
import { actionOf, toolOf } from './commands.ts';
import { type ChatMessage, taskMessageOf, textOf } from './messages.ts';
import { finishWithSubmit, taskOf } from './mini-swe-agent.ts';
import { changedFiles, type ImportedRun, type ImportedStep, ImportFileError, languageOf, parseJson, repositoryOf } from './run.ts';

const SWE_AGENT = 'swe-agent';

interface TrajectoryEntry {
  action?: unknown;
  observation?: unknown;
  thought?: unknown;
  response?: unknown;
  execution_time?: unknown;
}

const SWE_AGENT_TOOLS: Array<[RegExp, string]> = [
  [/^(open|goto|scroll_up|scroll_down|str_replace_editor view|view)\b/, 'view'],
  [/^(search_dir|search_file|find_file)\b/, 'search'],
  [/^(edit|create|insert|str_replace_editor|append)\b/, 'edit'],
  [/^submit\b/, 'submit'],
];

export function sweAgentToolOf(action: string): string {
  const trimmed = action.trim();
  return SWE_AGENT_TOOLS.find(([pattern]) => pattern.test(trimmed))?.[1] ?? toolOf(trimmed);
}

function resultOf(observation: string): ImportedStep['result'] {
  if (/timed out|took too long/i.test(observation.slice(0, 2000))) return { kind: 'TIMEOUT', output: observation };
  if (/Your proposed edit has introduced new syntax error/.test(observation))
    return { kind: 'ERROR', message: 'edit rejected: syntax error', errorClass: 'edit_rejected', output: observation };
  if (/command not found/.test(observation)) return { kind: 'ERROR', message: 'command not found', errorClass: 'exit_127', output: observation };
  return { kind: 'SUCCESS', output: observation };
}

const text = (v: unknown) => (typeof v === 'string' ? v : '');

/** The issue in the task message: <pr_description> (1.x), <issue>, or 0.x's ISSUE: ... INSTRUCTIONS:; else the message. */
function sweAgentTask(message: string): string {
  const issue = /<issue>\s*([\s\S]*?)\s*<\/issue>/.exec(message)?.[1] ?? /ISSUE:\s*\n([\s\S]*?)\n\s*INSTRUCTIONS:/.exec(message)?.[1];
  return issue?.trim() || taskOf(message);
}

export function parseSweAgent(file: string, source: string): ImportedRun {
  const doc = parseJson(file, source) as {
    trajectory?: unknown;
    history?: unknown;
    info?: { submission?: unknown; exit_status?: unknown };
    instance_id?: unknown;
  };
  if (!doc || typeof doc !== 'object' || !Array.isArray(doc.trajectory)) throw new ImportFileError(file, 1, 'not a SWE-agent trajectory: no "trajectory" list');
  const history = Array.isArray(doc.history) ? (doc.history as ChatMessage[]) : [];
  const task = taskMessageOf(history);
  if (!task) throw new ImportFileError(file, 1, 'no user message in "history" holding the task (outside a demonstration)');
  const taskText = sweAgentTask(textOf(task.content));
  if (!taskText) throw new ImportFileError(file, 1, 'the task message is empty');
  const steps = (doc.trajectory as TrajectoryEntry[]).map((entry): ImportedStep => {
    const action = text(entry.action).trim();
    const seconds = typeof entry.execution_time === 'number' && Number.isFinite(entry.execution_time) ? entry.execution_time : null;
    return {
      kind: 'tool_call',
      tool: sweAgentToolOf(action),
      action: actionOf(action),
      parameters: { command: action },
      result: resultOf(text(entry.observation)),
      thought: text(entry.thought) || null,
      startedAt: null,
      endedAt: null,
      tokens: null,
      cost: null,
      ...(seconds !== null ? { latencyMs: Math.max(0, Math.round(seconds * 1000)) } : {}),
    };
  });
  const patch = text(doc.info?.submission);
  finishWithSubmit(steps, patch);
  const name = (file.split('/').pop() ?? file).replace(/\.traj$/, '');
  const instanceId = typeof doc.instance_id === 'string' ? doc.instance_id : name;
  return {
    format: SWE_AGENT,
    instanceId,
    taskDescription: taskText,
    domain: repositoryOf(instanceId),
    language: languageOf(changedFiles(patch)),
    steps,
    patch,
    exitStatus: text(doc.info?.exit_status) || null,
    startedAt: null,
    endedAt: null,
    agent: SWE_AGENT,
  };
}
