#!/usr/bin/env node
// Puts the machine under CPU load for a flake hunt: `npm run burn -- <processes> <seconds>` starts
// that many busy-looping child processes (default 2, one per core of a 2-core CI machine) for that
// many seconds (default 600), then stops them. Ctrl-C stops them at once. Run it in one terminal and
// the suspect test in another (or `npm run burn -- 2 900 & npm run test:repeat -- <file> 10`).
import { fork } from 'node:child_process';

if (process.argv[2] === '--child') {
  // A child spins until its parent is gone or its time is up; no allocation, no I/O: pure CPU.
  const end = Date.now() + Number(process.argv[3]) * 1000;
  let x = 0;
  while (Date.now() < end) for (let i = 0; i < 1e6; i++) x = (x * 31 + i) | 0;
  process.exit(x === 0.5 ? 1 : 0);
}

const [processes = '2', seconds = '600'] = process.argv.slice(2);
const count = Number(processes);
const duration = Number(seconds);
if (!Number.isInteger(count) || count < 1 || !(duration > 0)) {
  console.error('usage: npm run burn -- <processes> <seconds>   (e.g. npm run burn -- 2 600)');
  process.exit(2);
}
const children = Array.from({ length: count }, () => fork(import.meta.filename, ['--child', String(duration)], { stdio: 'inherit' }));
console.log(`burn: ${count} busy processes for ${duration} s (pids ${children.map((c) => c.pid).join(' ')})`);
const stop = () => {
  for (const c of children) c.kill('SIGKILL');
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
let left = count;
for (const c of children) c.on('exit', () => (--left === 0 ? process.exit(0) : undefined));
