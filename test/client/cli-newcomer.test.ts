// The CLI as a newcomer meets it (compiled, through bin/episodic.mjs): a typo is named as one,
// every command group has its own help, input the server refuses exits 2 naming the field and
// the valid values, expiries in the past are refused, `show` prints the whole episode, text from
// the server cannot drive the terminal, and `tail` says when its connection drops.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EpisodicClient, unwrap } from '../../src/index.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { clientFor, startProxy, type Proxy as TcpProxy, waitFor } from './support.ts';

let t: TestApp;
let api: EpisodicClient;
beforeAll(async () => {
  t = await startTestApp();
  api = clientFor(t);
});
afterAll(() => t.stop());

interface Run {
  code: number | null;
  out: string;
  err: string;
}

function start(args: string[], url: string | null = t.url) {
  const connection = url ? ['--url', url, '--key', t.keys.admin] : [];
  const child = spawn(process.execPath, ['bin/episodic.mjs', ...args, ...connection], {
    env: { PATH: process.env.PATH ?? '', EPISODIC_DATA_DIR: '/nonexistent/episodic' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<Run>((resolve) => child.once('close', (code) => resolve({ code, out, err })));
  return { child, err: () => err, exited };
}
const cli = (...args: string[]) => start(args).exited;

describe('episodic for a newcomer', () => {
  it('names a mistyped command, suggests the right one, and exits 2 without touching a database', async () => {
    const r = await cli('lst');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^episodic: unknown command "lst" \(did you mean .*list.*\?\); commands: start, /);
    expect(r.err).not.toMatch(/PostgreSQL|port \d/);
  });

  it('has help of their own for tenants, keys --tenant and verify', async () => {
    const offline = (...args: string[]) => start(args, null).exited;
    expect((await offline('tenants', '--help')).out).toMatch(
      /^Usage: episodic tenants create <name>[\s\S]*postgresql:\/\/postgres:\$\(cat \.episodic\/pg-password\)@127\.0\.0\.1:54329\/episodic/,
    );
    expect((await offline('keys', '--tenant', 'x', '--help')).out).toMatch(/^Usage: episodic keys <create\|list\|revoke> --tenant/);
    expect((await offline('verify', '--help')).out).toMatch(/^Usage: episodic verify --public-key <hex> <file>/);
    const bad = await cli('list', '--colour');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/Unknown option '--colour'.*\(see episodic list --help\)/);
  });

  it('exits 2 for input the server refuses, naming the field and the valid values', async () => {
    const r = await cli('list', '--status', 'finished');
    expect(r.code).toBe(2);
    expect(r.err.trim()).toBe(
      'episodic: input refused at filter.status[0]: "FINISHED" is not one of BLOCKED, CANCELLED, COMPLETED, ESCALATED, FAILED, RUNNING',
    );
  });

  it('refuses a key expiry in the past (exit 2) and takes a duration from now', async () => {
    const past = await cli('keys', 'create', '--scopes', 'read', '--expires', '2020-01-01');
    expect(past.code).toBe(2);
    expect(past.err).toMatch(/--expires 2020-01-01 is in the past/);
    const future = await cli('keys', 'create', '--scopes', 'read', '--name', 'rotated', '--expires', '90d', '--json');
    expect(future.code).toBe(0);
    const days = (Date.parse(JSON.parse(future.out).expiresAt) - Date.now()) / 86_400_000;
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
    expect(r.out).toMatch(/^goal +\{"goal":"login test green"\}$/m);
    expect(r.out).toMatch(/^outcome +SUCCESS: replaced the sleep with a wait$/m);
    expect(r.out).toMatch(/^reward +\d+(\.\d+)? \(base /m);
    expect(r.out).toMatch(/^(successes|insights|improvements) +\S/m);
    expect(r.out).toMatch(/^errors\n  #1 tool_call shell npm test -> error: login\.spec failed: timeout\nobservations/m);
    expect(r.out).toMatch(/^observations\n  #2: the test waits on a fixed sleep$/m);
    const json = JSON.parse((await cli('show', episode.id, '--json')).out);
    expect(json).toMatchObject({ goalSpec: { goal: 'login test green' }, errors: [{ stepNumber: 1, resultKind: 'error' }], observations: [{ stepNumber: 2 }] });
    expect(json.reward.total).toEqual(expect.any(Number));
    expect(json.reflection).toEqual(expect.objectContaining({ successes: expect.any(Array) }));
  });

  it('prints control characters from the server as inert escapes', async () => {
    const { episode } = unwrap(await api.startEpisode({ taskDescription: 'evil \u001b[2J\u001b]0;owned\u0007 title', taskType: 'x' }));
    const r = await cli('show', episode.id);
    expect(r.out).not.toMatch(/[\u001b\u0007]/);
    expect(r.out).toContain('evil \\u001b[2J\\u001b]0;owned\\u0007 title');
  });

  it('tail says when its connection drops, then resumes', async () => {
    const proxy: TcpProxy = await startProxy(t.url);
    const tail = start(['tail'], proxy.url);
    try {
      await waitFor(() => tail.err().includes('following the ledger'), 15_000, 'tail to connect');
      proxy.dropAll();
      await waitFor(() => /disconnected \(.*\) after seq \d+; reconnecting/.test(tail.err()), 15_000, 'the disconnection line');
      await waitFor(() => tail.err().includes('reconnected, resuming after seq'), 15_000, 'the reconnection line');
    } finally {
      tail.child.kill('SIGINT');
      await tail.exited;
      await proxy.close();
    }
  });
});
