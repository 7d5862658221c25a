// runCli, the CLI as a function (src/cli/run.ts): the exit code comes back as a value and every
// byte goes to the streams it was given, never to the process's own, so tests can run commands
// in-process. Commands that need no server: help, a typo, verify's refusals. No database.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startInProcess } from '../client/cli-run.ts';

const run = (...argv: string[]) => startInProcess(argv, { env: { EPISODIC_DATA_DIR: '/nonexistent/episodic' } }).exited;

describe('runCli', () => {
  afterEach(() => vi.restoreAllMocks());

  it('prints help to the given stdout and resolves to 0, leaving process.stdout alone', async () => {
    const processStdout = vi.spyOn(process.stdout, 'write');
    const r = await run('--help');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^Usage: episodic <command>[\s\S]*Exit codes: 0 success/);
    expect(processStdout.mock.calls.some(([chunk]) => String(chunk).includes('Usage: episodic'))).toBe(false);
  });

  it('resolves to 2 with one line on the given stderr for a typo, and does not exit the process', async () => {
    const exit = vi.spyOn(process, 'exit');
    const r = await run('lst');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^episodic: unknown command "lst" \(did you mean log or list\?\)[^\n]*\n$/);
    expect(exit).not.toHaveBeenCalled();
  });

  it('refuses to verify without a trusted key, or a file that is not JSON, with exit 2', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'episodic-run-')), 'export.jsonl');
    await writeFile(file, '{"format":1}\nnot json\n');
    // An Ed25519 public key (any valid one will do: the file fails before any signature is checked).
    const key = '707764fe0c707c74e4eef949ff69d4494b265f350b2cd1720b7a378e415064e6';
    expect(await run('verify', '--public-key', key, file)).toEqual({ code: 2, stdout: '', stderr: 'episodic: line 2 is not JSON\n' });
    expect(await run('verify', file)).toMatchObject({ code: 2, stderr: expect.stringMatching(/^episodic: refusing to verify without a trusted key/) });
  });
});
