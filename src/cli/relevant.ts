// episodic relevant "<task>": the past episodes most relevant to a task, each with its strength
// (the server's calibrated chance that the run is useful, one word and a value on the same scale
// for every query, unlike the relative total), and with --failures the failed runs to beware of, each saying what went wrong: its
// verdict, then its last error and the step it happened at.
import type { LastError } from '../monitor/last-error.ts';
import { oneLine } from './errors.ts';
import { defineCommand, failOnErrorResult, intOption, usage } from './remote.ts';

const HELP = `Usage: episodic relevant "<task description>" [--type <t>] [--domain <d>] [--language <l>] [--limit <n>] [--failures]
Lists the past episodes most relevant to a task, best first, each with how strongly it matches
(strong, moderate, weak or none, and the calibrated chance in [0, 1] that the run is useful to the
task, fitted on this tenant's history: the same scale for every query), and its score.
  --failures   also the failed runs to beware of, each with what went wrong: the verdict, and
               its last error with the step it happened at
  --limit <n>  results, 1..50 (default 5)
A key with write scope records a receipt; its id is printed: pass it to episodic complete --used-retrieval <id>.`;

const SCORE = 'total strength strengthWord';
const EPISODE = `id taskDescription status lastError { stepNumber tool kind message lastLine }`;
const QUERY = `query Relevant($task: RetrievalTaskInput!, $limit: Int, $failures: Boolean) {
  result: relevantEpisodes(task: $task, limit: $limit, includeFailures: $failures) {
    __typename ... on Error { message } ... on InputLimitError { violations { field limit message } }
    ... on RelevantEpisodes { retrievalId episodes { episode { ${EPISODE} } score { ${SCORE} } failed whatWentWrong }
      warnings { episode { ${EPISODE} } score { ${SCORE} } whatWentWrong } } } }`;

interface Hit {
  episode: { id: string; taskDescription: string; status: string; lastError: LastError | null };
  score: { total: number; strength: number; strengthWord: string };
  whatWentWrong: string | null;
}
interface Answer {
  __typename: string;
  retrievalId?: string | null;
  episodes?: Hit[];
  warnings?: Hit[];
}

/** What went wrong in a failed run: its verdict, its last error and the step. */
/** The server's account of what went wrong in the work (its last failing step, the files it was changing), else the last error. */
export function wentWrong(whatWentWrong: string | null, error: LastError | null): string {
  if (whatWentWrong) return whatWentWrong;
  return error
    ? `last error at step ${error.stepNumber}${error.tool ? ` (${error.tool})` : ''}: ${error.message}${error.lastLine ? ` · ${error.lastLine}` : ''}`
    : 'no step reported an error';
}

const strengthOf = (h: Hit) => ({ value: h.score.strength, word: h.score.strengthWord });
const row = (h: Hit) => {
  const s = strengthOf(h);
  return `${s.word.padEnd(8)} ${s.value.toFixed(2)}  ${h.episode.id}  ${h.episode.status.padEnd(9)} ${oneLine(h.episode.taskDescription, 70)}`;
};

export const relevantCommand = defineCommand({
  name: 'relevant',
  summary: 'past episodes relevant to a task, with match strength and what went wrong in failures',
  help: HELP,
  options: { type: { type: 'string' }, domain: { type: 'string' }, language: { type: 'string' }, limit: { type: 'string' }, failures: { type: 'boolean' } },
  async run({ values: v, positionals, client }) {
    const description = positionals.join(' ').trim();
    if (!description) throw usage('missing the task description', HELP);
    const limit = intOption(v.limit, '--limit', HELP, 1) ?? 5;
    const task = { description, taskType: v.type ?? null, context: { domain: v.domain ?? null, language: v.language ?? null } };
    const answer = failOnErrorResult(await client.request<Answer>(QUERY, { task, limit, failures: Boolean(v.failures) }));
    const hits = answer.episodes ?? [];
    const warnings = answer.warnings ?? [];
    const lines = hits.length ? hits.map(row) : ['nothing relevant found'];
    if (v.failures) {
      lines.push(`warnings     ${warnings.length ? '' : 'none'}`.trimEnd());
      for (const w of warnings) lines.push(row(w), `         ${oneLine(wentWrong(w.whatWentWrong, w.episode.lastError), 300)}`);
    }
    if (answer.retrievalId) lines.push(`retrieval    ${answer.retrievalId}`);
    const withStrength = (h: Hit) => ({
      ...h,
      strength: strengthOf(h),
      wentWrong: h.episode.status === 'FAILED' ? wentWrong(h.whatWentWrong, h.episode.lastError) : null,
    });
    return {
      text: lines.join('\n'),
      json: { retrievalId: answer.retrievalId ?? null, episodes: hits.map(withStrength), warnings: warnings.map(withStrength) },
    };
  },
});
