// Every `episodic` command that talks to a server, against the test server: output, --json, and
// the documented exit codes (0 ok, 1 runtime/server error, 2 usage, 3 verification failed, 4 not
// found). Commands run in-process (runCli); the few cases about the process itself (a real stdin
// pipe, SIGINT, the process's env, the binary's exit code and --help) run bin/episodic.mjs.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EpisodicClient, unwrap } from '../../src/index.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { type CliOptions, type CliResult, type RunningCli, spawnBinary, startInProcess } from './cli-run.ts';
import { clientFor, waitFor } from './support.ts';

let t: TestApp;
let api: EpisodicClient;
let dir: string;
beforeAll(async () => {
  t = await startTestApp();
  api = clientFor(t);
  dir = await mkdtemp(join(tmpdir(), 'episodic-cli-'));
  // The tests run concurrently, so none may count on another's writes: five running episodes
  // tagged cli give `list` a second page and the ledger the events `tail` and `export` read.
  for (let i = 0; i < 5; i++) unwrap(await api.startEpisode({ taskDescription: `seed ${i}`, taskType: 'bugfix', context: { tags: ['ci', 'cli'] } }));
});
afterAll(() => t.stop());

interface Opts {
  stdin?: string;
  env?: Record<string, string>;
  /** false: no --url/--key (the test gives its own, or none). */
  auth?: boolean;
}

/** With the admin key and the test server's url unless auth is false; no admin-key file to fall back on. */
function withDefaults(args: string[], opts: Opts): [string[], CliOptions] {
  const auth = opts.auth === false ? [] : ['--url', t.url, '--key', t.keys.admin];
  return [[...args, ...auth], { stdin: opts.stdin, env: { EPISODIC_DATA_DIR: join(dir, 'no-such-dir'), ...opts.env } }];
}

const start = (args: string[], opts: Opts = {}): RunningCli => startInProcess(...withDefaults(args, opts));
const cli = (args: string[], opts: Opts = {}) => start(args, opts).exited;
/** The compiled binary as a child process. */
const binary = (args: string[], opts: Opts = {}): RunningCli => spawnBinary(...withDefaults(args, opts));
const json = (r: CliResult) => JSON.parse(r.stdout);

async function newEpisode(): Promise<string> {
  const r = await cli(['start', 'Fix', 'the', 'flaky', 'test', '--type', 'bugfix', '--tag', 'ci,cli', '--max-steps', '50']);
  expect(r).toMatchObject({ code: 0, stderr: '' });
  return r.stdout.trim();
}

const stepLines = (n: number, key = (i: number) => `k-${i}`) =>
  Array.from({ length: n }, (_, i) =>
    JSON.stringify({ kind: 'tool_call', tool: 'shell', action: `cmd ${i}`, result: { kind: 'SUCCESS', output: 'ok' }, tokens: 3, sideEffectKey: key(i) }),
  ).join('\n');

describe.concurrent('episodic start / log / complete / show / list', () => {
  it('start prints the id; --json prints the episode summary; usage errors exit 2', async () => {
    const id = await newEpisode();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(unwrap(await api.episode(id))).toMatchObject({ taskDescription: 'Fix the flaky test', taskType: 'bugfix', context: { tags: ['ci', 'cli'] } });
    const j = await cli(['start', 'Write docs', '--type', 'docs', '--json', '--agent', 'cli-test', '--goal', 'a readme', '--complexity', 'simple']);
    expect(j.code).toBe(0);
    expect(json(j)).toMatchObject({ status: 'RUNNING', deduplicated: false });
    expect((await cli(['start', '--type', 'x'])).code).toBe(2);
    expect((await cli(['start', 'x', '--complexity', 'huge'])).code).toBe(2);
    expect((await cli(['start', 'x', '--no-such-flag'])).code).toBe(2);
    expect((await cli(['start', 'x', '--max-steps', '5000'])).code).toBe(2); // refused by the server: InputLimitError
  });

  it('log reads JSON lines from a file or stdin, in batches, and prints the counts', async () => {
    const id = await newEpisode();
    const file = join(dir, 'steps.jsonl');
    await writeFile(file, `${stepLines(5)}\n\n`);
    const fromFile = await cli(['log', id, file, '--batch', '2']);
    expect(fromFile).toMatchObject({ code: 0 });
    expect(fromFile.stdout).toMatch(/accepted 5, duplicate 0, rejected 0/);
    const fromStdin = await binary(['log', id, '-', '--json'], { stdin: stepLines(7) }).exited; // stdin a real pipe
    expect(fromStdin.code).toBe(0);
    expect(json(fromStdin)).toMatchObject({ read: 7, accepted: 2, duplicates: 5, rejected: 0, notSent: 0, status: 'RUNNING' });
    expect(unwrap(await api.episode(id)).stepCount).toBe(7);

    const bad = await cli(['log', id, '-'], { stdin: '{"kind":"tool_call"}\nnot json\n' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/line 2 is not JSON/);
    expect((await cli(['log', '00000000-0000-0000-0000-000000000000', '-'], { stdin: stepLines(1) })).code).toBe(4);
    expect((await cli(['log'])).code).toBe(2);
  });

  it('log reports steps rejected by the budget', async () => {
    const r = await cli(['start', 'tight', '--max-steps', '2', '--json']);
    const { id } = json(r);
    const logged = await cli(['log', id, '-', '--json', '--batch', '3'], { stdin: stepLines(5) });
    expect(logged.code).toBe(0);
    expect(json(logged)).toMatchObject({ accepted: 2, rejected: 1, notSent: 2, budgetExhausted: 'steps', status: 'FAILED' });
  });

  it('complete ends an episode with an outcome; refusals exit 1, unknown ids 4, bad flags 2', async () => {
    const id = await newEpisode();
    const done = await cli(['complete', id, '--outcome', 'partial', '--verdict', 'half', '--completed', 'a', '--failed', 'b', '--json']);
    expect(done.code).toBe(0);
    expect(json(done).episode).toMatchObject({ status: 'COMPLETED', outcome: { kind: 'PARTIAL', completed: ['a'], failed: ['b'] } });
    const again = await cli(['complete', id, '--outcome', 'success']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/IllegalTransitionError/);
    expect((await cli(['complete', '00000000-0000-0000-0000-000000000000', '--outcome', 'success'])).code).toBe(4);
    expect((await cli(['complete', id, '--outcome', 'meh'])).code).toBe(2);
    expect((await cli(['complete', id, '--outcome', 'failure'])).code).toBe(2);
  });

  it('show prints an episode (with --steps its journal); list filters and pages', async () => {
    const id = await newEpisode();
    await cli(['log', id, '-'], { stdin: stepLines(2) });
    const shown = await cli(['show', id, '--steps']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(id);
    expect(shown.stdout).toMatch(/#2 tool_call shell cmd 1/);
    expect(json(await cli(['show', id, '--steps', '--json']))).toMatchObject({ id, stepCount: 2, steps: [{ stepNumber: 1 }, { stepNumber: 2 }] });
    expect((await cli(['show', '00000000-0000-0000-0000-000000000000'])).code).toBe(4);

    const listed = json(await cli(['list', '--tag', 'cli', '--status', 'running', '--first', '2', '--json']));
    expect(listed.episodes).toHaveLength(2);
    expect(listed.episodes.every((e: Json) => e.status === 'RUNNING' && e.context.tags.includes('cli'))).toBe(true);
    expect(listed.pageInfo.hasNextPage).toBe(true);
    const next = json(await cli(['list', '--tag', 'cli', '--status', 'running', '--first', '2', '--after', listed.pageInfo.endCursor, '--json']));
    expect(next.episodes[0].id).not.toBe(listed.episodes[0].id);
    const text = await cli(['list', '--type', 'bugfix']);
    expect(text.stdout).toMatch(/RUNNING/);
  });
});

describe.concurrent('episodic tail / export / verify', () => {
  it('tail --after 0 --verify replays and verifies the ledger; --count ends it', async () => {
    const r = await cli(['tail', '--after', '0', '--verify', '--json', '--count', '5']);
    expect(r.code).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(r.stderr).toMatch(/resume with --after 5/);
  });

  it('tail follows live events from the head and exits cleanly on SIGINT, printing where to resume', async () => {
    const tail = binary(['tail', '--verify']);
    await waitFor(() => tail.stderr().includes('following the ledger'), 15_000, 'tail to connect');
    const id = await newEpisode();
    await waitFor(() => tail.stdout().includes('episode.started'), 15_000, 'the live event');
    tail.interrupt(); // SIGINT
    const r = await tail.exited;
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`\\d+\\tepisode\\.started\\t${id}`));
    expect(r.stderr).toMatch(/stopped after seq \d+ \(resume with --after \d+\)/);
  });

  it('tail --verify exits 3 when the stored chain was tampered with', async () => {
    const other = await t.addTenant('tenant-tampered');
    const c = clientFor(t, other.write);
    const ep = unwrap(await c.startEpisode({ taskDescription: 'soon tampered', taskType: 'x' })).episode;
    unwrap(await c.logStep(ep.id, { kind: 'observation', observation: 'x' }));
    await t.services.db.pool.query(`UPDATE ledger_events SET payload = '{"forged": true}' WHERE tenant_id = $1 AND seq = 2`, [other.tenantId]);
    const withUrl = await cli(['tail', '--after', '0', '--verify', '--count', '3', '--url', t.url], { auth: false, env: { EPISODIC_API_KEY: other.read } });
    expect(withUrl.code).toBe(3);
    expect(withUrl.stderr).toMatch(/NOT VERIFIED.*seq 2.*hash-mismatch/);
    expect(withUrl.stdout.trim().split('\n')).toHaveLength(1); // seq 1 was shown, the forged seq 2 never
  });

  it('export writes JSON lines that `episodic verify` accepts, and an episode proof bundle; a tampered export fails with 3', async () => {
    const file = join(dir, 'ledger.jsonl');
    const r = await cli(['export', '--after', '0', '--output', file, '--json']);
    expect(r.code).toBe(0);
    const summary = json(r);
    expect(summary).toMatchObject({ file, firstSeq: 1 });
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    const events = lines.map((l) => JSON.parse(l)).filter((l) => l.seq !== undefined);
    expect(events).toHaveLength(summary.count);
    const key = (await t.gql('{ ledgerPublicKey { publicKey } }')).data.ledgerPublicKey.publicKey;
    expect((await cli(['verify', '--public-key', key, file], { auth: false })).code).toBe(0);
    expect((await cli(['verify', file], { auth: false })).code).toBe(2); // no trusted key: nothing is verified

    const range = await cli(['export', '--after', '2', '--to', '4']);
    expect(
      range.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).seq)
        .filter(Boolean),
    ).toEqual([3, 4]);

    const tampered = join(dir, 'tampered.jsonl');
    const forged = lines.map((l) => JSON.parse(l));
    const victim = forged.find((l) => l.seq === 2);
    victim.type = 'episode.forged';
    await writeFile(tampered, forged.map((e) => JSON.stringify(e)).join('\n'));
    const failed = await cli(['verify', '--public-key', key, tampered], { auth: false });
    expect(failed.code).toBe(3);

    const id = await newEpisode();
    const bundleFile = join(dir, 'bundle.json');
    await t.services.checkpoints.publish(t.keys.tenantId); // bundles are proved against signed checkpoints only
    expect((await cli(['export', '--episode', id, '--output', bundleFile])).code).toBe(0);
    expect((await cli(['verify', '--public-key', key, bundleFile], { auth: false })).code).toBe(0);
    expect((await cli(['export', '--episode', '00000000-0000-0000-0000-000000000000'])).code).toBe(4);
  });
});

describe.concurrent('episodic keys (API) and connection handling', () => {
  it('creates, lists and revokes keys with an admin key; a write key is refused (exit 1)', async () => {
    const created = await cli(['keys', 'create', '--scopes', 'read', '--name', 'cli-made', '--json']);
    expect(created.code).toBe(0);
    const { id, token } = json(created);
    expect(token).toMatch(/^epk_/);
    const listed = json(await cli(['keys', 'list', '--json']));
    expect(listed.map((k: Json) => k.id)).toContain(id);
    expect(json(await cli(['keys', 'revoke', id, '--json']))).toMatchObject({ id, revokedAt: expect.any(String) });
    const forbidden = await cli(['keys', 'list', '--url', t.url, '--key', t.keys.write], { auth: false });
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toMatch(/scope/);
    expect((await cli(['keys', 'revoke', '00000000-0000-0000-0000-000000000000'])).code).toBe(4);
    expect((await cli(['keys', 'rotate'])).code).toBe(2);
  });

  it('finds the key in EPISODIC_API_KEY, else in <EPISODIC_DATA_DIR>/admin-key; no key is a usage error', async () => {
    const viaEnv = await cli(['list', '--json', '--url', t.url], { auth: false, env: { EPISODIC_API_KEY: t.keys.read } });
    expect(viaEnv.code).toBe(0);
    const dataDir = await mkdtemp(join(tmpdir(), 'episodic-key-'));
    await writeFile(join(dataDir, 'admin-key'), `${t.keys.read}\n`);
    expect((await cli(['list', '--url', t.url], { auth: false, env: { EPISODIC_DATA_DIR: dataDir } })).code).toBe(0);
    expect((await cli(['list', '--url', t.url], { auth: false, env: { EPISODIC_URL: t.url } })).code).toBe(2);
    // The binary reads the process's environment (config.ts's default).
    const viaEnvUrl = await binary(['list'], { auth: false, env: { EPISODIC_URL: t.url, EPISODIC_API_KEY: t.keys.read } }).exited;
    expect(viaEnvUrl.code).toBe(0);
  });

  it('exits 1 with one line for a bad key or an unreachable server; every command has --help', async () => {
    const bad = await cli(['list', '--url', t.url, '--key', `epk_aaaaaaaaaaaa_${'a'.repeat(43)}`], { auth: false });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/check --key/);
    const down = await binary(['show', '00000000-0000-4000-8000-000000000000', '--url', 'http://127.0.0.1:1/graphql', '--key', 'k'], { auth: false }).exited; // one line from the real process
    expect(down.code).toBe(1);
    expect(down.stderr.trim().split('\n')).toHaveLength(1);
    for (const command of ['start', 'log', 'complete', 'show', 'list', 'tail', 'export', 'keys']) {
      const help = await cli([command, '--help'], { auth: false });
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`Usage: episodic ${command}`));
      expect(help.stdout).toMatch(/Exit codes/);
    }
    const top = await binary(['--help'], { auth: false }).exited;
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/tail\s+stream live ledger events/);
  });
});
