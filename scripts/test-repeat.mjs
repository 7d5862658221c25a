#!/usr/bin/env node
// Hunts a flake: `npm run test:repeat -- <file> <n>` runs one test file n times, each in a fresh
// vitest process (fresh database, server and module state, as CI runs it), prints pass or fail and
// the time of every run, the names of the tests that failed, and a summary. Each run's output is
// kept in test-results/repeat/<file>.<run>.log. The environment passes through (TEST_DATABASE_URL,
// REDIS_URL, ...). Exit status 1 when any run failed. Put the machine under load meanwhile with
// `npm run burn -- <processes> <seconds>` (docs/TESTING.md, "How to hunt a flake").
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const [file, times = '10', ...vitestArgs] = process.argv.slice(2);
const runs = Number(times);
if (!file || !Number.isInteger(runs) || runs < 1) {
  console.error('usage: npm run test:repeat -- <test file> <runs> [extra vitest arguments]');
  process.exit(2);
}
const logDir = join('test-results', 'repeat');
mkdirSync(logDir, { recursive: true });

/** One vitest process on the file; resolves with its exit code, time and the failed tests' names. */
function runOnce(run) {
  const started = Date.now();
  const report = join(logDir, `${basename(file)}.${run}.json`);
  const args = ['vitest', 'run', file, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...vitestArgs];
  rmSync(report, { force: true });
  const child = spawn('npx', args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return new Promise((resolve) => {
    child.on('close', (code) => {
      writeFileSync(join(logDir, `${basename(file)}.${run}.log`), output);
      resolve({ code, seconds: (Date.now() - started) / 1000, failed: failedTests(report) });
    });
  });
}

/** Names of the failed tests in vitest's JSON report (none when the run died before writing it). */
function failedTests(report) {
  if (!existsSync(report)) return [];
  const { testResults = [] } = JSON.parse(readFileSync(report, 'utf8'));
  return testResults.flatMap((f) => (f.assertionResults ?? []).filter((t) => t.status === 'failed').map((t) => t.fullName));
}

let passed = 0;
for (let run = 1; run <= runs; run++) {
  const { code, seconds, failed } = await runOnce(run);
  if (code === 0) passed++;
  console.log(`run ${run}/${runs}: ${code === 0 ? 'pass' : 'FAIL'} in ${seconds.toFixed(1)} s`);
  for (const name of failed) console.log(`  failed: ${name}`);
  if (code !== 0) console.log(`  log: ${join(logDir, `${basename(file)}.${run}.log`)}`);
}
console.log(`${file}: ${passed} of ${runs} runs passed, ${runs - passed} failed`);
process.exit(passed === runs ? 0 : 1);
