// An OTLP episode as its span tree: each step is a span (metadata.spanId, parentSpanId), the
// episode its root span; a step whose parent is not in the run (a run without an agent root: each
// model call a trace of its own) hangs under the root. Times place each span on the run's
// waterfall. A model call's transcript is its result.output (JSON, src/otlp/step-content.ts). Pure.

export interface SpanStep {
  stepNumber: number;
  kind: string;
  tool: string | null;
  action: string | null;
  startedAt: string | null;
  endedAt: string | null;
  latencyMs: number | null;
  tokens: number | null;
  resultKind: string | null;
  metadata: Record<string, unknown> | null;
  result: { output?: string } | null;
}

export interface SpanNode {
  /** The step, or null for the root (the episode). */
  step: SpanStep | null;
  label: string;
  depth: number;
  /** Offset and width on the waterfall, as fractions of the run's duration. */
  offset: number;
  width: number;
  durationMs: number | null;
}

export interface Message {
  role: string;
  content: string;
  toolCalls: Array<{ name: string; arguments: string }>;
}

export interface Transcript {
  input: Message[];
  output: Message[];
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const ms = (iso: string | null) => (iso ? Date.parse(iso) : Number.NaN);

/** Whether an episode came in as OTLP spans (its steps carry span ids). */
export const isTraced = (steps: readonly SpanStep[]) => steps.some((s) => text(s.metadata?.spanId));

/**
 * The rows of the tree, depth first, children in start order. `run`: the episode's own times and
 * root span id (null for a run of calls without an agent root).
 */
export function spanTree(run: { label: string; startedAt: string; endedAt: string | null; rootSpanId: string | null }, steps: readonly SpanStep[]): SpanNode[] {
  const ids = new Set(steps.map((s) => text(s.metadata?.spanId)).filter((id): id is string => id !== null));
  const children = new Map<string | null, SpanStep[]>();
  for (const s of steps) {
    const parent = text(s.metadata?.parentSpanId);
    const key = parent && ids.has(parent) && parent !== text(s.metadata?.spanId) ? parent : null;
    children.set(key, [...(children.get(key) ?? []), s]);
  }
  const starts = steps.map((s) => ms(s.startedAt)).filter(Number.isFinite);
  const ends = steps.map((s) => ms(s.endedAt)).filter(Number.isFinite);
  const t0 = Math.min(ms(run.startedAt), ...starts);
  const t1 = Math.max(Number.isFinite(ms(run.endedAt)) ? ms(run.endedAt) : t0, ...ends, t0 + 1);
  const place = (start: number, end: number) => {
    const offset = Number.isFinite(start) ? (start - t0) / (t1 - t0) : 0;
    const width = Number.isFinite(start) && Number.isFinite(end) ? Math.max(0, end - start) / (t1 - t0) : 0;
    return { offset: Math.min(1, Math.max(0, offset)), width: Math.min(1 - Math.min(1, Math.max(0, offset)), width) };
  };
  const rows: SpanNode[] = [{ step: null, label: run.label, depth: 0, ...place(t0, t1), durationMs: t1 - t0 }];
  const seen = new Set<SpanStep>();
  const visit = (parent: string | null, depth: number) => {
    const list = [...(children.get(parent) ?? [])].sort((a, b) => ms(a.startedAt) - ms(b.startedAt) || a.stepNumber - b.stepNumber);
    for (const s of list) {
      if (seen.has(s)) continue;
      seen.add(s);
      const start = ms(s.startedAt);
      const end = ms(s.endedAt);
      rows.push({
        step: s,
        label: s.action ?? s.kind,
        depth,
        ...place(start, end),
        durationMs: s.latencyMs ?? (Number.isFinite(end - start) ? end - start : null),
      });
      const id = text(s.metadata?.spanId);
      if (id) visit(id, depth + 1);
    }
  };
  visit(null, 1);
  return rows;
}

function messagesOf(value: unknown): Message[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((m) => {
    if (typeof m !== 'object' || m === null) return [];
    const r = m as Record<string, unknown>;
    const calls = Array.isArray(r.toolCalls) ? r.toolCalls : [];
    return [
      {
        role: text(r.role) ?? 'message',
        content: text(r.content) ?? (r.content == null ? '' : JSON.stringify(r.content)),
        toolCalls: calls.map((c) => {
          const call = (c ?? {}) as Record<string, unknown>;
          return { name: text(call.name) ?? '?', arguments: text(call.arguments) ?? JSON.stringify(call.arguments ?? {}) };
        }),
      },
    ];
  });
}

/** A model call's transcript, or null when its output is not one (a tool's output, or a preview of a long one cut short). */
export function transcriptOf(step: SpanStep): Transcript | null {
  const output = step.result?.output;
  if (step.kind !== 'llm_call' || typeof output !== 'string') return null;
  try {
    const parsed = JSON.parse(output) as { input?: unknown; output?: unknown };
    if (typeof parsed !== 'object' || parsed === null) return null;
    return { input: messagesOf(parsed.input), output: messagesOf(parsed.output) };
  } catch {
    return null;
  }
}
