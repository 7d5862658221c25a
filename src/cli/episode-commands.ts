// episodic start | complete | list: the episode lifecycle from a shell (show: show.ts).
import type { Complexity, Episode, OutcomeInput, OutcomeKind, StartEpisodeInput } from '../client/types.ts';
import { oneLine } from './errors.ts';
import { defineCommand, failOnErrorResult, intOption, listOption, usage } from './remote.ts';

const START_HELP = `Usage: episodic start <task description...> [options]
Opens an episode and prints its id.
  --type <taskType>            task type (default: general)
  --tag <tag>                  a tag; repeat or comma-separate (--tag a --tag b,c)
  --language, --framework, --domain <value>
  --complexity <simple|moderate|complex>
  --agent <name>               who runs the episode
  --goal <text>                goal spec
  --max-tokens, --max-steps, --max-wall-ms <n>
                               budget enforced by the server
  --on-budget-exhausted <fail|converge>
  --lease <id>                 run under a lease (its work item is implied)
  --work-item <id>             attach to a work item
  --dedupe-key <key>           repeating a start with the same key returns the same episode
Example: id=$(episodic start "Fix the flaky test" --type bugfix --tag ci --max-steps 50)`;

const COMPLETE_HELP = `Usage: episodic complete <episodeId> --outcome success|partial|failure [options]
Ends an episode with its outcome; the lease, if any, is charged.
  --verdict <text>             success/partial: what was achieved
  --artifact <a>               success: produced artifacts (repeatable)
  --completed <x>, --failed <y>
                               partial: what succeeded / failed (repeatable)
  --reason <text>              failure: the reason (required for failure)
  --details <text>             failure: details
  --used-retrieval <id>        a retrieval (the id episodic relevant prints) that helped: credited
                               on success, debited on failure (repeatable)`;

const LIST_HELP = `Usage: episodic list [filters]
Lists episodes, newest first.
  --status <s,...>             running, blocked, completed, failed, cancelled, escalated
  --type <taskType>  --agent <name>  --tag <tag> (repeatable)  --language <l>  --domain <d>
  --outcome <success|partial|failure>  --text <words>  --work-item <id>
  --first <n>                  page size (default 20)
  --after <cursor>             next page (the cursor printed at the end)`;

const upper = <T extends string>(v: string | undefined) => v?.toUpperCase() as T | undefined;

function budgetOf(v: { 'max-tokens'?: string; 'max-steps'?: string; 'max-wall-ms'?: string }, help: string): StartEpisodeInput['budget'] {
  const budget = {
    maxTokens: intOption(v['max-tokens'], '--max-tokens', help, 1),
    maxSteps: intOption(v['max-steps'], '--max-steps', help, 1),
    maxWallMs: intOption(v['max-wall-ms'], '--max-wall-ms', help, 1),
  };
  return Object.values(budget).some((x) => x !== undefined) ? budget : undefined;
}

export const startCommand = defineCommand({
  name: 'start',
  summary: 'open an episode and print its id',
  help: START_HELP,
  options: {
    type: { type: 'string' },
    tag: { type: 'string', multiple: true },
    language: { type: 'string' },
    framework: { type: 'string' },
    domain: { type: 'string' },
    complexity: { type: 'string' },
    agent: { type: 'string' },
    goal: { type: 'string' },
    'max-tokens': { type: 'string' },
    'max-steps': { type: 'string' },
    'max-wall-ms': { type: 'string' },
    'on-budget-exhausted': { type: 'string' },
    lease: { type: 'string' },
    'work-item': { type: 'string' },
    'dedupe-key': { type: 'string' },
  },
  async run({ values: v, positionals, client }) {
    const taskDescription = positionals.join(' ').trim();
    if (!taskDescription) throw usage('missing the task description', START_HELP);
    if (v.complexity && !['simple', 'moderate', 'complex'].includes(v.complexity)) throw usage('--complexity must be simple, moderate or complex', START_HELP);
    if (v['on-budget-exhausted'] && !['fail', 'converge'].includes(v['on-budget-exhausted']))
      throw usage('--on-budget-exhausted must be fail or converge', START_HELP);
    const result = failOnErrorResult(
      await client.startEpisode({
        taskDescription,
        taskType: v.type ?? 'general',
        agent: v.agent,
        goalSpec: v.goal,
        context: { tags: listOption(v.tag) ?? [], language: v.language, framework: v.framework, domain: v.domain, complexity: upper<Complexity>(v.complexity) },
        budget: budgetOf(v, START_HELP),
        onBudgetExhausted: upper<'FAIL' | 'CONVERGE'>(v['on-budget-exhausted']),
        leaseId: v.lease,
        workItemId: v['work-item'],
        dedupeKey: v['dedupe-key'],
      }),
    );
    const e = result.episode;
    return { text: e.id, json: { id: e.id, episodeNumber: e.episodeNumber, status: e.status, deduplicated: result.deduplicated } };
  },
});

function outcomeOf(v: {
  outcome?: string;
  verdict?: string;
  artifact?: string[];
  completed?: string[];
  failed?: string[];
  reason?: string;
  details?: string;
}): OutcomeInput {
  const kind = upper<OutcomeKind>(v.outcome);
  if (!kind || !['SUCCESS', 'PARTIAL', 'FAILURE'].includes(kind)) throw usage('--outcome must be success, partial or failure', COMPLETE_HELP);
  if (kind === 'SUCCESS') return { kind, verdict: v.verdict ?? 'done', artifacts: listOption(v.artifact) ?? [] };
  if (kind === 'PARTIAL') return { kind, verdict: v.verdict ?? 'partly done', completed: listOption(v.completed) ?? [], failed: listOption(v.failed) ?? [] };
  if (!v.reason) throw usage('--outcome failure needs --reason', COMPLETE_HELP);
  return { kind, reason: v.reason, details: v.details };
}

export const completeCommand = defineCommand({
  name: 'complete',
  summary: 'end an episode with an outcome',
  help: COMPLETE_HELP,
  options: {
    outcome: { type: 'string' },
    verdict: { type: 'string' },
    artifact: { type: 'string', multiple: true },
    completed: { type: 'string', multiple: true },
    failed: { type: 'string', multiple: true },
    reason: { type: 'string' },
    details: { type: 'string' },
    'used-retrieval': { type: 'string', multiple: true },
  },
  async run({ values, positionals, client }) {
    const id = positionals[0];
    if (!id) throw usage('missing the episode id', COMPLETE_HELP);
    const result = failOnErrorResult(await client.completeEpisode(id, outcomeOf(values), listOption(values['used-retrieval'])));
    const { episode, leaseCharge } = result;
    const charge = leaseCharge
      ? `\nlease charged: ${leaseCharge.ok ? 'ok' : 'overdrawn'}${leaseCharge.exhausted ? `, ${leaseCharge.exhausted} exhausted` : ''}`
      : '';
    return { text: `${episode.id} ${episode.status} (${episode.outcome?.kind})${charge}`, json: { episode, leaseCharge } };
  },
});

export const listCommand = defineCommand({
  name: 'list',
  summary: 'list episodes (filters, pages)',
  help: LIST_HELP,
  options: {
    status: { type: 'string' },
    type: { type: 'string' },
    agent: { type: 'string' },
    tag: { type: 'string', multiple: true },
    language: { type: 'string' },
    domain: { type: 'string' },
    outcome: { type: 'string' },
    text: { type: 'string' },
    'work-item': { type: 'string' },
    first: { type: 'string' },
    after: { type: 'string' },
  },
  async run({ values: v, client }) {
    const page = await client.episodes({
      filter: {
        status: listOption(v.status)?.map((s) => s.toUpperCase() as Episode['status']),
        taskType: v.type,
        agent: v.agent,
        tags: listOption(v.tag),
        language: v.language,
        domain: v.domain,
        outcome: upper<OutcomeKind>(v.outcome),
        text: v.text,
        workItemId: v['work-item'],
      },
      first: intOption(v.first, '--first', LIST_HELP, 1) ?? 20,
      after: v.after,
    });
    const rows = page.edges.map(
      ({ node: e }) => `${e.id}  ${e.status.padEnd(9)} ${String(e.stepCount).padStart(4)} steps  ${e.taskType}: ${oneLine(e.taskDescription, 60)}`,
    );
    const more = page.pageInfo.hasNextPage ? `\nmore: --after ${page.pageInfo.endCursor}` : '';
    return { text: (rows.join('\n') || 'no episodes') + more, json: { episodes: page.edges.map((e) => e.node), pageInfo: page.pageInfo } };
  },
});
