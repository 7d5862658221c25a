// The monitor's span tree (web/src/span-tree.ts), pure: spans under their parents in start order,
// spans whose parent is not in the run under the run, each placed on the run's waterfall, and a
// model call's transcript read from its output (none from a preview cut short).
import { describe, expect, it } from 'vitest';
import { type SpanStep, spanTree, transcriptOf } from '../../web/src/span-tree.ts';

const T0 = Date.parse('2026-12-01T10:00:00.000Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();

function step(stepNumber: number, spanId: string, parentSpanId: string | null, from: number, to: number, kind = 'llm_call', output?: string): SpanStep {
  return {
    stepNumber,
    kind,
    tool: null,
    action: `${kind} ${spanId}`,
    startedAt: iso(from),
    endedAt: iso(to),
    latencyMs: to - from,
    tokens: null,
    resultKind: 'success',
    metadata: { spanId, ...(parentSpanId ? { parentSpanId } : {}) },
    result: output === undefined ? null : { output },
  };
}

describe('the span tree', () => {
  const run = { label: 'the task', startedAt: iso(0), endedAt: iso(1000), rootSpanId: 'root' };

  it('nests spans under their parents in start order, foreign parents under the run, on the waterfall', () => {
    const steps = [
      step(3, 'c', 'b', 300, 400, 'tool_call'),
      step(1, 'a', 'root', 0, 200),
      step(2, 'b', 'root', 250, 750, 'agent_call'),
      step(4, 'd', 'elsewhere', 800, 1000),
    ];
    const rows = spanTree(run, steps);
    expect(rows.map((r) => [r.step?.stepNumber ?? 0, r.depth])).toEqual([
      [0, 0],
      [1, 1],
      [2, 1],
      [3, 2],
      [4, 1],
    ]);
    expect(rows[0]).toMatchObject({ offset: 0, width: 1, durationMs: 1000 });
    expect(rows[3]).toMatchObject({ offset: 0.3 });
    expect(rows[3]?.width).toBeCloseTo(0.1, 10);
    expect(rows[4]?.offset).toBeCloseTo(0.8, 10);
  });

  it("reads a model call's transcript, and none from a preview cut short or a tool's output", () => {
    const transcript = JSON.stringify({
      input: [{ role: 'user', content: 'Fix it' }],
      output: [{ role: 'assistant', content: '', toolCalls: [{ name: 'bash', arguments: { command: 'ls' } }] }],
    });
    expect(transcriptOf(step(1, 'a', null, 0, 1, 'llm_call', transcript))).toEqual({
      input: [{ role: 'user', content: 'Fix it', toolCalls: [] }],
      output: [{ role: 'assistant', content: '', toolCalls: [{ name: 'bash', arguments: '{"command":"ls"}' }] }],
    });
    expect(transcriptOf(step(1, 'a', null, 0, 1, 'llm_call', `${transcript.slice(0, 30)}…`))).toBeNull();
    expect(transcriptOf(step(1, 'a', null, 0, 1, 'tool_call', transcript))).toBeNull();
  });
});
