// The order of a run's spans as steps: by start time to the microsecond (OTLP carries nanoseconds;
// a sub-agent span and its first model call, a 0 ms tool and the model call after it still tie at
// coarse clocks). Ties go parent before child, then the one that ended first, then the span id, so
// a run's steps come in the same order every time. Pure.
import { type OtlpSpan, startUsOf } from './spans.ts';

export function inStartOrder(spans: readonly OtlpSpan[]): OtlpSpan[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const depths = new Map<string, number>();
  const depthOf = (span: OtlpSpan): number => {
    let depth = 0;
    const seen = new Set<string>();
    for (let parent = span.parentSpanId; parent && byId.has(parent) && !seen.has(parent); parent = byId.get(parent)?.parentSpanId ?? null) {
      seen.add(parent);
      depth += 1;
    }
    return depth;
  };
  for (const s of spans) depths.set(s.spanId, depthOf(s));
  const depth = (s: OtlpSpan) => depths.get(s.spanId) ?? 0;
  return [...spans].sort((a, b) => startUsOf(a) - startUsOf(b) || depth(a) - depth(b) || a.endMs - b.endMs || a.spanId.localeCompare(b.spanId));
}
