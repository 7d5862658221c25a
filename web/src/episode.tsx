// One episode, kept live: episodeUpdated re-sends it on each of its ledger events, and
// stepsLogged replays its step batches from the start, then follows new ones.
import { useEffect, useState } from 'preact/hooks';
import type { Api } from './api.ts';
import { Bar, label, num, Section, shortId, time, Value } from './format.tsx';
import { OPTIONAL_FIELDS } from './optional.ts';

interface Budget {
  resource: string;
  used: number;
  limit: number | null;
  fraction: number | null;
}
interface Step {
  stepNumber: number;
  kind: string;
  tool: string | null;
  action: string | null;
  resultKind: string | null;
  latencyMs: number | null;
  tokens: number | null;
  observation: string | null;
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
  context: { language: string | null; framework: string | null; complexity: string | null; domain: string | null; tags: string[] } | null;
  budgetUsage: Budget[];
  stopReason: Record<string, unknown> | null;
  outcome: Record<string, unknown> | null;
  critique: { verdict: string; score: number | null; feedback: string | null; virtueScores: Array<{ name: string; score: number }> } | null;
  checkpoints: Array<{ id: string; label: string | null; stepNumber: number; createdAt: string; state: unknown }>;
}

const FIELDS = `id taskDescription taskType status mode agent startedAt endedAt
  context { language framework complexity domain tags }
  budgetUsage { resource used limit fraction }
  stopReason { kind reason resource recoverable isSuccessful canContinue }
  outcome { kind verdict artifacts completed failed reason details }
  critique { verdict score feedback virtueScores { name score } }
  checkpoints { id label stepNumber createdAt state }`;
const STEP_FIELDS = 'stepNumber kind tool action resultKind latencyMs tokens observation';

const UNITS: Record<string, string> = { wall_time: ' ms' };
const compact = (o: Record<string, unknown> | null) => o && Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && !(Array.isArray(v) && !v.length)));

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
        if (found.message) return setError(found.message);
        setEpisode(found);
        if (stopped) return;
        const live = `subscription EpisodeUpdated($id: ID!) { episodeUpdated(id: $id) { ${FIELDS} ${optional} } }`;
        unfollow = api.follow<{ episodeUpdated: Episode | null }>(live, { id }, (d) => d.episodeUpdated && setEpisode(d.episodeUpdated));
      })
      .catch((err: Error) => setError(err.message));
    return () => {
      stopped = true;
      unfollow();
    };
  }, [api, id, optional]);
  return { episode, error };
}

function useSteps(api: Api, episodeId: string) {
  const [steps, setSteps] = useState<Step[]>([]);
  useEffect(() => {
    setSteps([]);
    const variables = { episodeId, afterSeq: '0' };
    const query = `subscription Steps($episodeId: ID!, $afterSeq: BigInt) { stepsLogged(episodeId: $episodeId, afterSeq: $afterSeq) { seq steps { ${STEP_FIELDS} } } }`;
    return api.follow<{ stepsLogged: { seq: string; steps: Step[] } | null }>(query, variables, ({ stepsLogged: batch }) => {
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

function Timeline({ steps }: { steps: Step[] }) {
  if (!steps.length) return <p class="muted">No steps yet.</p>;
  const slowest = Math.max(1, ...steps.map((s) => s.latencyMs ?? 0));
  return (
    <ol class="timeline">
      {steps.map((s) => (
        <li key={s.stepNumber} data-step={s.stepNumber}>
          <span class="muted">#{s.stepNumber}</span>
          <span class="what" title={s.observation ?? ''}>
            <b>{s.kind}</b> {[s.tool, s.action].filter(Boolean).join('.')}
          </span>
          <span class={`pill ${s.resultKind ?? ''}`}>{s.resultKind ?? '–'}</span>
          <span class="latency"><span style={{ width: `${((s.latencyMs ?? 0) / slowest) * 100}%` }} /></span>
          <span class="num">{num(s.latencyMs)} ms</span>
          <span class="num">{num(s.tokens)} tok</span>
        </li>
      ))}
    </ol>
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
      <p><a href="#/">← Episodes</a></p>
      <h2>{e.taskDescription}</h2>
      <p class="meta">
        <span class={`status ${e.status}`}>{e.status}</span> {e.taskType} · {e.mode} · {e.agent ?? 'no agent'} · started {time(e.startedAt)}
        {e.endedAt && ` · ended ${time(e.endedAt)}`} · <code>{shortId(e.id)}</code>
      </p>
      {ctx && (
        <p class="tags">
          {[ctx.domain, ctx.language, ctx.framework, ctx.complexity?.toLowerCase(), ...ctx.tags].filter(Boolean).map((t) => <span class="tag" key={t}>{t}</span>)}
        </p>
      )}
      <Section title="Budget">
        <Budgets usage={e.budgetUsage} />
      </Section>
      {(e.outcome || e.stopReason) && (
        <Section title="Outcome">
          <Value value={{ ...compact(e.outcome), stopReason: compact(e.stopReason) }} />
        </Section>
      )}
      <Section title={`Steps (${steps.length})`}>
        <Timeline steps={steps} />
      </Section>
      {e.critique && (
        <Section title="Critique">
          <p><b>{e.critique.verdict}</b> {e.critique.score !== null && <>score {num(e.critique.score)}</>} {e.critique.feedback}</p>
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
                <details><summary>state</summary><pre>{JSON.stringify(c.state, null, 2)}</pre></details>
              </li>
            ))}
          </ol>
        </Section>
      )}
    </article>
  );
}
