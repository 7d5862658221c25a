// An OTLP episode's span tree (span-tree.ts): each span indented under its parent, on a waterfall
// of the run's time, each model call's transcript (what it was asked, what it answered, the tool
// calls it chose) one click away. Reloaded when the episode's step count changes.
import { useEffect, useState } from 'preact/hooks';
import type { Api } from './api.ts';
import { duration, num } from './format.tsx';
import { graphql } from './generated/gql.ts';
import type { EpisodeSpansQuery } from './generated/graphql.ts';
import { type Message, type SpanNode, type SpanStep, spanTree, transcriptOf } from './span-tree.ts';

/** Spans shown: the first steps of a very long run (the step timeline has them all). */
const MAX_SPANS = 500;

// Checked against schema.graphql by `npm run codegen` (web/src/generated).
const QUERY = graphql(`
  query EpisodeSpans($id: ID!, $first: Int) {
    episode(id: $id) {
      __typename
      ... on Episode { steps(first: $first) { edges { node { stepNumber kind tool action startedAt endedAt latencyMs tokens resultKind metadata result } } } }
    }
  }
`);
type StepNode = NonNullable<Extract<EpisodeSpansQuery['episode'], { __typename: 'Episode' }>['steps']>['edges'][number]['node'];

const record = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

/** A step as the span tree reads it: its JSON metadata and result as objects. */
function toSpanStep(n: StepNode): SpanStep {
  return { ...n, stepNumber: n.stepNumber ?? 0, kind: n.kind ?? '', metadata: record(n.metadata), result: record(n.result) as SpanStep['result'] };
}

interface Run {
  id: string;
  label: string;
  startedAt: string;
  endedAt: string | null;
  rootSpanId: string | null;
  stepCount: number;
}

function Messages({ title, messages }: { title: string; messages: Message[] }) {
  if (!messages.length) return null;
  return (
    <section aria-label={title}>
      <h4>{title}</h4>
      <ol class="messages">
        {messages.map((m, i) => (
          <li key={`${i}-${m.role}`} class={`message ${m.role}`}>
            <b>{m.role}</b> {m.content && <pre class="text">{m.content}</pre>}
            {m.toolCalls.map((c) => (
              <p class="tool-choice" key={`${c.name}-${c.arguments}`}>
                → <code>{c.name}</code> <code class="args">{c.arguments}</code>
              </p>
            ))}
          </li>
        ))}
      </ol>
    </section>
  );
}

function SpanRow({ node }: { node: SpanNode }) {
  const s = node.step;
  const transcript = s ? transcriptOf(s) : null;
  const left = `${(node.offset * 100).toFixed(2)}%`;
  const width = `${Math.max(0.5, node.width * 100).toFixed(2)}%`;
  return (
    <li class={`span ${s?.resultKind ?? ''}`} data-span-depth={node.depth} data-span-kind={s?.kind ?? 'run'}>
      <div class="span-row">
        <span class="span-label" style={{ paddingLeft: `${Math.min(node.depth, 8) * 12}px` }}>
          <b>{s ? s.kind : 'run'}</b> {node.label}
        </span>
        <span class="span-bar" role="img" aria-label={`from ${Math.round(node.offset * 100)}% of the run, ${duration(node.durationMs)}`}>
          <span style={{ left, width }} />
        </span>
        <span class="num">{duration(node.durationMs)}</span>
        <span class="num">{s?.tokens ? `${num(s.tokens)} tok` : ''}</span>
      </div>
      {transcript && (
        <details class="transcript">
          <summary>transcript</summary>
          <Messages title="Asked" messages={transcript.input} />
          <Messages title="Answered" messages={transcript.output} />
        </details>
      )}
    </li>
  );
}

export function SpanTree({ api, run }: { api: Api; run: Run }) {
  const [steps, setSteps] = useState<SpanStep[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let stopped = false;
    api
      .query(QUERY, { id: run.id, first: MAX_SPANS })
      .then(({ episode }) => stopped || setSteps(episode?.__typename === 'Episode' ? (episode.steps?.edges.map((e) => toSpanStep(e.node)) ?? []) : []))
      .catch((err: Error) => stopped || setError(err.message));
    return () => {
      stopped = true;
    };
  }, [api, run.id, run.stepCount]);
  if (error) return <p class="alert">{error}</p>;
  if (!steps) return <p class="muted">Loading spans…</p>;
  const rows = spanTree(run, steps);
  return (
    <>
      <ol class="span-tree" aria-label="Spans">
        {rows.map((node) => (
          <SpanRow key={node.step?.stepNumber ?? 'run'} node={node} />
        ))}
      </ol>
      {run.stepCount > MAX_SPANS && (
        <p class="muted">
          The first {MAX_SPANS} spans of {num(run.stepCount)}; the steps below list them all.
        </p>
      )}
    </>
  );
}
