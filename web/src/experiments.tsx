// Experiments on the memory (docs/LEARNING.md, "Does the memory help?"): the tenant's experiments,
// and for the one chosen its memoryImpact: per arm the counts and means, the difference with its
// interval and p-value, and the plain sentence, or how far it is from the minimum sample. Reloads
// when the ledger moves, at most once per RELOAD_MS.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from './api.ts';
import { duration, num, shortId, time } from './format.tsx';
import { graphql } from './generated/gql.ts';
import type { ExperimentsQuery, MemoryImpactQuery } from './generated/graphql.ts';
import { controlLabel, percent, points, pValue } from './impact-format.ts';

const EXPERIMENTS = graphql(`
  query Experiments { experiments { id name kind status controlShare control minSample startedAt pausedAt scopeAgent scopeTaskType scopeWorkItemId } }
`);
const MEMORY_IMPACT = graphql(`
  query MemoryImpact($id: ID!) {
    memoryImpact(experimentId: $id) {
      __typename
      ... on MemoryImpact {
        verdict method sentence difference differenceLow differenceHigh pValue wins losses ties
        experiment { id name minSample kind }
        arms { ...ArmRow }
        unasked { ...ArmRow }
      }
      ... on NotFoundError { message }
    }
  }
`);
graphql(`
  fragment ArmRow on ArmMeasures { arm assigned ended successes successRate meanReward meanSteps meanTokens meanCost meanWallMs }
`);

type Experiment = NonNullable<ExperimentsQuery['experiments']>[number];
type Impact = Extract<NonNullable<MemoryImpactQuery['memoryImpact']>, { __typename: 'MemoryImpact' }>;
type Arm = NonNullable<Impact['arms']>[number];

const RELOAD_MS = 1000;

/** Runs a load now, then again after each ledger change, at most once per RELOAD_MS. */
function useReload(load: () => void, changed: string | undefined, deps: unknown[]) {
  const last = useRef(0);
  useEffect(() => {
    const timer = setTimeout(
      () => {
        last.current = Date.now();
        load();
      },
      changed ? Math.max(0, last.current + RELOAD_MS - Date.now()) : 0,
    );
    return () => clearTimeout(timer);
  }, [...deps, changed]);
}

function scopeOf(x: Experiment) {
  const parts = [
    x.scopeAgent && `agent ${x.scopeAgent}`,
    x.scopeTaskType && `task type ${x.scopeTaskType}`,
    x.scopeWorkItemId && `work item ${shortId(x.scopeWorkItemId)}`,
  ];
  return parts.filter(Boolean).join(', ') || 'every episode';
}

function ExperimentList({ experiments, chosen }: { experiments: Experiment[]; chosen: string | undefined }) {
  return (
    <table class="list experiment-list">
      <colgroup>
        <col />
        <col class="col-kind" />
        <col class="col-status" />
        <col class="col-control" />
        <col class="col-started" />
      </colgroup>
      <thead>
        <tr>
          <th>Experiment</th>
          <th>Kind</th>
          <th>Status</th>
          <th>Control</th>
          <th>Started</th>
        </tr>
      </thead>
      <tbody>
        {experiments.map((x) => (
          <tr key={x.id} data-experiment={x.id} aria-current={x.id === chosen ? 'true' : undefined}>
            <td class="task">
              <a href={`#/experiments/${x.id}`}>{x.name}</a> <span class="muted">{scopeOf(x)}</span>
            </td>
            <td data-label="kind">{x.kind?.toLowerCase()}</td>
            <td data-label="status">
              <span class={`status ${x.status}`}>{x.status}</span>
            </td>
            <td data-label="control" data-control>
              {controlLabel(x.kind, x.controlShare, x.control)}
            </td>
            <td data-label="started" class="nowrap">
              {time(x.startedAt)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The measures shown per arm: label, field, and how it is written. */
const MEASURES: Array<{ key: keyof Arm; label: string; show: (v: number | null) => string }> = [
  { key: 'assigned', label: 'assigned', show: num },
  { key: 'ended', label: 'runs ended', show: num },
  { key: 'successes', label: 'successes', show: num },
  { key: 'successRate', label: 'success rate', show: percent },
  { key: 'meanReward', label: 'mean reward', show: num },
  { key: 'meanSteps', label: 'mean steps', show: num },
  { key: 'meanTokens', label: 'mean tokens', show: num },
  { key: 'meanCost', label: 'mean cost', show: num },
  { key: 'meanWallMs', label: 'mean wall time', show: duration },
];

function ArmTable({ arms }: { arms: Arm[] }) {
  return (
    <div class="table-wrap">
      <table class="arms">
        <caption>Per arm (means over the runs that ended)</caption>
        <thead>
          <tr>
            <th>measure</th>
            {arms.map((a) => (
              <th key={a.arm} data-arm={a.arm}>
                {a.arm}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {MEASURES.map((m) => (
            <tr key={m.key} data-measure={m.key}>
              <th scope="row">{m.label}</th>
              {arms.map((a) => (
                <td key={a.arm} class="num" data-arm={a.arm}>
                  {m.show(a[m.key] as number | null)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Difference({ impact }: { impact: Impact }) {
  if (impact.experiment?.kind === 'INTERLEAVE') {
    return (
      <p class="difference" data-difference>
        memory won <b>{num(impact.wins)}</b>, lost <b>{num(impact.losses)}</b>, tied <b>{num(impact.ties)}</b> · <span data-p>{pValue(impact.pValue)}</span> ·{' '}
        {impact.method}
      </p>
    );
  }
  return (
    <p class="difference" data-difference>
      success rate, memory − control: <b data-points>{points(impact.difference)}</b>, 95 % CI{' '}
      <span data-interval>
        {points(impact.differenceLow)} to {points(impact.differenceHigh)}
      </span>{' '}
      · <span data-p>{pValue(impact.pValue)}</span> · {impact.method}
    </p>
  );
}

function TooFewRuns({ impact }: { impact: Impact }) {
  const ended = (impact.arms ?? []).map((a) => `${a.arm} ${num(a.ended)}`).join(', ');
  const unit = impact.experiment?.kind === 'INTERLEAVE' ? 'decided retrievals' : 'ended runs per arm';
  return (
    <p class="too-few" data-too-few>
      Not enough runs yet: it claims nothing before {num(impact.experiment?.minSample)} {unit} (now {ended}).
    </p>
  );
}

function ImpactCard({ impact }: { impact: Impact }) {
  const arms = [...(impact.arms ?? []), ...(impact.unasked ? [impact.unasked] : [])];
  return (
    <section class="card impact" aria-labelledby="impact-title" data-impact={impact.experiment?.id}>
      <h3 id="impact-title">Memory impact: {impact.experiment?.name}</h3>
      <p class="sentence">
        <span class={`verdict-pill ${impact.verdict}`}>{impact.verdict?.toLowerCase().replace(/_/g, ' ')}</span> <span data-sentence>{impact.sentence}</span>
      </p>
      {impact.verdict === 'TOO_FEW_RUNS' ? <TooFewRuns impact={impact} /> : <Difference impact={impact} />}
      <ArmTable arms={arms} />
      <p class="muted">Unasked: runs in the scope since the start that asked for nothing, counted in no arm.</p>
    </section>
  );
}

function ImpactPanel({ api, id, changed }: { api: Api; id: string; changed: string | undefined }) {
  const [impact, setImpact] = useState<Impact | null>(null);
  const [error, setError] = useState<string | null>(null);
  // An answer for the experiment shown before (a reload still in flight) is dropped.
  const shown = useRef(id);
  shown.current = id;
  const load = () =>
    api
      .query(MEMORY_IMPACT, { id })
      .then(({ memoryImpact: m }) => {
        if (shown.current !== id) return;
        if (m?.__typename === 'NotFoundError') return setError(m.message ?? 'experiment not found');
        if (m?.__typename === 'MemoryImpact') setImpact(m);
        setError(null);
      })
      .catch((err: Error) => setError(err.message));
  useReload(load, changed, [api, id]);
  if (error) return <p class="alert">{error}</p>;
  if (!impact || impact.experiment?.id !== id) return <p class="muted">Loading…</p>;
  return <ImpactCard impact={impact} />;
}

export function ExperimentsPage({ api, id, changed }: { api: Api; id: string | undefined; changed: string | undefined }) {
  const [experiments, setExperiments] = useState<Experiment[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api
      .query(EXPERIMENTS)
      .then((data) => setExperiments(data.experiments ?? []))
      .catch((err: Error) => setError(err.message));
  useReload(load, changed, [api]);
  const chosen = id ?? experiments?.[0]?.id ?? undefined;
  return (
    <section aria-labelledby="experiments-title">
      <h2 id="experiments-title">Experiments</h2>
      <p class="muted">Does the memory help? A share of runs is served the control; their outcomes are compared with the memory's.</p>
      {error && <p class="alert">{error}</p>}
      {experiments && !experiments.length && <p class="muted">No experiment has been started (startExperiment, episodic experiment start).</p>}
      {experiments && experiments.length > 0 && <ExperimentList experiments={experiments} chosen={chosen} />}
      {chosen && <ImpactPanel api={api} id={chosen} changed={changed} />}
    </section>
  );
}
