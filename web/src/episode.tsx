// One episode, kept live: episodeUpdated re-sends it on each of its ledger events, and
// stepsLogged replays its step batches from the start, then follows new ones. What a debugging
// operator needs is on the page: the goal, the approval asked and how it was resolved, the outcome
// (partial ones list what was and was not done), budgets, every step expandable in full, the
// retrievals the run used and the credit they got, and the proof bundle, verified here.
import { useEffect, useState } from 'preact/hooks';
import type { Api } from './api.ts';
import { Approval, Goal, OutcomeView, RetrievalsUsed } from './episode-parts.tsx';
import { Bar, duration, label, num, Section, shortId, time, usd, Value, WholeTask } from './format.tsx';
import { graphql } from './generated/gql.ts';
import type { EpisodePageFragment, EpisodeQuery } from './generated/graphql.ts';
import { ModelTable } from './model-table.tsx';
import { ProofPanel } from './proof-panel.tsx';
import { SpanTree } from './span-tree-view.tsx';
import { type StepRow, Timeline } from './steps.tsx';

// The page's documents, checked against schema.graphql by `npm run codegen` (web/src/generated):
// the learning results (reward, reflection, the patterns seen in the run) are asked for by name,
// so they show whether or not the server answers introspection.
// The fragment's text is appended to the documents that spread it (string mode).
graphql(`
  fragment EpisodePage on Episode {
    id taskDescription taskType status mode agent startedAt endedAt timesKnown usedCost goalSpec approvalRequest blockedReason metadata stepCount
    costKnown usageByModel { ...ModelUsageLine }
    retrievalCredits { seq retrievalIds target outcome episodesCredited patternsCredited createdAt }
    context { language framework complexity domain tags }
    budgetUsage { resource used limit fraction }
    stopReason { kind reason resource recoverable isSuccessful canContinue }
    outcome { kind verdict artifacts completed failed reason details }
    critique { verdict score feedback virtueScores { name score } }
    checkpoints { id label stepNumber createdAt state }
    reward { total normalized base efficiency qualityMultiplier complexityBonus learningBonus }
    reflection { successes improvements insights }
  }
`);
const EPISODE = graphql(`
  query Episode($id: ID!) {
    episode(id: $id) { __typename ... on Episode { ...EpisodePage } ... on NotFoundError { message } }
    patterns(first: 50, filter: { episodeId: $id }) { edges { node { id kind summary lift successRate occurrences } } }
  }
`);
const EPISODE_UPDATED = graphql(`
  subscription EpisodeUpdated($id: ID!) { episodeUpdated(id: $id) { ...EpisodePage } }
`);
const STEPS = graphql(`
  subscription Steps($episodeId: ID!, $afterSeq: BigInt) {
    stepsLogged(episodeId: $episodeId, afterSeq: $afterSeq) { seq steps { stepNumber kind tool action resultKind latencyMs tokens observation } }
  }
`);
type Episode = EpisodePageFragment;
type Budget = NonNullable<Episode['budgetUsage']>[number];
type LearnedPattern = NonNullable<EpisodeQuery['patterns']>['edges'][number]['node'];

const compact = (o: Record<string, unknown> | null) =>
  o && Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && !(Array.isArray(v) && !v.length)));

function useEpisode(api: Api, id: string) {
  const [episode, setEpisode] = useState<Episode | null>(null);
  const [patterns, setPatterns] = useState<LearnedPattern[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setEpisode(null);
    setPatterns([]);
    setError(null);
    let unfollow = () => {};
    let stopped = false;
    api
      .query(EPISODE, { id })
      .then(({ episode: found, patterns: learned }) => {
        // An answer that arrives after the page moved to another episode is dropped, or it would replace that episode's.
        if (stopped || !found) return;
        if (found.__typename === 'NotFoundError') return setError(found.message ?? 'not found');
        setEpisode(found);
        setPatterns(learned?.edges.map((e) => e.node) ?? []);
        unfollow = api.follow(EPISODE_UPDATED, { id }, (d) => d.episodeUpdated && setEpisode(d.episodeUpdated));
      })
      .catch((err: Error) => stopped || setError(err.message));
    return () => {
      stopped = true;
      unfollow();
    };
  }, [api, id]);
  return { episode, patterns, error };
}

function useSteps(api: Api, episodeId: string) {
  const [steps, setSteps] = useState<StepRow[]>([]);
  useEffect(() => {
    setSteps([]);
    const variables = { episodeId, afterSeq: '0' };
    return api.follow(STEPS, variables, ({ stepsLogged: batch }) => {
      if (!batch?.seq || Number(batch.seq) <= Number(variables.afterSeq)) return;
      variables.afterSeq = batch.seq;
      setSteps((known) => {
        const byNumber = new Map(known.map((s) => [s.stepNumber, s]));
        for (const s of batch.steps ?? []) byNumber.set(s.stepNumber ?? 0, { ...s, stepNumber: s.stepNumber ?? 0, kind: s.kind ?? '' });
        return [...byNumber.values()].sort((a, b) => a.stepNumber - b.stepNumber);
      });
    });
  }, [api, episodeId]);
  return steps;
}

/** A budget amount in its resource's unit: wall time as a duration. */
const amount = (resource: string, n: number) => (resource === 'wall_time' ? duration(n) : num(n));

function Budgets({ usage }: { usage: Budget[] }) {
  return (
    <div class="budgets">
      {usage.map((b) => (
        <div class="budget" data-resource={b.resource} key={b.resource}>
          <span>{label(b.resource ?? '')}</span>
          {b.fraction === null ? <span class="bar none" title="no limit" /> : <Bar fraction={b.fraction} usage />}
          <span class="num">
            {amount(b.resource ?? '', b.used ?? 0)} / {b.limit === null ? 'no limit' : amount(b.resource ?? '', b.limit)}
          </span>
        </div>
      ))}
    </div>
  );
}

/** Tokens and cost per model; a cost the price table could not tell is "unknown", never 0. */
const metaText = (metadata: unknown, key: string): string | null => {
  const v = metadata && typeof metadata === 'object' ? (metadata as Record<string, unknown>)[key] : null;
  return typeof v === 'string' && v ? v : null;
};

function Learned({ e, patterns }: { e: Episode; patterns: LearnedPattern[] }) {
  return (
    <>
      {e.reward && (
        <Section title="Reward">
          <Value value={compact(e.reward)} />
        </Section>
      )}
      {e.reflection && (
        <Section title="Reflection">
          <Value value={compact(e.reflection)} />
        </Section>
      )}
      {patterns.length > 0 && (
        <Section title={`Patterns (${patterns.length})`}>
          <ul class="patterns-seen">
            {patterns.map((p) => (
              <li key={p.id}>
                <b>{p.kind?.toLowerCase()}</b> {p.summary} · lift {num(p.lift)} · {p.successRate === null ? '–' : `${Math.round(p.successRate * 100)} %`}{' '}
                succeeded over {num(p.occurrences)} runs
              </li>
            ))}
          </ul>
        </Section>
      )}
    </>
  );
}

function CritiqueView({ e }: { e: Episode }) {
  if (!e.critique) return null;
  return (
    <Section title="Critique">
      <p>
        <b>{e.critique.verdict}</b> {e.critique.score !== null && <>score {num(e.critique.score)}</>} {e.critique.feedback}
      </p>
      <Value value={Object.fromEntries((e.critique.virtueScores ?? []).map((v) => [v.name, v.score]))} />
    </Section>
  );
}

/** What the run used: budgets, cost, tokens and cost per model, and, for a run sent over OTLP, its span tree. */
function Spend({ api, e }: { api: Api; e: Episode }) {
  const traceId = metaText(e.metadata, 'traceId');
  return (
    <>
      <Section title="Budget">
        <Budgets usage={e.budgetUsage ?? []} />
        <p class="muted">
          cost so far {usd(e.usedCost ?? 0)}
          {e.costKnown === false && ' and more: the cost of some model calls is unknown (a model the price table does not know)'}
        </p>
      </Section>
      {(e.usageByModel?.length ?? 0) > 0 && (
        <Section title="Models">
          <ModelTable lines={e.usageByModel ?? []} />
        </Section>
      )}
      {traceId && (
        <Section title="Span tree">
          <SpanTree
            api={api}
            run={{
              id: e.id ?? '',
              label: e.taskDescription ?? '',
              startedAt: e.startedAt ?? '',
              endedAt: e.endedAt ?? null,
              rootSpanId: metaText(e.metadata, 'rootSpanId'),
              stepCount: e.stepCount ?? 0,
            }}
          />
        </Section>
      )}
    </>
  );
}

export function EpisodePage({ api, id }: { api: Api; id: string }) {
  const { episode: e, patterns, error } = useEpisode(api, id);
  const steps = useSteps(api, id);
  if (error) return <p class="alert">{error}</p>;
  if (!e) return <p class="muted">Loading…</p>;
  const ctx = e.context;
  const session = metaText(e.metadata, 'sessionId');
  // "Stopped successfully" is the lifecycle's word for a run that completed: beside an unknown outcome it would read as a solved task.
  const stopReason = e.stopReason && (e.outcome?.kind === 'UNKNOWN' ? { ...e.stopReason, isSuccessful: null } : e.stopReason);
  return (
    <article class="episode">
      <p>
        <a href="#/">← Episodes</a>
      </p>
      <h2 class="clamp">{e.taskDescription}</h2>
      <WholeTask text={e.taskDescription ?? ''} />
      <p class="meta">
        <span class={`status ${e.status}`}>{e.status}</span> {e.taskType} · {e.mode} · {e.agent ?? 'no agent'} ·{' '}
        {e.timesKnown ? `started ${time(e.startedAt)}${e.endedAt ? ` · ended ${time(e.endedAt)}` : ''}` : `times unknown (imported ${time(e.startedAt)})`} ·{' '}
        <code>{shortId(id)}</code>
        {session && (
          <>
            {' '}
            · session{' '}
            <a href={`#/?session=${encodeURIComponent(session)}`} title="The session's runs">
              {session}
            </a>
          </>
        )}
      </p>
      {ctx && (
        <p class="tags">
          {[ctx.domain, ctx.language, ctx.framework, ctx.complexity && `complexity: ${ctx.complexity.toLowerCase()}`, ...(ctx.tags ?? [])]
            .filter(Boolean)
            .map((t) => (
              <span class="tag" key={t ?? ''}>
                {t}
              </span>
            ))}
        </p>
      )}
      <Goal goal={e.goalSpec} />
      {(e.outcome || e.stopReason) && (
        <Section title="Outcome">
          <OutcomeView outcome={e.outcome} />
          {stopReason && <Value value={{ stopReason: compact(stopReason) }} />}
        </Section>
      )}
      <Approval api={api} episodeId={id} status={e.status ?? ''} request={e.approvalRequest} reason={e.blockedReason} steps={steps} />
      <Spend api={api} e={e} />
      <Section title={`Steps (${steps.length})`}>
        <Timeline api={api} episodeId={id} steps={steps} />
      </Section>
      <RetrievalsUsed credits={e.retrievalCredits ?? []} />
      <ProofPanel api={api} episodeId={id} />
      <CritiqueView e={e} />
      <Learned e={e} patterns={patterns} />
      {(e.checkpoints?.length ?? 0) > 0 && (
        <Section title="Checkpoints">
          <ol class="checkpoints">
            {e.checkpoints?.map((c) => (
              <li key={c.id ?? ''}>
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
