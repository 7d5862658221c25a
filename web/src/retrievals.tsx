// Retrievals: the receipts (what each relevantEpisodes / relevantPatterns call served, best first,
// and the completions that credited it), and a form that runs a retrieval and shows how every
// result scored, component by component. A receipt keeps ids, not scores: scores are shown for
// a retrieval run here.
import { useEffect, useState } from 'preact/hooks';
import type { Api } from './api.ts';
import { Bar, num, shortId, time, Value } from './format.tsx';

const RECEIPTS = `query Receipts($before: DateTime) { retrievalReceipts(first: 20, before: $before) {
  ... on QueryRetrievalReceiptsSuccess { data { id kind createdAt queryHash arm experimentId
    episodes { id taskDescription status } warnings { id taskDescription status lastError { stepNumber tool message lastLine } } patterns { id description }
    credits { seq target outcome episodesCredited patternsCredited episode { id taskDescription } } } }
  ... on InputLimitError { message } } }`;
/** Every signal (src/retrieval/signals.ts; a test checks): the components shown, and the strength (the server's calibrated chance the run is useful). */
const SCORE =
  'strength strengthWord total contextMatch reward similarity recency feedback feedbackUses feedbackResemblance textRank taskText work change trigramSimilarity';
const RUN = `query Run($task: RetrievalTaskInput!) {
  relevantEpisodes(task: $task, includeFailures: true, limit: 5) { ... on RelevantEpisodes { retrievalId
    episodes { episode { id taskDescription } score { ${SCORE} } }
    warnings { whatWentWrong episode { id taskDescription lastError { stepNumber tool message lastLine } } score { ${SCORE} } } } ... on InputLimitError { message } }
  relevantPatterns(task: $task, limit: 5) { ... on RelevantPatterns { retrievalId
    patterns { pattern { id description } score { total relevance strength lift feedback } } } ... on InputLimitError { message } } }`;

interface LastError {
  stepNumber: number;
  tool: string | null;
  message: string;
  lastLine: string | null;
}
interface Ref {
  id: string;
  taskDescription?: string;
  description?: string;
  status?: string;
  lastError?: LastError | null;
}
interface Receipt {
  id: string;
  kind: string;
  createdAt: string;
  queryHash: string;
  /** The experiment arm that served it (memory, control, interleaved); null outside an experiment. */
  arm: string | null;
  experimentId: string | null;
  episodes: Ref[];
  warnings: Ref[];
  patterns: Ref[];
  credits: Array<{
    seq: string;
    target: number | null;
    outcome: string | null;
    episodesCredited: number | null;
    patternsCredited: number | null;
    episode: Ref | null;
  }>;
}
interface Scored {
  score: Record<string, number>;
  episode?: Ref;
  pattern?: Ref;
  whatWentWrong?: string | null;
}

const refLink = (r: Ref) =>
  r.taskDescription !== undefined ? (
    <a class="clamp" href={`#/episodes/${r.id}`}>
      {r.taskDescription}
    </a>
  ) : (
    <span>{r.description}</span>
  );

/** Why a failed run is a warning: its verdict, then its last error and the step it happened at. */
function WhatWentWrong({ verdict, error }: { verdict?: string | null; error?: LastError | null }) {
  return (
    <p class="went-wrong">
      {verdict && <span>{verdict}. </span>}
      {error ? (
        <span data-last-error={error.stepNumber}>
          Last error at step {error.stepNumber}
          {error.tool ? ` (${error.tool})` : ''}: {error.message}
          {error.lastLine && (
            <>
              {' '}
              · <code>{error.lastLine}</code>
            </>
          )}
        </span>
      ) : (
        <span class="muted">No step reported an error.</span>
      )}
    </p>
  );
}

/** Episode scores: the absolute strength first (comparable across queries), then the components. */
const EPISODE_COLUMNS = ['contextMatch', 'reward', 'similarity', 'recency', 'feedback'];

function ReceiptCard({ r }: { r: Receipt }) {
  const served = [...r.episodes, ...r.patterns];
  return (
    <li class="card receipt" data-receipt={r.id}>
      <details>
        <summary>
          <b>{r.kind}</b> · {served.length} served{r.warnings.length ? `, ${r.warnings.length} warnings` : ''} ·{' '}
          {r.credits.length ? `credited ${r.credits.length}×` : 'not credited yet'} · {time(r.createdAt)} · <code>{shortId(r.id)}</code>
        </summary>
        <h4>Served, best first</h4>
        <ol>
          {served.map((s) => (
            <li key={s.id}>{refLink(s)}</li>
          ))}
        </ol>
        {r.warnings.length > 0 && (
          <>
            <h4>Warnings (similar failures)</h4>
            <ol>
              {r.warnings.map((s) => (
                <li key={s.id}>
                  {refLink(s)}
                  <WhatWentWrong error={s.lastError} />
                </li>
              ))}
            </ol>
          </>
        )}
        <h4>Credit</h4>
        {r.credits.length === 0 ? (
          <p class="muted">No completion has named this retrieval in usedRetrievals.</p>
        ) : (
          <ul>
            {r.credits.map((c) => (
              <li key={c.seq}>
                {c.episode ? refLink(c.episode) : 'an episode'} ended <b>{c.outcome ?? '–'}</b>: target {num(c.target)}, {num(c.episodesCredited)} episodes and{' '}
                {num(c.patternsCredited)} patterns moved (ledger seq {c.seq})
              </li>
            ))}
          </ul>
        )}
        <p class="muted">
          query hash <code>{r.queryHash.slice(0, 16)}</code>
          {r.arm && (
            <>
              {' '}
              · experiment arm <b>{r.arm}</b> (experiment <code>{shortId(r.experimentId ?? '')}</code>)
            </>
          )}
        </p>
      </details>
    </li>
  );
}

function Strength({ score }: { score: Record<string, number | string> }) {
  const word = String(score.strengthWord ?? 'none');
  const value = Number(score.strength ?? 0);
  return (
    <td
      class="num"
      data-strength={word}
      title={`a ${Math.round(value * 100)}% chance that this run is useful to the task (calibrated on this tenant's history)`}
    >
      <b>{word}</b> {value.toFixed(2)}
    </td>
  );
}

function ScoreTable({ title, rows }: { title: string; rows: Scored[] }) {
  if (!rows.length) return null;
  const episodes = rows[0]?.episode !== undefined;
  const components = episodes ? EPISODE_COLUMNS : Object.keys(rows[0]?.score ?? {}).filter((k) => k !== 'total');
  return (
    <div class="table-wrap">
      <table class="scores">
        <caption>{title}</caption>
        <thead>
          <tr>
            <th>Result</th>
            {episodes && <th title="The calibrated chance that the run is useful to the task, the same scale for every query">strength</th>}
            <th>total</th>
            {components.map((c) => (
              <th key={c}>{c}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((s, i) => {
            const ref = s.episode ?? s.pattern;
            return (
              <tr key={ref?.id ?? i}>
                <td class="result">
                  {ref ? refLink(ref) : '–'}
                  {s.whatWentWrong !== undefined && <WhatWentWrong verdict={s.whatWentWrong} error={ref?.lastError} />}
                </td>
                {episodes && <Strength score={s.score} />}
                <td class="num">
                  {(s.score.total ?? 0).toFixed(2)} <Bar fraction={s.score.total ?? 0} />
                </td>
                {components.map((c) => (
                  <td key={c} class="num">
                    {(s.score[c] ?? 0).toFixed(2)}
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function TryRetrieval({ api, onServed }: { api: Api; onServed: () => void }) {
  const [result, setResult] = useState<Record<string, unknown> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const text = (k: string) => String(form.get(k) ?? '').trim() || null;
    const context = { domain: text('domain'), language: text('language') };
    api
      .query<Record<string, unknown>>(RUN, { task: { description: text('description') ?? '', taskType: text('taskType'), context } })
      .then((data) => {
        setResult(data);
        setError(null);
        onServed();
      })
      .catch((err: Error) => setError(err.message));
  };
  type Answer = { message?: string; episodes?: Scored[]; warnings?: Scored[]; patterns?: Scored[] };
  const episodes = result?.relevantEpisodes as Answer | undefined;
  const patterns = result?.relevantPatterns as Answer | undefined;
  return (
    <section class="card" aria-labelledby="try-title">
      <h3 id="try-title">Run a retrieval and see how it scores</h3>
      <form class="filters" onSubmit={submit}>
        <label class="grow">
          Task description <input name="description" required />
        </label>
        <label>
          Task type <input name="taskType" />
        </label>
        <label>
          Domain <input name="domain" />
        </label>
        <label>
          Language <input name="language" />
        </label>
        <button type="submit">Retrieve</button>
      </form>
      {error && <p class="alert">{error}</p>}
      {[episodes?.message, patterns?.message].filter(Boolean).map((m) => (
        <p class="alert" key={m}>
          {m}
        </p>
      ))}
      {result && (
        <>
          <ScoreTable title="Episodes" rows={episodes?.episodes ?? []} />
          <ScoreTable title="Warnings" rows={episodes?.warnings ?? []} />
          <ScoreTable title="Patterns" rows={patterns?.patterns ?? []} />
          {!episodes?.episodes?.length && !patterns?.patterns?.length && <Value value="Nothing relevant was found." />}
        </>
      )}
    </section>
  );
}

export function RetrievalsPage({ api }: { api: Api }) {
  const [receipts, setReceipts] = useState<Receipt[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  useEffect(() => {
    api
      .query<{ retrievalReceipts: { data?: Receipt[]; message?: string } }>(RECEIPTS, {})
      .then(({ retrievalReceipts: r }) => (r.message ? setError(r.message) : setReceipts(r.data ?? [])))
      .catch((err: Error) => setError(err.message));
  }, [api, reload]);
  return (
    <section aria-labelledby="retrievals-title">
      <h2 id="retrievals-title">Retrievals</h2>
      <TryRetrieval api={api} onServed={() => setReload(reload + 1)} />
      {error && <p class="alert">{error}</p>}
      {receipts && !receipts.length && <p class="muted">No retrieval has been served yet.</p>}
      <ul class="receipts">
        {receipts?.map((r) => (
          <ReceiptCard key={r.id} r={r} />
        ))}
      </ul>
    </section>
  );
}
