// Active patterns, most effective first, each with its lift (over comparable episodes without it,
// docs/LEARNING.md section 4) and, on demand, the episodes it was observed in.
import { useEffect, useState } from 'preact/hooks';
import type { Api } from './api.ts';
import { Bar, num, time } from './format.tsx';
import { graphql } from './generated/gql.ts';
import type { PatternEpisodesQuery, PatternsQuery } from './generated/graphql.ts';

// Checked against schema.graphql by `npm run codegen` (web/src/generated).
const QUERY = graphql(`
  query Patterns($first: Int) {
    patterns(first: $first) {
      edges {
        node {
          id kind description summary failedInstead signature occurrences successes successRate effectiveness meanReward lift feedbackCredit createdAt
          context { domain language }
        }
      }
    }
  }
`);
const EPISODES = graphql(`
  query PatternEpisodes($id: ID!) {
    pattern(id: $id) {
      __typename
      ... on Pattern { episodes(first: 50) { edges { node { success reward kept observedAt episode { id taskDescription status } } } } }
      ... on NotFoundError { message }
    }
  }
`);

type Pattern = NonNullable<PatternsQuery['patterns']>['edges'][number]['node'];
type Backing = NonNullable<Extract<PatternEpisodesQuery['pattern'], { __typename: 'Pattern' }>['episodes']>['edges'][number]['node'];

function BackingEpisodes({ api, id }: { api: Api; id: string }) {
  const [rows, setRows] = useState<Backing[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api
      .query(EPISODES, { id })
      .then(({ pattern }) =>
        pattern?.__typename === 'Pattern' ? setRows(pattern.episodes?.edges.map((e) => e.node) ?? []) : setError(pattern?.message ?? 'pattern not found'),
      )
      .catch((err: Error) => setError(err.message));
  }, [api, id]);
  if (error) return <p class="alert">{error}</p>;
  if (!rows) return <p class="muted">Loading…</p>;
  return (
    <ul class="backing">
      {rows.map((r) => (
        <li key={r.episode?.id ?? r.observedAt}>
          <span class={`pill ${r.success ? 'success' : 'error'}`}>{r.success ? 'success' : 'not a success'}</span>{' '}
          {r.episode ? <a href={`#/episodes/${r.episode.id}`}>{r.episode.taskDescription}</a> : <span class="muted">episode removed</span>}{' '}
          <span class="muted">
            reward {num(r.reward)} · {time(r.observedAt)}
          </span>
        </li>
      ))}
    </ul>
  );
}

function PatternCard({ api, p }: { api: Api; p: Pattern }) {
  const [open, setOpen] = useState(false);
  // A procedure's numbers are how often it worked, not a run's success against comparable runs: its labels say so.
  const procedure = p.kind === 'PROCEDURE';
  return (
    <li class="card pattern" data-pattern={p.id}>
      <p class="pattern-head">
        <span class="tag">{(p.kind ?? '').toLowerCase().replace(/_/g, ' ')}</span> <b>{p.summary ?? p.description}</b>
      </p>
      {(p.failedInstead?.length ?? 0) > 0 && <p class="muted">usually failed there: {p.failedInstead?.join('; ')}</p>}
      <dl class="kv">
        <dt>lift</dt>
        <dd class="num" data-lift>
          {p.lift === null ? '–' : `${p.lift >= 0 ? '+' : ''}${num(p.lift)}`}
        </dd>
        <dt>{procedure ? 'worked when run' : 'success rate'}</dt>
        <dd>
          {num(p.successRate)} <Bar fraction={p.successRate ?? 0} />{' '}
          <span class="muted">
            {p.successes} of {p.occurrences}
          </span>
        </dd>
        <dt>{procedure ? 'share of runs' : 'effectiveness'}</dt>
        <dd>
          {num(p.effectiveness)} <Bar fraction={p.effectiveness ?? 0} />
        </dd>
        <dt>retrieval credit</dt>
        <dd class="num">{num(p.feedbackCredit)}</dd>
        {p.context?.domain && [<dt key="d">domain</dt>, <dd key="dv">{p.context.domain}</dd>]}
      </dl>
      <button type="button" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? 'Hide episodes' : `Episodes behind it (${p.occurrences})`}
      </button>
      {open && p.id && <BackingEpisodes api={api} id={p.id} />}
    </li>
  );
}

export function PatternsPage({ api }: { api: Api }) {
  const [patterns, setPatterns] = useState<Pattern[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api
      .query(QUERY, { first: 100 })
      .then(({ patterns: page }) => setPatterns(page?.edges.map((e) => e.node) ?? []))
      .catch((err: Error) => setError(err.message));
  }, [api]);
  return (
    <section aria-labelledby="patterns-title">
      <h2 id="patterns-title">Active patterns</h2>
      <p class="muted">
        Lift: how far the success rate of the episodes a pattern was seen in lies above that of comparable episodes without it, as a difference of rates (+0.21
        is 21 points more; 0 is no better, below 0 a warning).
      </p>
      {error && <p class="alert">{error}</p>}
      {patterns && !patterns.length && <p class="muted">No active pattern yet.</p>}
      <ul class="patterns">
        {patterns?.map((p) => (
          <PatternCard key={p.id} api={api} p={p} />
        ))}
      </ul>
    </section>
  );
}
