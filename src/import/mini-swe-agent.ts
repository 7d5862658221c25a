// mini-swe-agent's `.traj.json` (trajectory_format mini-swe-agent-1): `messages` holds the system
// prompt, the task (`<pr_description>`), then assistant turns (THOUGHT + one ```bash block) each
// answered by a user turn with `<returncode>`/`<output>` (or a format or timeout notice); `info`
// has `exit_status` and `submission` (the final patch). Each assistant turn is one step.
import { actionOf, resultKindOf, toolOf } from './commands.ts';
import { taskMessageOf, textOf } from './messages.ts';
import { changedFiles, type ImportedRun, type ImportedStep, ImportFileError, languageOf, parseJson, repositoryOf } from './run.ts';

const MINI_SWE_AGENT = 'mini-swe-agent';

interface Message {
  role: string;
  content: unknown;
  extra?: { response?: { created?: number; model?: string; usage?: { total_tokens?: number; cost?: number } } };
}

// mini-swe-agent's own action_regex: ```bash\s*\n(.*?)\n``` (DOTALL).
const BASH_BLOCK = /```bash\s*\n([\s\S]*?)\n```/g;

/**
 * The task text of the task message: inside <pr_description> (the SWE-bench template) without its
 * lead-in, or between "Please solve this issue:" and the instructions (mini-swe-agent's default
 * template); else the whole message.
 */
export function taskOf(text: string): string {
  const inside =
    /<pr_description>\s*([\s\S]*?)\s*<\/pr_description>/.exec(text)?.[1] ??
    /^\s*Please solve this issue:\s*([\s\S]*?)\n\s*\nYou can execute bash commands/.exec(text)?.[1] ??
    text;
  return inside.replace(/^Consider the following PR description:\s*/, '').trim();
}

interface Observation {
  exitCode: number | null;
  output: string;
  timedOut: boolean;
}

function observationOf(text: string): Observation {
  const code = /<returncode>(-?\d+)<\/returncode>/.exec(text);
  const output = /<output>\n?([\s\S]*?)<\/output>/.exec(text);
  const timedOut = /^The last command [\s\S]*? timed out/.test(text);
  if (code) return { exitCode: Number(code[1]), output: output?.[1] ?? '', timedOut: false };
  return { exitCode: null, output: output?.[1] ?? text, timedOut };
}

const dateOf = (seconds: number | undefined) => (typeof seconds === 'number' && Number.isFinite(seconds) ? new Date(seconds * 1000) : null);

function commandStep(command: string, thought: string, obs: Observation, at: Date | null, usage: Message['extra']): ImportedStep {
  const tool = toolOf(command);
  const kind = resultKindOf(obs.exitCode, obs.timedOut);
  const output = obs.output;
  const result =
    kind === 'SUCCESS'
      ? { kind, output }
      : kind === 'TIMEOUT'
        ? { kind, output }
        : { kind, message: `exit code ${obs.exitCode}`, errorClass: `exit_${obs.exitCode}`, output };
  return {
    kind: 'tool_call',
    tool,
    action: actionOf(command),
    parameters: { command },
    result,
    thought: thought || null,
    startedAt: at,
    endedAt: null,
    tokens: usage?.response?.usage?.total_tokens ?? null,
    cost: usage?.response?.usage?.cost ?? null,
  };
}

function formatErrorStep(blocks: number, thought: string, notice: string, at: Date | null, usage: Message['extra']): ImportedStep {
  return {
    kind: 'llm_call',
    tool: null,
    action: `invalid response: ${blocks} actions`,
    parameters: null,
    result: { kind: 'ERROR', message: notice.split('\n')[0] || 'format error', errorClass: 'format_error' },
    thought: thought || null,
    startedAt: at,
    endedAt: null,
    tokens: usage?.response?.usage?.total_tokens ?? null,
    cost: usage?.response?.usage?.cost ?? null,
  };
}

/** Parses one mini-swe-agent trajectory; throws ImportFileError naming the file (and line) when it cannot. */
export function parseMiniSweAgent(file: string, text: string): ImportedRun {
  const doc = parseJson(file, text) as {
    messages?: unknown;
    info?: { exit_status?: unknown; submission?: unknown; model_stats?: unknown; config?: { model?: { model_name?: string } } };
    instance_id?: unknown;
  };
  if (!doc || typeof doc !== 'object' || !Array.isArray(doc.messages))
    throw new ImportFileError(file, 1, 'not a mini-swe-agent trajectory: no "messages" list');
  const messages = doc.messages as Message[];
  const taskMessage = taskMessageOf(messages);
  if (!taskMessage) throw new ImportFileError(file, 1, 'no user message holding the task');
  const instanceId = typeof doc.instance_id === 'string' ? doc.instance_id : (file.split('/').pop() ?? file).replace(/\.traj\.json$/, '');
  const steps: ImportedStep[] = [];
  const start = messages.indexOf(taskMessage) + 1;
  messages.slice(start).forEach((m, k) => {
    if (m.role !== 'assistant') return;
    const content = textOf(m.content);
    const next = messages[start + k + 1];
    const reply = next?.role === 'user' ? textOf(next.content) : '';
    const blocks = [...content.matchAll(BASH_BLOCK)].map((b) => b[1] ?? '');
    const thought = content
      .replace(BASH_BLOCK, '')
      .replace(/^THOUGHT:\s*/, '')
      .trim();
    const at = dateOf(m.extra?.response?.created);
    const [command] = blocks;
    if (blocks.length !== 1 || command === undefined) steps.push(formatErrorStep(blocks.length, thought, reply, at, m.extra));
    else steps.push(commandStep(command, thought, observationOf(reply), at, m.extra));
  });
  // A step ends when the agent's next response starts.
  steps.forEach((step, i) => {
    const following = steps[i + 1];
    if (following) step.endedAt = following.startedAt;
  });
  const patch = typeof doc.info?.submission === 'string' ? doc.info.submission : '';
  finishWithSubmit(steps, patch);
  const files = changedFiles(patch);
  const times = steps.flatMap((s) => [s.startedAt, s.endedAt]).filter((t): t is Date => t !== null);
  return {
    format: MINI_SWE_AGENT,
    instanceId,
    taskDescription: taskOf(textOf(taskMessage.content)),
    domain: repositoryOf(instanceId),
    language: languageOf(files),
    steps,
    patch,
    exitStatus: typeof doc.info?.exit_status === 'string' ? doc.info.exit_status : null,
    startedAt: times.length ? new Date(Math.min(...times.map((t) => t.getTime()))) : null,
    endedAt: times.length ? new Date(Math.max(...times.map((t) => t.getTime()))) : null,
    agent: MINI_SWE_AGENT,
  };
}

/**
 * The final submit step carries the patch as its output: the run's own submit step when it ends
 * with one, else a step added for the submission.
 */
export function finishWithSubmit(steps: ImportedStep[], patch: string): void {
  const last = steps[steps.length - 1];
  if (last?.tool === 'submit') {
    last.result = { kind: 'SUCCESS', output: patch };
    return;
  }
  if (!patch) return;
  steps.push({
    kind: 'tool_call',
    tool: 'submit',
    action: 'submit the final patch',
    parameters: { command: 'submit' },
    result: { kind: 'SUCCESS', output: patch },
    thought: null,
    startedAt: last?.endedAt ?? last?.startedAt ?? null,
    endedAt: null,
    tokens: null,
    cost: null,
  });
}
