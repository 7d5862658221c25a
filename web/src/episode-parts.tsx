// Sections of the episode page: goal, outcome (partial ones in full), approval request and
// resolution, and the retrievals the run used with the credit its outcome gave them.
import { useEffect, useState } from 'preact/hooks';
import type { Api } from './api.ts';
import { num, Section, shortId, time, Value } from './format.tsx';
import type { EpisodePageFragment } from './generated/graphql.ts';
import type { StepRow } from './steps.tsx';

/** A completion's credit to the retrievals it used, as the episode page's document selects it. */
export type Credit = NonNullable<EpisodePageFragment['retrievalCredits']>[number];
interface Outcome {
  kind: string;
  verdict: string | null;
  artifacts: string[] | null;
  completed: string[] | null;
  failed: string[] | null;
  reason: string | null;
  details: string | null;
}

export function Goal({ goal }: { goal: unknown }) {
  if (goal === null || goal === undefined) return null;
  return <Section title="Goal">{typeof goal === 'string' ? <p class="goal">{goal}</p> : <Value value={goal} />}</Section>;
}

const OUTCOME_LABELS: Record<string, string> = { SUCCESS: 'success', PARTIAL: 'partial success', FAILURE: 'failure', UNKNOWN: 'outcome unknown' };

export function OutcomeView({ outcome }: { outcome: Record<string, unknown> | null }) {
  if (!outcome) return null;
  const o = outcome as unknown as Outcome;
  const done = o.completed ?? [];
  const notDone = o.failed ?? [];
  return (
    <div class="outcome" data-outcome={o.kind}>
      <p>
        <span class={`outcome-kind ${o.kind}`}>{OUTCOME_LABELS[o.kind] ?? o.kind}</span> {o.verdict ?? o.reason}
        {o.kind === 'PARTIAL' && ` · ${done.length} of ${done.length + notDone.length} done`}
      </p>
      {o.kind === 'UNKNOWN' && (
        <p class="muted">
          Nothing the run sent says whether its task was solved: not counted as a success or a failure (set episodic.outcome on the run to say).
        </p>
      )}
      {o.details && <p class="muted">{o.details}</p>}
      {(done.length > 0 || notDone.length > 0) && (
        <ul class="checklist">
          {done.map((c) => (
            <li key={`c-${c}`} class="done">
              <span aria-hidden="true">✓</span> {c}
              <span class="sr-only"> (done)</span>
            </li>
          ))}
          {notDone.map((c) => (
            <li key={`f-${c}`} class="not-done">
              <span aria-hidden="true">✗</span> {c}
              <span class="sr-only"> (not done)</span>
            </li>
          ))}
        </ul>
      )}
      {o.artifacts && o.artifacts.length > 0 && (
        <p class="tags">
          {o.artifacts.map((a) => (
            <span class="tag" key={a}>
              {a}
            </span>
          ))}
        </p>
      )}
    </div>
  );
}

interface ApprovalProps {
  api: Api;
  episodeId: string;
  status: string;
  request: unknown;
  reason: string | null;
  steps: StepRow[];
}

type Journal = { stepNumber: number; kind: string; parameters: Record<string, unknown> | null };

/** The approval asked for (while blocked) and every approval step of the journal (request and resolution). */
export function Approval({ api, episodeId, status, request, reason, steps }: ApprovalProps) {
  const numbers = steps.filter((s) => s.kind.startsWith('approval_')).map((s) => s.stepNumber);
  const [journal, setJournal] = useState<Journal[]>([]);
  const key = numbers.join(',');
  useEffect(() => {
    if (!numbers.length) return setJournal([]);
    // Steps arrive in batches, so this runs again as they do: an older, slower answer (the request
    // without the resolution) must not overwrite a newer one.
    let current = true;
    const fields = numbers.map((n) => `s${n}: episodeStep(episodeId: $id, stepNumber: ${n}) { ... on Step { stepNumber kind parameters } }`).join(' ');
    void api
      .query<Record<string, Journal>>(`query Approvals($id: ID!) { ${fields} }`, { id: episodeId })
      .then((data) => current && setJournal(Object.values(data).filter((j) => j?.stepNumber)))
      .catch(() => current && setJournal([]));
    return () => {
      current = false;
    };
  }, [api, episodeId, key]);
  if (status !== 'BLOCKED' && !numbers.length) return null;
  return (
    <Section title="Approval">
      {status === 'BLOCKED' && (
        <div class="approval-pending" role="status">
          <p>
            <b>Waiting for approval</b>
            {reason && `: ${reason}`}
          </p>
          {request !== null && request !== undefined && <Value value={request} />}
        </div>
      )}
      <ol class="approvals">
        {journal.map((j) => {
          const p = j.parameters ?? {};
          return (
            <li key={j.stepNumber} data-approval={j.kind}>
              {j.kind === 'approval_requested' ? (
                <>
                  <b>Requested</b> at step {j.stepNumber}: {String(p.reason ?? '')}
                  {p.request !== undefined && <Value value={p.request} />}
                </>
              ) : (
                <>
                  <b class={p.approved ? 'approved' : 'rejected'}>{p.approved ? 'Approved' : 'Rejected'}</b> at step {j.stepNumber}
                  {p.decidedBy ? ` by ${String(p.decidedBy)}` : ''}
                  {p.comment ? `: ${String(p.comment)}` : ''}
                </>
              )}
            </li>
          );
        })}
      </ol>
    </Section>
  );
}

export function RetrievalsUsed({ credits }: { credits: Credit[] }) {
  if (!credits.length) return null;
  return (
    <Section title="Retrievals used">
      <ul class="credits">
        {credits.map((c) => (
          <li key={c.seq ?? ''}>
            {(c.retrievalIds ?? []).map((id) => (
              <a key={id} href={`#/retrievals`} title={id}>
                <code>{shortId(id)}</code>
              </a>
            ))}{' '}
            · outcome {c.outcome ?? '–'} · credit target {num(c.target)} · {num(c.episodesCredited)} episodes, {num(c.patternsCredited)} patterns moved ·{' '}
            {time(c.createdAt)}
          </li>
        ))}
      </ul>
    </Section>
  );
}
