// Writes test-results/file-durations.json at the end of a run: each test file's time, module import
// and hooks included (the JSON report's times leave out beforeAll, where the longest files spend
// most of theirs). `npm run test:durations` commits it as the order of test/support/slow-first.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

const ROOT = resolve(import.meta.dirname, '../..');

export default class DurationsReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const durations = modules
      .map((m) => {
        const d = m.diagnostic();
        return [relative(ROOT, m.moduleId), Math.round(d.collectDuration + d.setupDuration + d.duration)] as const;
      })
      .sort((a, b) => b[1] - a[1]);
    mkdirSync(resolve(ROOT, 'test-results'), { recursive: true });
    writeFileSync(resolve(ROOT, 'test-results/file-durations.json'), `${JSON.stringify(Object.fromEntries(durations), null, 1)}\n`);
  }
}
