// Spans of one millisecond in a stable order: parent before child, then the one that ended first.
import { describe, expect, it } from 'vitest';
import { inStartOrder } from '../../src/otlp/order.ts';
import type { OtlpSpan } from '../../src/otlp/spans.ts';
import { otlpSpan } from '../support/otlp-span.ts';

const span = (spanId: string, parentSpanId: string | null, startMs: number, endMs: number): OtlpSpan =>
  otlpSpan({}, { spanId, parentSpanId, name: spanId, startMs, endMs, resource: {} });

describe('the order of spans as steps', () => {
  it('puts a parent before its child of the same millisecond, whatever their ids', () => {
    const child = span('0000000000000001', 'ffffffffffffffff', 10, 20);
    const parent = span('ffffffffffffffff', 'root', 10, 30);
    expect(inStartOrder([child, parent]).map((s) => s.spanId)).toEqual([parent.spanId, child.spanId]);
  });

  it('puts a 0 ms tool before the model call that started in its millisecond, then orders by start', () => {
    const next = span('0000000000000001', null, 10, 15);
    const tool = span('ffffffffffffffff', null, 10, 10);
    const first = span('8888888888888888', null, 5, 10);
    expect(inStartOrder([next, tool, first]).map((s) => s.spanId)).toEqual([first.spanId, tool.spanId, next.spanId]);
  });
});
