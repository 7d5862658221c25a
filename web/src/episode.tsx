// One episode, kept live: episodeUpdated re-sends it on each of its ledger events, and
// stepsLogged replays its step batches from the start, then follows new ones. What a debugging
// operator needs is on the page: the goal, the approval asked and how it was resolved, the outcome
// (partial ones list what was and was not done), budgets, every step expandable in full, the
// retrievals the run used and the credit they got, and the proof bundle, verified here.
import { useEffect, useState } from 'preact/hooks';
import type { Api } from './api.ts';
import { Approval, type Credit, Goal, OutcomeView, RetrievalsUsed } from './episode-parts.tsx';
import { Bar, label, num, Section, shortId, time, Value, WholeTask } from './format.tsx';
import { OPTIONAL_FIELDS } from './optional.ts';
import { ProofPanel } from './proof-panel.tsx';
import { type StepRow, Timeline } from './steps.tsx';

interface Budget {
  resource: string;
  used: number;
  limit: number | null;
  fraction: number | null;
}
interface Episode extends Record<string, unknown> {
  id: string;
  taskDescription: string;
  taskType: string;
  status: string;
  mode: string;
  agent: string | null;
  startedAt: string;
  endedAt: string | null;
  /** False: imported without times; startedAt is when it was imported. */
  timesKnown: boolean;
  context: { language: string | null; framework: string | null; complexity: string | null; domain: string | null; tags: string[] } | null;
  budgetUsage: Budget[];
  usedCost: number;
  goalSpec: unknown;
  approvalRequest: unknown;
  blockedReason: string | null;
  retrievalCredits: Credit[];
  stopReason: Record<string, unknown> | null;
  outcome: Record<string, unknown> | null;
  critique: { verdict: string; score: number | null; feedback: string | null; virtueScores: Array<{ name: string; score: number }> } | null;
  checkpoints: Array<{ id: string; label: string | null; stepNumber: number; createdAt: string; state: unknown }>;
}

const FIELDS = `id taskDescription taskType status mode agent startedAt endedAt timesKnown usedCost goalSpec approvalRequest blockedReason
  retrievalCredits { seq retrievalIds target outcome episodesCredited patternsCredited createdAt }
  context { language framework complexity domain tags }
  budgetUsage { resource used limit fraction }
  stopReason { kind reason resource recoverable isSuccessful canContinue }
  outcome { kind verdict artifacts completed failed reason details }
  critique { verdict score feedback virtueScores { name score } }
  checkpoints { id label stepNumber createdAt state }`;
const STEP_FIELDS = 'stepNumber kind tool action resultKind latencyMs tokens observation';

const UNITS: Record<string, string> = { wall_time: ' ms' };
const compact = (o: Record<string, unknown> | null) =>
  o && Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && !(Array.isArray(v) && !v.length)));

function useEpisode(api: Api, id: string, optional: string) {
  const [episode, setEpisode] = useState<Episode | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setEpisode(null);
    setError(null);
    let unfollow = () => {};
    let stopped = false;
    const query = `query Episode($id: ID!) { episode(id: $id) { ... on Episode { ${FIELDS} ${optional} } ... on NotFoundError { message } } }`;
    api
      .query<{ episode: Episode & { message?: string } }>(query, { id })
      .then(({ episode: found }) => {
        // An answer that arrives after the page moved to another episode is dropped, or it would replace that episode's.
        if (stopped) return;
        if (found.message) return setError(found.message);
        setEpisode(found);
        const live = `subscription EpisodeUpdated($id: ID!) { episodeUpdated(id: $id) { ${FIELDS} ${optional} } }`;
        unfollow = api.follow<{ episodeUpdated: Episode | null }>(live, { id }, (d) => d.episodeUpdated && setEpisode(d.episodeUpdated));
      })
      .catch((err: Error) => stopped || setError(err.message));
    return () => {
      stopped = true;
      unfollow();
    };
  }, [api, id, optional]);
  return { episode, error };
}

function useSteps(api: Api, episodeId: string) {
  const [steps, setSteps] = useState<StepRow[]>([]);
  useEffect(() => {
    setSteps([]);
    const variables = { episodeId, afterSeq: '0' };
    const query = `subscription Steps($episodeId: ID!, $afterSeq: BigInt) { stepsLogged(episodeId: $episodeId, afterSeq: $afterSeq) { seq steps { ${STEP_FIELDS} } } }`;
    return api.follow<{ stepsLogged: { seq: string; steps: StepRow[] } | null }>(query, variables, ({ stepsLogged: batch }) => {
      if (!batch || Number(batch.seq) <= Number(variables.afterSeq)) return;
      variables.afterSeq = batch.seq;
      setSteps((known) => {
        const byNumber = new Map(known.map((s) => [s.stepNumber, s]));
        for (const s of batch.steps) byNumber.set(s.stepNumber, s);
        return [...byNumber.values()].sort((a, b) => a.stepNumber - b.stepNumber);
      });
    });
  }, [api, episodeId]);
  return steps;
}

function Budgets({ usage }: { usage: Budget[] }) {
  return (
    <div class="budgets">
      {usage.map((b) => (
        <div class="budget" data-resource={b.resource} key={b.resource}>
          <span>{label(b.resource)}</span>
          {b.fraction === null ? <span class="bar none" title="no limit" /> : <Bar fraction={b.fraction} usage />}
          <span class="num">
            {num(b.used)}
            {UNITS[b.resource]} / {b.limit === null ? 'no limit' : `${num(b.limit)}${UNITS[b.resource] ?? ''}`}
          </span>
        </div>
      ))}
    </div>
  );
}

export function EpisodePage({ api, id, optional }: { api: Api; id: string; optional: string }) {
  const { episode: e, error } = useEpisode(api, id, optional);
  const steps = useSteps(api, id);
  if (error) return <p class="alert">{error}</p>;
  if (!e) return <p class="muted">Loading…</p>;
  const ctx = e.context;
  return (
    <article class="episode">
      <p>
        <a href="#/">← Episodes</a>
      </p>
      <h2 class="clamp">{e.taskDescription}</h2>
      <WholeTask text={e.taskDescription} />
      <p class="meta">
        <span class={`status ${e.status}`}>{e.status}</span> {e.taskType} · {e.mode} · {e.agent ?? 'no agent'} ·{' '}
        {e.timesKnown ? `started ${time(e.startedAt)}${e.endedAt ? ` · ended ${time(e.endedAt)}` : ''}` : `times unknown (imported ${time(e.startedAt)})`} ·{' '}
        <code>{shortId(e.id)}</code>
      </p>
      {ctx && (
        <p class="tags">
          {[ctx.domain, ctx.language, ctx.framework, ctx.complexity?.toLowerCase(), ...ctx.tags].filter(Boolean).map((t) => (
            <span class="tag" key={t}>
              {t}
            </span>
          ))}
        </p>
      )}
      <Goal goal={e.goalSpec} />
      {(e.outcome || e.stopReason) && (
        <Section title="Outcome">
          <OutcomeView outcome={e.outcome} />
          {e.stopReason && <Value value={{ stopReason: compact(e.stopReason) }} />}
        </Section>
      )}
      <Approval api={api} episodeId={e.id} status={e.status} request={e.approvalRequest} reason={e.blockedReason} steps={steps} />
      <Section title="Budget">
        <Budgets usage={e.budgetUsage} />
        <p class="muted">cost so far ${num(e.usedCost)}</p>
      </Section>
      <Section title={`Steps (${steps.length})`}>
        <Timeline api={api} episodeId={e.id} steps={steps} />
      </Section>
      <RetrievalsUsed credits={e.retrievalCredits} />
      <ProofPanel api={api} episodeId={e.id} />
      {e.critique && (
        <Section title="Critique">
          <p>
            <b>{e.critique.verdict}</b> {e.critique.score !== null && <>score {num(e.critique.score)}</>} {e.critique.feedback}
          </p>
          <Value value={Object.fromEntries(e.critique.virtueScores.map((v) => [v.name, v.score]))} />
        </Section>
      )}
      {OPTIONAL_FIELDS.filter((f) => e[f] !== undefined && e[f] !== null).map((f) => (
        <Section title={label(f)} key={f}>
          <Value value={e[f]} />
        </Section>
      ))}
      {e.checkpoints.length > 0 && (
        <Section title="Checkpoints">
          <ol class="checkpoints">
            {e.checkpoints.map((c) => (
              <li key={c.id}>
                <b>{c.label ?? 'checkpoint'}</b> after step {c.stepNumber} · {time(c.createdAt)}
                <details>
                  <summary>state</summary>
                  <pre>{JSON.stringify(c.state, null, 2)}</pre>
                </details>
              </li>
            ))}
          </ol>
        </Section>
      )}
    </article>
  );
}
