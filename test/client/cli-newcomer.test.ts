// The CLI as a newcomer meets it: a typo is named as one (by the binary, bin/episodic.mjs), every
// command group has its own help, input the server refuses exits 2 naming the field and the valid
// values, expiries in the past are refused, `show` prints the whole episode, text from the server
// cannot drive the terminal, and `tail` says when its connection drops. All but the first run
// in-process (runCli).
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EpisodicClient, unwrap } from '../../src/index.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { type RunningCli, spawnBinary, startInProcess } from './cli-run.ts';
import { clientFor, startProxy, type Proxy as TcpProxy, waitFor } from './support.ts';

let t: TestApp;
let api: EpisodicClient;
beforeAll(async () => {
  t = await startTestApp();
  api = clientFor(t);
});
afterAll(() => t.stop());

const ENV = { EPISODIC_DATA_DIR: '/nonexistent/episodic' };

function start(args: string[], url: string | null = t.url): RunningCli {
  const connection = url ? ['--url', url, '--key', t.keys.admin] : [];
  return startInProcess([...args, ...connection], { env: ENV });
}
const cli = (...args: string[]) => start(args).exited;

// Each test has its own episodes, keys and connection: they run concurrently.
describe.concurrent('episodic for a newcomer', () => {
  it('names a mistyped command, suggests the right one, and exits 2 without touching a database', async () => {
    const r = await spawnBinary(['lst', '--url', t.url, '--key', t.keys.admin], { env: ENV }).exited;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^episodic: unknown command "lst" \(did you mean .*list.*\?\); commands: start, /);
    expect(r.stderr).not.toMatch(/PostgreSQL|port \d/);
  });

  it('has help of their own for tenants, keys --tenant and verify', async () => {
    const offline = (...args: string[]) => start(args, null).exited;
    expect((await offline('tenants', '--help')).stdout).toMatch(
      /^Usage: episodic tenants create <name>[\s\S]*postgresql:\/\/postgres:\$\(cat \.episodic\/pg-password\)@127\.0\.0\.1:54329\/episodic/,
    );
    expect((await offline('keys', '--tenant', 'x', '--help')).stdout).toMatch(/^Usage: episodic keys <create\|list\|revoke> --tenant/);
    expect((await offline('verify', '--help')).stdout).toMatch(/^Usage: episodic verify --public-key <hex> <file>/);
    const bad = await cli('list', '--colour');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Unknown option '--colour'.*\(see episodic list --help\)/);
  });

  it('exits 2 for input the server refuses, naming the field and the valid values', async () => {
    const r = await cli('list', '--status', 'finished');
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      'episodic: input refused at filter.status[0]: "FINISHED" is not one of BLOCKED, CANCELLED, COMPLETED, ESCALATED, FAILED, RUNNING',
    );
  });

  it('refuses a key expiry in the past (exit 2) and takes a duration from now', async () => {
    const past = await cli('keys', 'create', '--scopes', 'read', '--expires', '2020-01-01');
    expect(past.code).toBe(2);
    expect(past.stderr).toMatch(/--expires 2020-01-01 is in the past/);
    const future = await cli('keys', 'create', '--scopes', 'read', '--name', 'rotated', '--expires', '90d', '--json');
    expect(future.code).toBe(0);
    const days = (Date.parse(JSON.parse(future.stdout).expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThan(90.1);
  });

  it('show prints the whole episode: goal, errors, observations, outcome, reward and reflection', async () => {
    const { episode } = unwrap(await api.startEpisode({ taskDescription: 'Fix the login test', taskType: 'bugfix', goalSpec: { goal: 'login test green' } }));
    const logged = await api.logSteps(episode.id, [
      { kind: 'tool_call', tool: 'shell', action: 'npm test', result: { kind: 'ERROR', message: 'login.spec failed: timeout' } },
      { kind: 'observation', observation: 'the test waits on a fixed sleep' },
      { kind: 'tool_call', tool: 'shell', action: 'npm test', result: { kind: 'SUCCESS', output: 'ok' } },
    ]);
    expect(logged, JSON.stringify(logged)).toMatchObject({ accepted: 3 });
    unwrap(await api.completeEpisode(episode.id, { kind: 'SUCCESS', verdict: 'replaced the sleep with a wait', artifacts: ['login.spec.ts'] }));
    const r = await cli('show', episode.id);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^goal +\{"goal":"login test green"\}$/m);
    expect(r.stdout).toMatch(/^outcome +SUCCESS: replaced the sleep with a wait$/m);
    expect(r.stdout).toMatch(/^reward +\d+(\.\d+)? \(base /m);
    expect(r.stdout).toMatch(/^(successes|insights|improvements) +\S/m);
    expect(r.stdout).toMatch(/^errors\n  #1 tool_call shell npm test -> error: login\.spec failed: timeout\nobservations/m);
    expect(r.stdout).toMatch(/^observations\n  #2: the test waits on a fixed sleep$/m);
    const json = JSON.parse((await cli('show', episode.id, '--json')).stdout);
    expect(json).toMatchObject({ goalSpec: { goal: 'login test green' }, errors: [{ stepNumber: 1, resultKind: 'error' }], observations: [{ stepNumber: 2 }] });
    expect(json.reward.total).toEqual(expect.any(Number));
    expect(json.reflection).toEqual(expect.objectContaining({ successes: expect.any(Array) }));
  });

  it('prints control characters from the server as inert escapes', async () => {
    const { episode } = unwrap(await api.startEpisode({ taskDescription: 'evil \u001b[2J\u001b]0;owned\u0007 title', taskType: 'x' }));
    const r = await cli('show', episode.id);
    expect(r.stdout).not.toMatch(/[\u001b\u0007]/);
    expect(r.stdout).toContain('evil \\u001b[2J\\u001b]0;owned\\u0007 title');
  });

  it('names the enum and its values for a bad step kind, and a refused step by its line and its own field', async () => {
    const { episode } = unwrap(await api.startEpisode({ taskDescription: 'Log bad steps', taskType: 'x' }));
    const log = (stdin: string) => startInProcess(['log', episode.id, '--url', t.url, '--key', t.keys.admin], { env: ENV, stdin }).exited;
    const kind = await log('{"kind":"tool_call","result":{"kind":"success"}}\n');
    expect(kind.code).toBe(2);
    expect(kind.stderr).toBe('episodic: input refused: kind "success" is not one of ERROR, SUCCESS, TIMEOUT\n');
    const line = await log('{"kind":"tool_call","tool":"a"}\n{"kind":"tool_call","latencyMs":-5}\n');
    expect(line.code).toBe(2);
    expect(line.stdout).toContain('stdin:2: invalid: refused: latencyMs must be an integer >= 0, got -5');
    expect(line.stdout).not.toContain('steps.1');
  });

  it('lists a multi-line task on one row, suggests a mistyped option, and prints its version', async () => {
    const { episode } = unwrap(await api.startEpisode({ taskDescription: 'First line of an issue\n\nTraceback:\n  File "x.py"', taskType: 'multi-line' }));
    const list = await cli('list', '--type', 'multi-line');
    expect(list.code).toBe(0);
    expect(list.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^${episode.id} .*multi-line: First line of an issue Traceback: File "x.py"$`)),
    ]);
    const typo = await cli('list', '--jsn');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe("episodic: Unknown option '--jsn'. (did you mean --json?) (see episodic list --help)\n");
    const version = await start(['--version'], null).exited;
    expect(version).toMatchObject({ code: 0, stdout: `episodic ${JSON.parse(readFileSync('package.json', 'utf8')).version}\n` });
  });

  it('a failed export --output leaves no file behind', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'episodic-export-'));
    try {
      const file = join(dir, 'ledger.jsonl');
      const r = await cli('export', '--after', '5', '--to', '3', '--output', file);
      expect(r.code).toBe(2);
      expect(readdirSync(dir)).toEqual([]);
      expect((await cli('export', '--after', '0', '--output', file)).code).toBe(0);
      expect(readdirSync(dir)).toEqual(['ledger.jsonl']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('relevant shows an absolute match strength and, for a failed run, its last error and the step', async () => {
    const task = 'Repair the quarterly invoice rounding in the billing ledger exporter';
    const { episode: done } = unwrap(await api.startEpisode({ taskDescription: task, taskType: 'relevant-test' }));
    unwrap(await api.completeEpisode(done.id, { kind: 'SUCCESS', verdict: 'rounded half-even' }));
    const { episode: bad } = unwrap(await api.startEpisode({ taskDescription: `${task} again`, taskType: 'relevant-test' }));
    await api.logSteps(bad.id, [
      {
        kind: 'tool_call',
        tool: 'pytest',
        result: { kind: 'ERROR', message: 'exit code 1', errorClass: 'exit_1', output: 'collected 3\nAssertionError: 0.1 != 0.10' },
      },
      { kind: 'tool_call', tool: 'shell', result: { kind: 'SUCCESS', output: 'ok' } },
    ]);
    unwrap(await api.completeEpisode(bad.id, { kind: 'FAILURE', reason: 'tests still red' }));
    const r = await cli('relevant', task, '--failures', '--limit', '1');
    expect(r.code, r.stderr).toBe(0);
    // One row per result: the strength word and value, the id, the status, the task on one line.
    expect(r.stdout).toMatch(/^(strong|moderate|weak|none) +[01]\.\d\d  [0-9a-f-]{36}  (COMPLETED|FAILED) +Repair the quarterly invoice/m);
    // What went wrong in the work (its last failing step and output), not the verdict "tests still red".
    expect(r.stdout).toContain('pytest failed (step 1): exit_1: exit code 1; last output: AssertionError: 0.1 != 0.10');
    // --limit 1: the failed run is a warning only when it is not among the runs served.
    const json = JSON.parse((await cli('relevant', task, '--failures', '--limit', '1', '--json')).stdout);
    expect(json.warnings).toEqual(expect.arrayContaining([expect.objectContaining({ strength: expect.objectContaining({ word: expect.any(String) }) })]));
    expect(json.warnings.find((w: { episode: { id: string } }) => w.episode.id === bad.id)?.wentWrong).toMatch(/^pytest failed \(step 1\): exit_1/);
  });

  it('tail says when its connection drops, then resumes', async () => {
    const proxy: TcpProxy = await startProxy(t.url);
    const tail = start(['tail'], proxy.url);
    try {
      await waitFor(() => tail.stderr().includes('following the ledger'), 15_000, 'tail to connect');
      proxy.dropAll();
      await waitFor(() => /disconnected \(.*\) after seq \d+; reconnecting/.test(tail.stderr()), 15_000, 'the disconnection line');
      await waitFor(() => tail.stderr().includes('reconnected, resuming after seq'), 15_000, 'the reconnection line');
    } finally {
      tail.interrupt();
      await tail.exited;
      await proxy.close();
    }
  });
});
