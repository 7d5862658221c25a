#!/usr/bin/env node
// Prints vitest's JSON report as the one line CI reads: "N passed, M failed".
// Exits non-zero when the report is missing, a test failed, or no test ran.
import { existsSync, readFileSync } from 'node:fs';

const file = process.argv[2] ?? 'test-results/vitest.json';
if (!existsSync(file)) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const report = JSON.parse(readFileSync(file, 'utf8'));
const passed = report.numPassedTests ?? 0;
// A file that failed to load (no failed test in it) counts as one failure. numFailedTestSuites is not
// used: it also counts every describe block around a failed test.
const failed = (report.numFailedTests ?? 0) + countFilesFailedWithoutTests(report);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);

function countFilesFailedWithoutTests(r) {
  return (r.testResults ?? []).filter((s) => s.status === 'failed' && !(s.assertionResults ?? []).some((a) => a.status === 'failed')).length;
}
