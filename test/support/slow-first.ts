// Test files start longest first, so that the longest ones do not start last and finish alone.
// Vitest orders by the durations of its own last run, which a fresh clone (CI, a new machine) does
// not have: it then orders by file size, and the long server and reliability files started late.
// test/support/file-durations.json holds each file's duration from a full run (`npm run
// test:durations` rewrites it from test-results/vitest.json); a file this machine has run since is
// placed by its own last duration, and a file in neither (a new one) runs first, as Vitest does.
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ROOT = resolve(import.meta.dirname, '../..');
const COMMITTED: Readonly<Record<string, number>> = JSON.parse(readFileSync(resolve(import.meta.dirname, 'file-durations.json'), 'utf8'));

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files); // projects in Vitest's order, each by its cache or size
    const projects = [...new Set(ordered.map((spec) => spec.project.name))];
    const key = new Map(
      ordered.map((spec) => {
        const file = relative(ROOT, spec.moduleId);
        const ms = this.ctx.cache.getFileTestResults(`${spec.project.name}:${file}`)?.duration ?? COMMITTED[file] ?? Number.POSITIVE_INFINITY;
        return [spec, { project: projects.indexOf(spec.project.name), ms }];
      }),
    );
    const keyOf = (spec: TestSpecification) => key.get(spec) ?? { project: 0, ms: 0 };
    return ordered.sort((a, b) => keyOf(a).project - keyOf(b).project || keyOf(b).ms - keyOf(a).ms);
  }
}
