// The episode list: filters (status, task type, domain, tags, text, session) and cursor paging; reloaded
// when the ledger shows an episode changed.
import { useEffect, useState } from 'preact/hooks';
import type { Api } from './api.ts';
import { num, time, WholeTask } from './format.tsx';
import { graphql } from './generated/gql.ts';
import type { EpisodeFilter, EpisodeStatus, EpisodesQuery } from './generated/graphql.ts';

const STATUSES: EpisodeStatus[] = ['RUNNING', 'BLOCKED', 'COMPLETED', 'FAILED', 'CANCELLED', 'ESCALATED'];
const PAGE_SIZE = 15;
// Checked against schema.graphql by `npm run codegen` (web/src/generated).
const QUERY = graphql(`
  query Episodes($filter: EpisodeFilter, $first: Int, $after: String) {
    episodes(filter: $filter, first: $first, after: $after) {
      edges { node { id taskDescription taskType status stepCount usedTokens startedAt context { domain tags } outcome { kind } } }
      pageInfo { hasNextPage endCursor }
    }
  }
`);

type Row = NonNullable<EpisodesQuery['episodes']>['edges'][number]['node'];
interface Page {
  rows: Row[];
  hasNextPage: boolean;
  endCursor: string | null;
}
type Filter = EpisodeFilter;

function readFilter(form: HTMLFormElement): Filter {
  const data = new FormData(form);
  const text = (name: string) => String(data.get(name) ?? '').trim() || undefined;
  const tags = text('tags')
    ?.split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const checked = data.getAll('status').map(String);
  const status = STATUSES.filter((s) => checked.includes(s));
  return {
    status: status.length ? status : undefined,
    taskType: text('taskType'),
    domain: text('domain'),
    tags: tags?.length ? tags : undefined,
    text: text('text'),
    sessionId: text('session'),
  };
}

function EpisodeFilters({ onSubmit, session }: { onSubmit: (event: Event) => void; session: string | undefined }) {
  return (
    <form class="filters" onSubmit={onSubmit}>
      <fieldset>
        {STATUSES.map((s) => (
          <label key={s}>
            <input type="checkbox" name="status" value={s} /> {s.toLowerCase()}
          </label>
        ))}
      </fieldset>
      <input name="taskType" placeholder="task type" aria-label="Task type" />
      <input name="domain" placeholder="domain" aria-label="Domain" />
      <input name="tags" placeholder="tags (a, b)" aria-label="Tags" />
      <input name="text" type="search" placeholder="search descriptions" aria-label="Search descriptions" />
      <input name="session" placeholder="session" aria-label="Session" defaultValue={session} />
      <button type="submit">Filter</button>
    </form>
  );
}

function EpisodeRow({ r }: { r: Row }) {
  return (
    <tr data-episode={r.id}>
      <td class="task">
        <a class="clamp" href={`#/episodes/${r.id}`} title="Open the episode">
          {r.taskDescription}
        </a>
        <WholeTask text={r.taskDescription ?? ''} />
        <div class="tags">
          {[r.context?.domain, ...(r.context?.tags ?? [])].filter(Boolean).map((t) => (
            <span class="tag" key={t}>
              {t}
            </span>
          ))}
          {r.outcome?.kind === 'UNKNOWN' && (
            <span class="outcome-kind UNKNOWN" title="Nothing the run sent says whether its task was solved">
              outcome unknown
            </span>
          )}
        </div>
      </td>
      <td data-label="type" class="nowrap">
        {r.taskType}
      </td>
      <td>
        <span class={`status ${r.status}`}>{r.status}</span>
      </td>
      <td class="num" data-label="steps">
        {num(r.stepCount)}
      </td>
      <td class="num" data-label="tokens">
        {num(r.usedTokens)}
      </td>
      <td data-label="started">{time(r.startedAt)}</td>
    </tr>
  );
}

/** `changed` moves whenever the ledger reports an episode event: the page reloads shortly after. `session`: #/?session=<id>, a session's runs. */
export function EpisodeList({ api, changed, session }: { api: Api; changed: string | undefined; session?: string }) {
  const [filter, setFilter] = useState<Filter>(session ? { sessionId: session } : {});
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const [page, setPage] = useState<Page | null>(null);
  const [error, setError] = useState<string | null>(null);
  const after = cursors[cursors.length - 1] ?? null;

  useEffect(() => {
    const timer = setTimeout(
      () => {
        api
          .query(QUERY, { filter, first: PAGE_SIZE, after })
          .then(({ episodes }) => {
            if (!episodes) return setError('no episodes in the answer');
            setPage({ rows: episodes.edges.map((e) => e.node), ...episodes.pageInfo });
            setError(null);
          })
          .catch((err: Error) => setError(err.message));
      },
      changed ? 250 : 0,
    );
    return () => clearTimeout(timer);
  }, [api, filter, after, changed]);

  const apply = (event: Event) => {
    event.preventDefault();
    setFilter(readFilter(event.currentTarget as HTMLFormElement));
    setCursors([null]);
  };

  return (
    <section class="episodes">
      <EpisodeFilters onSubmit={apply} session={session} />
      {error && <p class="alert">{error}</p>}
      <table class="list">
        <colgroup>
          <col />
          <col class="col-type" />
          <col class="col-status" />
          <col class="col-steps" />
          <col class="col-tokens" />
          <col class="col-started" />
        </colgroup>
        <thead>
          <tr>
            <th>Task</th>
            <th>Type</th>
            <th>Status</th>
            <th class="num">Steps</th>
            <th class="num">Tokens</th>
            <th>Started</th>
          </tr>
        </thead>
        <tbody>
          {page?.rows.map((r) => (
            <EpisodeRow key={r.id} r={r} />
          ))}
        </tbody>
      </table>
      {page && !page.rows.length && <p class="muted">No episodes match.</p>}
      <nav class="pager">
        <button type="button" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          ← Newer
        </button>
        <span class="muted">page {cursors.length}</span>
        <button type="button" disabled={!page?.hasNextPage} onClick={() => page?.endCursor && setCursors([...cursors, page.endCursor])}>
          Older →
        </button>
      </nav>
    </section>
  );
}
