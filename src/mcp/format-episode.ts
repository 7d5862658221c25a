// One episode as text for an agent (the `episode` tool): the task, where it ended, the files, the
// lessons and its first steps, one line each. Pure.
import { type BriefEpisode, oneLine, outcomeText } from './format.ts';

export interface StepLine {
  stepNumber: number;
  kind?: string | null;
  tool?: string | null;
  action?: string | null;
  observation?: string | null;
  /** success, error or timeout; null for a step without a result. */
  resultKind?: string | null;
  /** The result without its kind (the API stores the kind beside it). */
  result?: { output?: string | null; message?: string | null; errorClass?: string | null } | null;
}

export interface FullEpisode extends BriefEpisode {
  context?: { language?: string | null; framework?: string | null; domain?: string | null; tags?: string[] | null } | null;
  stopReason?: { kind?: string | null; reason?: string | null; resource?: string | null } | null;
  steps?: { edges: Array<{ node: StepLine }>; pageInfo: { hasNextPage: boolean } } | null;
}

function stepText(s: StepLine): string {
  const head = [s.kind, s.tool].filter(Boolean).join(' ');
  const action = s.action ? `: ${oneLine(s.action, 160)}` : '';
  const r = s.result;
  const kind = s.resultKind?.toLowerCase();
  const result =
    kind === 'error'
      ? ` -> ERROR${r?.errorClass ? ` ${r.errorClass}` : ''}: ${oneLine(r?.message, 200)}`
      : kind === 'timeout'
        ? ' -> TIMEOUT'
        : r?.output
          ? ` -> ${oneLine(r.output, 120)}`
          : '';
  const seen = s.observation ? ` (${oneLine(s.observation, 120)})` : '';
  return `  ${s.stepNumber}. ${head}${action}${result}${seen}`;
}

function contextText(c: FullEpisode['context']): string {
  return [c?.language, c?.framework, c?.domain, ...(c?.tags ?? [])].filter(Boolean).join(', ');
}

export function episodeText(e: FullEpisode): string {
  const lines = [`Episode ${e.id}: ${e.status ?? 'UNKNOWN'}, ${outcomeText(e.outcome)}`, `Task: ${oneLine(e.taskDescription, 2000)}`];
  const context = contextText(e.context);
  if (context) lines.push(`Context: ${context}`);
  if (e.stopReason?.kind && e.stopReason.kind !== 'completed')
    lines.push(`Stopped: ${[e.stopReason.kind, e.stopReason.resource, e.stopReason.reason].filter(Boolean).join(', ')}`);
  if (e.outcome?.artifacts?.length) lines.push(`Files: ${oneLine(e.outcome.artifacts.join(', '), 1000)}`);
  for (const [label, items] of [
    ['Worked', e.reflection?.successes],
    ['Improve', e.reflection?.improvements],
    ['Insight', e.reflection?.insights],
  ] as const) {
    if (items?.length) lines.push(`${label}: ${oneLine(items.join('; '), 500)}`);
  }
  const steps = e.steps?.edges ?? [];
  if (steps.length) {
    const more = e.steps?.pageInfo.hasNextPage ? ` (first ${steps.length} of ${e.stepCount ?? 'more'})` : '';
    lines.push(`Steps${more}:`, ...steps.map((edge) => stepText(edge.node)));
  }
  return lines.join('\n');
}
