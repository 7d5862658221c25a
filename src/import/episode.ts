// An imported run as the API's inputs: the episode, its steps, its outcome. Pure.
import type { OutcomeInput, StartEpisodeInput, StepInput } from '../client/types.ts';
import { changedFiles, type ImportedRun, type ImportedStep } from './run.ts';

/** The agent's reasoning kept with a step, cut to keep metadata well inside its 64 KB limit. */
const THOUGHT_MAX_CHARS = 8_000;

export interface RunSource {
  format: string;
  /** BLAKE3 of the file. */
  sourceHash: string;
  name: string;
}

const dedupeKeyOf = (source: RunSource) => `import:${source.format}:${source.sourceHash}`;

export function startInput(run: ImportedRun, source: RunSource, extraTags: readonly string[] = []): StartEpisodeInput {
  return {
    taskDescription: run.taskDescription,
    taskType: 'code_change',
    agent: run.agent ?? run.format,
    context: {
      ...(run.domain ? { domain: run.domain } : {}),
      ...(run.language ? { language: run.language } : {}),
      complexity: 'MODERATE',
      tags: ['imported', run.format, ...extraTags],
    },
    dedupeKey: dedupeKeyOf(source),
    metadata: { instanceId: run.instanceId, exitStatus: run.exitStatus },
    ...(run.startedAt ? { startedAt: run.startedAt.toISOString() } : {}),
    importSource: { format: source.format, sourceHash: source.sourceHash, name: source.name },
  };
}

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** The run's own latency, else the time from the step's start to its end when it gives both (in order). */
function latencyOf(step: ImportedStep): number | undefined {
  if (step.latencyMs != null) return step.latencyMs;
  if (!step.startedAt || !step.endedAt || step.endedAt < step.startedAt) return undefined;
  return Math.round(step.endedAt.getTime() - step.startedAt.getTime());
}

export function stepInput(step: ImportedStep, index: number): StepInput {
  const latencyMs = latencyOf(step);
  return {
    kind: step.kind,
    ...(step.tool ? { tool: step.tool } : {}),
    action: step.action,
    ...(step.parameters ? { parameters: step.parameters } : {}),
    result: step.result,
    ...(latencyMs !== undefined ? { latencyMs } : {}),
    ...(step.tokens != null ? { tokens: Math.max(0, Math.round(step.tokens)) } : {}),
    ...(step.cost != null && Number.isFinite(step.cost) ? { cost: Math.max(0, step.cost) } : {}),
    // The position in the file: importing it again finds the step instead of adding it twice.
    sideEffectKey: `import:${index}`,
    ...(step.thought ? { metadata: { thought: cut(step.thought, THOUGHT_MAX_CHARS) } } : {}),
    ...(step.startedAt ? { startedAt: step.startedAt.toISOString() } : {}),
    ...(step.endedAt && (!step.startedAt || step.endedAt >= step.startedAt) ? { endedAt: step.endedAt.toISOString() } : {}),
  };
}

/** resolved -> SUCCESS; not resolved -> FAILURE; no verdict: PARTIAL when a patch was submitted, else FAILURE. */
export function outcomeOf(run: ImportedRun, resolved: boolean | undefined): OutcomeInput {
  const artifacts = changedFiles(run.patch);
  const status = run.exitStatus ?? 'unknown';
  if (resolved === true) return { kind: 'SUCCESS', verdict: `resolved by the harness (exit status ${status})`, artifacts };
  if (resolved === false) return { kind: 'FAILURE', reason: 'not resolved by the harness', details: `exit status ${status}`, artifacts };
  if (run.patch) return { kind: 'PARTIAL', verdict: `patch submitted (exit status ${status}); no harness verdict`, completed: [], failed: [], artifacts };
  return { kind: 'FAILURE', reason: 'no patch submitted', details: `exit status ${status}`, artifacts };
}
