// Commits the test files' durations of the last whole run (test-results/file-durations.json, written
// by test/support/durations-reporter.ts) as test/support/file-durations.json, the slow-first order
// of test/support/slow-first.ts. Run after a whole `npm test` on an otherwise idle machine.
import { copyFileSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const from = resolve(root, 'test-results/file-durations.json');
const files = Object.keys(JSON.parse(readFileSync(from, 'utf8'))).length;
if (files < 100) throw new Error(`${from} holds ${files} files: run the whole suite first`);
copyFileSync(from, resolve(root, 'test/support/file-durations.json'));
console.log(`test/support/file-durations.json: ${files} files`);
