// episodic show <id>: the whole episode in one screen: task and goal, status and stop reason,
// budget use, outcome, reward and reflection, critique, the steps that failed and what the agent
// observed; --steps adds the full journal. --json prints the same as one object.
import type { EpisodicClient } from '../client/client.ts';
import type { Episode, Json, Step } from '../client/types.ts';
import { isUuid } from '../core/ids.ts';
import { defineCommand, failOnErrorResult, type Output, usage } from './remote.ts';

const HELP = `Usage: episodic show <episodeId> [--steps]
Prints an episode: task, goal, status and stop reason, budget use, outcome, reward and reflection,
critique, the steps that did not succeed and the agent's observations (of the first 1000 steps);
--steps adds the whole journal, one line per step.`;

const SCAN_STEPS = 1000;

interface Learning {
  reward: {
    total: number | null;
    base: number | null;
    efficiency: number | null;
    qualityMultiplier: number | null;
    complexityBonus: number | null;
    learningBonus: number | null;
  } | null;
  reflection: { successes: string[] | null; insights: string[] | null; improvements: string[] | null } | null;
}

const LEARNING = `query EpisodeLearning($id: ID!) { result: episode(id: $id) { __typename ... on Error { message }
  ... on Episode { reward { total base efficiency qualityMultiplier complexityBonus learningBonus } reflection { successes insights improvements } } } }`;

async function readSteps(client: EpisodicClient, id: string, limit: number): Promise<Step[]> {
  const steps: Step[] = [];
  for (let after: string | undefined; steps.length < limit; ) {
    const page = failOnErrorResult(await client.episodeSteps(id, { first: 100, after }));
    steps.push(...page.edges.map((e) => e.node));
    if (!page.pageInfo.hasNextPage) break;
    after = page.pageInfo.endCursor ?? undefined;
  }
  return steps.slice(0, limit);
}

const oneLine = (value: Json | string | null | undefined, max = 160): string => {
  const text = typeof value === 'string' ? value : value === null || value === undefined ? '' : JSON.stringify(value);
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** A number for people: at most 3 decimals (0.733, not 0.7333333333333333), thousands separated. */
const fmtNumber = (n: number | string | null | undefined): string =>
  n === null || n === undefined ? '-' : Number(n).toLocaleString('en-US', { maximumFractionDigits: 3 });

/** Milliseconds for people: 820 ms, 1.5 s, 2 min 5 s, 3 h 4 min. */
function fmtDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${fmtNumber(Math.round(ms / 100) / 10)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
  return `${Math.floor(ms / 3_600_000)} h ${Math.round((ms % 3_600_000) / 60_000)} min`;
}

const budgetValue = (resource: string, n: number) => (resource === 'wall_time' ? fmtDuration(n) : fmtNumber(n));

/** What a step's result says: its error message, else its output. */
function resultText(result: Json | null): Json {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return result;
  return result.message ?? result.error ?? result.output ?? null;
}

const stepLine = (s: Step) =>
  `#${s.stepNumber} ${s.kind}${s.tool ? ` ${s.tool}` : ''}${s.action ? ` ${oneLine(s.action, 60)}` : ''}${s.resultKind ? ` -> ${s.resultKind}` : ''}`;

/** A step that did not succeed: its result kind says so (error, timeout). */
const failed = (s: Step) => s.resultKind !== null && s.resultKind.toLowerCase() !== 'success';

/** The task's context: domain, language, framework and complexity on one line, the tags on the next. */
function contextLines(context: Episode['context']): string[] {
  if (!context) return [];
  const { domain, language, framework, complexity, tags } = context;
  const known = Object.entries({ domain, language, framework, complexity: complexity?.toLowerCase() }).filter(([, value]) => value);
  return [
    ...(known.length ? [`context      ${known.map(([name, value]) => `${name} ${value}`).join(', ')}`] : []),
    ...(tags.length ? [`tags         ${tags.join(', ')}`] : []),
  ];
}

function describe(e: Episode, learning: Learning | undefined, steps: Step[]): string[] {
  const budget = (e.budgetUsage ?? [])
    .map((b) => `${b.resource} ${budgetValue(b.resource, Number(b.used))}${b.limit === null ? '' : `/${budgetValue(b.resource, Number(b.limit))}`}`)
    .join(', ');
  const stop = e.stopReason
    ? `, stop ${e.stopReason.kind}${e.stopReason.resource ? `{${e.stopReason.resource}}` : ''}${e.stopReason.reason ? `: ${e.stopReason.reason}` : ''}`
    : '';
  const lines = [
    `episode      ${e.id}${e.episodeNumber ? ` (#${e.episodeNumber})` : ''}`,
    `task         ${e.taskType}: ${e.taskDescription}`,
    `goal         ${e.goalSpec === null || e.goalSpec === undefined ? '-' : oneLine(e.goalSpec, 400)}`,
    `status       ${e.status}${e.phase ? ` / ${e.phase}` : ''}${stop}`,
    e.timesKnown === false
      ? `time         unknown (imported without times on ${e.startedAt})`
      : `time         started ${e.startedAt}${e.endedAt ? `, ended ${e.endedAt}` : ''}`,
    `usage        ${fmtNumber(e.stepCount)} steps, ${fmtNumber(e.usedTokens)} tokens, ${fmtNumber(e.usedToolCalls)} tool calls${budget ? ` (${budget})` : ''}`,
  ];
  lines.push(...contextLines(e.context));
  const o = e.outcome;
  lines.push(`outcome      ${o ? `${o.kind}: ${o.verdict ?? o.reason ?? ''}${o.details ? ` (${o.details})` : ''}` : '-'}`);
  if (o?.artifacts?.length) lines.push(`artifacts    ${o.artifacts.join(', ')}`);
  const r = learning?.reward;
  lines.push(
    `reward       ${r?.total === null || r?.total === undefined ? '-' : `${fmtNumber(r.total)} (base ${fmtNumber(r.base)}, efficiency ${fmtNumber(r.efficiency)}, quality x${fmtNumber(r.qualityMultiplier)}, complexity +${fmtNumber(r.complexityBonus)}, learning +${fmtNumber(r.learningBonus)})`}`,
  );
  const reflection = learning?.reflection;
  for (const [label, items] of [
    ['successes', reflection?.successes],
    ['insights', reflection?.insights],
    ['improvements', reflection?.improvements],
  ] as const) {
    for (const [i, item] of (items ?? []).entries()) lines.push(`${i === 0 ? label.padEnd(13) : ' '.repeat(13)}${item}`);
  }
  lines.push(
    `critique     ${e.critique ? `${e.critique.verdict}${e.critique.score === null ? '' : ` (${fmtNumber(e.critique.score)})`}${e.critique.feedback ? `: ${oneLine(e.critique.feedback)}` : ''}` : '-'}`,
  );
  const errors = steps.filter(failed);
  lines.push(`errors       ${errors.length ? '' : 'none'}`.trimEnd());
  for (const s of errors.slice(0, 20)) lines.push(`  ${stepLine(s)}: ${oneLine(resultText(s.result))}`);
  const observed = steps.filter((s) => s.observation);
  lines.push(`observations ${observed.length ? '' : 'none'}`.trimEnd());
  for (const s of observed.slice(0, 20)) lines.push(`  #${s.stepNumber}: ${oneLine(s.observation)}`);
  return lines;
}

export const showCommand = defineCommand({
  name: 'show',
  summary: 'print an episode: goal, outcome, reward, reflection, errors, observations',
  help: HELP,
  options: { steps: { type: 'boolean' } },
  async run({ values, positionals, client }): Promise<Output> {
    const id = positionals[0];
    if (!id) throw usage('missing the episode id', HELP);
    if (!isUuid(id)) throw usage(`"${id}" is not an episode id (a UUID, as episodic start and episodic list print)`, HELP);
    const episode = failOnErrorResult(await client.episode(id));
    const [learning, steps] = await Promise.all([
      client.request<Learning & { __typename: string }>(LEARNING, { id }),
      readSteps(client, id, values.steps ? Number.MAX_SAFE_INTEGER : SCAN_STEPS),
    ]);
    const lines = describe(episode, learning, steps);
    if (values.steps) lines.push('journal', ...steps.map((s) => `  ${stepLine(s)}`));
    const errors = steps.filter(failed).map((s) => ({ stepNumber: s.stepNumber, tool: s.tool, action: s.action, resultKind: s.resultKind, result: s.result }));
    const observations = steps.filter((s) => s.observation).map((s) => ({ stepNumber: s.stepNumber, observation: s.observation }));
    const json = { ...episode, reward: learning.reward, reflection: learning.reflection, errors, observations, ...(values.steps ? { steps } : {}) };
    return { text: lines.join('\n'), json };
  },
});
