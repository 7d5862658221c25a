// The step timeline of an episode. Each row expands (button, keyboard too) to the step in full,
// fetched on demand with episodeStep: parameters (the redacted copy) and args hash, result
// (output, or error message and class), observation, world state before and after, metadata, and
// any field the Step type gains later (content stored apart), found by introspection.
import { useEffect, useState } from 'preact/hooks';
import type { Api } from './api.ts';
import { duration, label, num, Value } from './format.tsx';
import { extraSelection } from './optional.ts';

export interface StepRow {
  stepNumber: number;
  kind: string;
  tool: string | null;
  action: string | null;
  resultKind: string | null;
  latencyMs: number | null;
  tokens: number | null;
  observation: string | null;
}

// Fields shown in their own place, or not at all: hashedContent repeats the whole step in the form
// contentHash covers (for verifiers, not readers), so it is not an extra field to show.
const KNOWN = [
  'id',
  'stepNumber',
  'kind',
  'tool',
  'action',
  'parameters',
  'argsHash',
  'resultKind',
  'result',
  'observation',
  'latencyMs',
  'tokens',
  'cost',
  'sideEffectKey',
  'worldBefore',
  'worldAfter',
  'metadata',
  'contentHash',
  'hashedContent',
  'createdAt',
];
const FULL = 'parameters argsHash result observation cost sideEffectKey worldBefore worldAfter metadata contentHash createdAt';

interface FullStep {
  parameters: unknown;
  argsHash: string | null;
  result: { output?: string; message?: string; errorClass?: string } | null;
  observation: string | null;
  cost: number | null;
  sideEffectKey: string | null;
  worldBefore: unknown;
  worldAfter: unknown;
  metadata: unknown;
  contentHash: string;
  createdAt: string;
  [extra: string]: unknown;
}

let extraFields: Promise<string> | null = null;

function Text({ text }: { text: string }) {
  return <pre class="text">{text}</pre>;
}

function Json({ value }: { value: unknown }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>;
}

/** The error or timeout a failed step ended with, above its output. */
function StepFailure({ kind, result: r }: { kind: StepRow['resultKind']; result: FullStep['result'] }) {
  return (
    <>
      {kind === 'error' && r && (
        <div class="step-error" role="group" aria-label="Error">
          <b>{r.errorClass ?? 'Error'}</b>: <span class="error-message">{r.message ?? 'no message'}</span>
        </div>
      )}
      {kind === 'timeout' && (
        <div class="step-error" role="group" aria-label="Error">
          <b>Timeout</b>
        </div>
      )}
    </>
  );
}

function StepFacts({ step }: { step: FullStep }) {
  return (
    <p class="muted step-facts">
      cost {num(step.cost)} · content hash <code>{step.contentHash.slice(0, 16)}</code>
      {step.sideEffectKey && (
        <>
          {' '}
          · side-effect key <code>{step.sideEffectKey}</code>
        </>
      )}
    </p>
  );
}

function StepDetail({ api, episodeId, row }: { api: Api; episodeId: string; row: StepRow }) {
  const [step, setStep] = useState<FullStep | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    extraFields ??= extraSelection(api.query, 'Step', KNOWN);
    void extraFields
      .then((extra) =>
        api.query<{ episodeStep: FullStep & { message?: string } }>(
          `query Step($id: ID!, $n: Int!) { episodeStep(episodeId: $id, stepNumber: $n) { ... on Step { ${FULL} ${extra} } ... on NotFoundError { message } } }`,
          { id: episodeId, n: row.stepNumber },
        ),
      )
      .then(({ episodeStep }) => (episodeStep.message ? setError(episodeStep.message) : setStep(episodeStep)))
      .catch((err: Error) => setError(err.message));
  }, [api, episodeId, row.stepNumber]);
  if (error) return <p class="alert">{error}</p>;
  if (!step) return <p class="muted">Loading step…</p>;
  const r = step.result;
  const extras = Object.entries(step).filter(([k, v]) => !KNOWN.includes(k) && k !== 'message' && v !== null && v !== undefined);
  return (
    <div class="step-detail">
      <StepFailure kind={row.resultKind} result={r} />
      {r?.output !== undefined && (
        <section aria-label="Output">
          <h4>Output</h4>
          <Text text={r.output} />
        </section>
      )}
      {step.observation && (
        <section aria-label="Observation">
          <h4>Observation</h4>
          <Text text={step.observation} />
        </section>
      )}
      {step.parameters !== null && (
        <section aria-label="Parameters">
          <h4>
            Parameters{' '}
            <span class="muted">
              (redacted copy · args hash <code title={step.argsHash ?? ''}>{step.argsHash?.slice(0, 16) ?? '–'}</code>)
            </span>
          </h4>
          <Json value={step.parameters} />
        </section>
      )}
      {(step.worldBefore !== null || step.worldAfter !== null) && (
        <div class="world">
          <section aria-label="World before">
            <h4>World before</h4>
            <Json value={step.worldBefore} />
          </section>
          <section aria-label="World after">
            <h4>World after</h4>
            <Json value={step.worldAfter} />
          </section>
        </div>
      )}
      {extras.map(([k, v]) => (
        <section key={k} aria-label={label(k)}>
          <h4>{label(k)}</h4>
          {typeof v === 'string' ? <Text text={v} /> : <Value value={v} />}
        </section>
      ))}
      {step.metadata !== null && (
        <section aria-label="Metadata">
          <h4>Metadata</h4>
          <Json value={step.metadata} />
        </section>
      )}
      <StepFacts step={step} />
    </div>
  );
}

export function Timeline({ api, episodeId, steps }: { api: Api; episodeId: string; steps: StepRow[] }) {
  const [open, setOpen] = useState<Set<number>>(new Set());
  if (!steps.length) return <p class="muted">No steps yet.</p>;
  const slowest = Math.max(1, ...steps.map((s) => s.latencyMs ?? 0));
  const toggle = (n: number) =>
    setOpen((was) => {
      const next = new Set(was);
      if (!next.delete(n)) next.add(n);
      return next;
    });
  return (
    <ol class="timeline">
      {steps.map((s) => {
        const expanded = open.has(s.stepNumber);
        const what = [s.tool, s.action].filter(Boolean).join(': ');
        return (
          <li key={s.stepNumber} data-step={s.stepNumber} class={s.resultKind ?? ''}>
            <button
              type="button"
              class="step-row"
              aria-expanded={expanded}
              aria-controls={`step-${s.stepNumber}`}
              onClick={() => toggle(s.stepNumber)}
              aria-label={`Step ${s.stepNumber}: ${s.kind} ${what} ${s.resultKind ?? ''}`.trim()}
            >
              <span class="muted">#{s.stepNumber}</span>
              <span class="what">
                <b>{s.kind}</b> {what}
                {!what && s.observation && <span class="muted"> {s.observation}</span>}
              </span>
              <span class={`pill ${s.resultKind ?? ''}`}>{s.resultKind ?? '–'}</span>
              <span class="latency" aria-hidden="true">
                <span style={{ width: `${((s.latencyMs ?? 0) / slowest) * 100}%` }} />
              </span>
              <span class="num">{duration(s.latencyMs)}</span>
              <span class="num">{num(s.tokens)} tok</span>
            </button>
            {expanded && (
              <div id={`step-${s.stepNumber}`}>
                <StepDetail api={api} episodeId={episodeId} row={s} />
              </div>
            )}
          </li>
        );
      })}
    </ol>
  );
}
