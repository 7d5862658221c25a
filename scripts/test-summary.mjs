#!/usr/bin/env node
// Prints vitest's JSON report as the lines CI reads. The last line is exactly "N passed, M failed"
// (the form the founders' CI parses); before it, each failed test (file, name, first line of its
// message: CI shows only the log's tail, so a flake must be named there) and "K skipped" with the
// files the skipped tests are in, so that tests switched off by a missing service (Redis) are
// visible rather than silent.
// Exits non-zero when the report is missing, a test failed, or no test ran. With `--exit-code N`
// (vitest's own exit code), a run that exited non-zero with no failed test in its report (an
// unhandled error, a failing global setup or teardown: the JSON report records neither) counts as
// one failure, so that the line never says "0 failed" for a red run.
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

const SKIPPED = new Set(['skipped', 'pending', 'todo', 'disabled']);

const args = process.argv.slice(2);
const exitAt = args.indexOf('--exit-code');
const vitestExitCode = exitAt >= 0 ? Number(args.splice(exitAt, 2)[1]) : 0;
const file = args[0] ?? 'test-results/vitest.json';
if (!existsSync(file)) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const report = JSON.parse(readFileSync(file, 'utf8'));
const passed = report.numPassedTests ?? 0;
// A file that failed to load (no failed test in it) counts as one failure. numFailedTestSuites is not
// used: it also counts every describe block around a failed test.
const failedInReport = (report.numFailedTests ?? 0) + countFilesFailedWithoutTests(report);
const unreported = vitestExitCode !== 0 && failedInReport === 0 ? 1 : 0;
if (unreported)
  console.log(
    `vitest exited ${vitestExitCode} with no failed test in its report: an unhandled error or a failed setup or teardown (see "Unhandled" or "Error" in the log above)`,
  );
const failed = failedInReport + unreported;
for (const line of failedTestLines(report)) console.log(line);
const skipped = skippedByFile(report);
const skippedTotal = skipped.reduce((sum, [, n]) => sum + n, 0);
console.log(`${skippedTotal} skipped${skippedTotal ? `: ${skipped.map(([name, n]) => `${name} (${n})`).join(', ')}` : ''}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);

function countFilesFailedWithoutTests(r) {
  return (r.testResults ?? []).filter((s) => s.status === 'failed' && !(s.assertionResults ?? []).some((a) => a.status === 'failed')).length;
}

/** "failed: <file> > <test>: <first line of its message>" for each failed test or file that failed to load. */
function failedTestLines(r) {
  return (r.testResults ?? []).flatMap((s) => {
    const file = relative(process.cwd(), s.name);
    const tests = (s.assertionResults ?? []).filter((a) => a.status === 'failed');
    if (tests.length === 0) return s.status === 'failed' ? [`failed: ${file}: ${firstLine(s.message)}`] : [];
    return tests.map((a) => `failed: ${file} > ${a.fullName}: ${firstLine(a.failureMessages?.[0])}`);
  });
}

function firstLine(message) {
  return (
    (message ?? '')
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim()
      .slice(0, 300) ?? ''
  );
}

/** [file, number of skipped or todo tests] for each file that has any, in report order. */
function skippedByFile(r) {
  return (r.testResults ?? [])
    .map((s) => [relative(process.cwd(), s.name), (s.assertionResults ?? []).filter((a) => SKIPPED.has(a.status)).length])
    .filter(([, n]) => n > 0);
}
