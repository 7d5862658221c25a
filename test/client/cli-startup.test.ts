// `episodic --help` (and each command's --help) answers without loading any dependency: the
// command table loads only node's own modules and the CLI's, and each command imports what it
// needs when it runs (src/cli/main.ts). A module resolve hook lists what the process loads.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function loadedBy(args: string[]): string[] {
  const run = spawnSync(process.execPath, ['--import', './test/support/module-trace.mjs', 'bin/episodic.mjs', ...args], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return run.stderr
    .split('\n')
    .filter((line) => line.startsWith('LOADED '))
    .map((line) => line.slice('LOADED '.length));
}

describe('episodic --help start-up', () => {
  it('sees the modules a command loads when it runs (the trace works)', () => {
    expect(loadedBy(['--help']).some((url) => url.endsWith('/dist/cli/main.js'))).toBe(true);
  });

  it.each([
    [['--help']],
    [['log', '--help']],
    [['import', '--help']],
    [['export', '--help']],
    [['verify', '--help']],
    [['tenants', '--help']],
    [['mcp', '--help']],
  ])('%j loads no dependency from node_modules', (args) => {
    expect(loadedBy(args).filter((url) => url.includes('/node_modules/'))).toEqual([]);
  });
});
