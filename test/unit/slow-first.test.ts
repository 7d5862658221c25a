// The slow-first order (test/support/slow-first.ts): on a fresh clone (no durations of its own) the
// committed durations decide, longest first; a file this machine has timed goes by its own time; a
// file in neither (a new one) runs first; projects keep Vitest's order.
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import committed from '../support/file-durations.json' with { type: 'json' };
import { SlowFirstSequencer } from '../support/slow-first.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const project = (name: string) => ({ name, config: { sequence: { groupOrder: 0 }, isolate: false } });
const spec = (file: string, projectName = 'integration') => ({ moduleId: resolve(ROOT, file), project: project(projectName) }) as unknown as TestSpecification;
const files = (specs: TestSpecification[]) => specs.map((s) => s.moduleId.slice(ROOT.length + 1));

function sequencer(cached: Record<string, number> = {}) {
  const cache = { getFileTestResults: (key: string) => (key in cached ? { duration: cached[key], failed: false } : undefined), getFileStats: () => undefined };
  return new SlowFirstSequencer({ cache, config: { root: ROOT } } as unknown as Vitest);
}

describe('slow-first sequencer', () => {
  const [longest, second, third] = Object.keys(committed) as [string, string, string];

  it('starts the committed longest files first on a machine with no durations', async () => {
    const sorted = await sequencer().sort([spec(third), spec(longest), spec(second)]);
    expect(files(sorted)).toEqual([longest, second, third]);
  });

  it("prefers this machine's own durations, and runs a file no one has timed first", async () => {
    const sorted = await sequencer({ [`integration:${third}`]: 10_000_000 }).sort([spec(longest), spec('test/new.test.ts'), spec(third)]);
    expect(files(sorted)).toEqual(['test/new.test.ts', third, longest]);
  });

  it('keeps the projects apart, in the order Vitest gives them', async () => {
    const sorted = await sequencer().sort([spec(third, 'unit'), spec(longest), spec(second, 'unit')]);
    expect(sorted.map((s) => s.project.name)).toEqual(['integration', 'unit', 'unit']);
    expect(files(sorted)).toEqual([longest, second, third]);
  });
});
