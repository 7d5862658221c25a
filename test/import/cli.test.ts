// `episodic import` and `episodic log` as a user runs them: a real server, the CLI run in-process
// (runCli: the same command code as the binary, without a Node start per command).
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../src/client/index.ts';
import { type CliResult, spawnBinary, startInProcess } from '../client/cli-run.ts';
import { clientFor } from '../client/support.ts';
import { type TestApp, useApp } from '../support/app.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures');

let t: TestApp;
let dir: string;
useApp((app) => {
  t = app;
});
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'import-cli-'));
});

function cli(args: string[], stdin = ''): Promise<CliResult> {
  return startInProcess([...args, '--url', t.url, '--key', t.keys.write], { stdin, env: { EPISODIC_DATA_DIR: join(dir, 'none') } }).exited;
}

async function stepCount(): Promise<number> {
  const { rows } = await t.database.db.pool.query('SELECT count(*)::int AS n FROM steps');
  return rows[0].n;
}

describe('episodic import', () => {
  it('imports a folder in one command, and again without duplicates', async () => {
    const first = await cli(['import', join(FIXTURES, 'mini'), join(FIXTURES, 'swe'), join(FIXTURES, 'jsonl')]);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toMatch(/imported 3 run\(s\), 0 already imported, 0 failed; steps: 15 accepted, 0 refused/);
    const steps = await stepCount();
    const again = await cli(['import', join(FIXTURES, 'mini'), join(FIXTURES, 'swe'), join(FIXTURES, 'jsonl'), '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ imported: 0, duplicates: 3, failed: 0 });
    expect(await stepCount()).toBe(steps);
  });

  it('exits 2 naming the file and line of a malformed file, with the error in --json', async () => {
    const file = join(FIXTURES, 'bad.traj.json');
    const text = await cli(['import', file]);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain(`${file}:3: invalid JSON`);
    const json = await cli(['import', file, '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ failed: 1, runs: [{ status: 'failed', error: { file, line: 3 } }] });
  });

  it('refuses an unknown format as a usage error', async () => {
    expect((await cli(['import', FIXTURES, '--format', 'csv'])).code).toBe(2);
    expect((await cli(['import', join(dir, 'missing')])).code).toBe(1);
  });
});

describe('episodic import of a run with a bad step', () => {
  const run = (tool: string) =>
    [
      {
        type: 'run',
        id: 'acme__partial-1',
        task: 'a run whose step 3 of 5 is bad',
        resolved: true,
        startedAt: '2025-06-01T10:00:00Z',
        endedAt: '2025-06-01T10:05:00Z',
      },
      ...[1, 2, 3, 4, 5].map((n) => ({
        type: 'step',
        command: `echo ${n}`,
        tool: n === 3 ? tool : 'run',
        output: `${n}`,
        startedAt: `2025-06-01T10:0${n - 1}:00Z`,
      })),
    ]
      .map((l) => JSON.stringify(l))
      .join('\n');
  const binary = (file: string) =>
    spawnBinary(['import', file], { env: { EPISODIC_URL: t.url, EPISODIC_API_KEY: t.keys.write, EPISODIC_DATA_DIR: join(dir, 'none') } }).exited;
  const stored = async () => {
    const { rows } = await t.database.db.pool.query(`SELECT status, step_count FROM episodes WHERE task_description = 'a run whose step 3 of 5 is bad'`);
    return rows as Array<{ status: string; step_count: number }>;
  };

  it('stores it not at all, naming the step, again on a re-import (never "already imported"), and whole once the file is fixed', async () => {
    const file = join(dir, 'partial.jsonl');
    await writeFile(file, run('ru\u0007n'));
    const first = await binary(file);
    expect(first.code).toBe(2);
    expect(first.stdout).toContain(`${file}:4: refused, nothing imported: InputLimitError: steps.2.tool must not contain control characters`);
    expect(await stored()).toEqual([]);
    const again = await binary(file);
    expect(again.code).toBe(2);
    expect(again.stdout).toMatch(/imported 0 run\(s\), 0 already imported, 1 failed/);
    expect(await stored()).toEqual([]);
    await writeFile(file, run('run'));
    const fixed = await binary(file);
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toMatch(/imported 1 run\(s\), 0 already imported, 0 failed; steps: 5 accepted/);
    expect(await stored()).toEqual([{ status: 'completed', step_count: 5 }]);
  });
});

describe('episodic import warnings', () => {
  it('warns, in text and in --json, when runs of different instances share one task text', async () => {
    const source = JSON.parse(await readFile(join(FIXTURES, 'mini', 'django__django-11', 'django__django-11.traj.json'), 'utf8'));
    const folder = join(dir, 'shared-task');
    for (const id of ['django__django-21', 'django__django-22', 'django__django-23']) {
      await mkdir(join(folder, id), { recursive: true });
      await writeFile(join(folder, id, `${id}.traj.json`), JSON.stringify({ ...source, instance_id: id }));
    }
    const text = await cli(['import', folder]);
    expect(text).toMatchObject({ code: 0, stderr: '' });
    expect(text.stdout).toMatch(
      /^warning: 3 of 3 runs share one task text \("slugify\(\) should accept allow_unicode Description .*"\): .*; runs: django__django-21, django__django-22, django__django-23$/m,
    );
    expect(text.stdout).not.toMatch(/carry no times/);
    const json = await cli(['import', folder, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      duplicates: 3,
      warnings: [
        { code: 'SHARED_TASK', runs: ['django__django-21', 'django__django-22', 'django__django-23'], message: expect.stringMatching(/^3 of 3 runs/) },
      ],
    });
  });

  it('warns about runs without times, and not about SWE-agent runs sharing a demonstration', async () => {
    const text = await cli(['import', join(FIXTURES, 'swe-demos')]);
    expect(text).toMatchObject({ code: 0, stderr: '' });
    expect(text.stdout).toMatch(
      /^warning: 3 of 3 runs carry no times \(swe-agent\): their times stay unknown .*; runs: astropy__astropy-12907, django__django-11099, sympy__sympy-20590$/m,
    );
    const json = JSON.parse((await cli(['import', join(FIXTURES, 'swe-demos'), '--json'])).stdout);
    expect(json.warnings).toEqual([
      { code: 'TIMES_UNKNOWN', message: expect.any(String), runs: ['astropy__astropy-12907', 'django__django-11099', 'sympy__sympy-20590'] },
    ]);
  });
});

describe('episodic log', () => {
  const lines = [
    JSON.stringify({ kind: 'tool_call', tool: 'shell', action: 'ls', result: { kind: 'SUCCESS', output: 'a' } }),
    JSON.stringify({ kind: 'Not Snake', tool: 'shell', action: 'bad kind' }),
    JSON.stringify({ kind: 'tool_call', tool: 'shell', action: 'pytest', result: { kind: 'ERROR', message: 'exit 1', output: 'F'.repeat(20_000) } }),
  ].join('\n');

  it('rejects a bad step alone, names its line, exits 2 with the error in --json, and a re-run adds nothing', async () => {
    const api = clientFor(t, t.keys.write);
    const episode = unwrap(await api.startEpisode({ taskDescription: 'log from a file', taskType: 'cli' })).episode;
    const file = join(dir, 'steps.jsonl');
    await writeFile(file, lines);
    const first = await cli(['log', episode.id, file]);
    expect(first.code).toBe(2);
    expect(first.stdout).toMatch(new RegExp(`${file}:2: invalid: refused: kind must be snake_case`));
    expect(unwrap(await api.episode(episode.id)).stepCount).toBe(2);

    const again = await cli(['log', episode.id, file, '--json']);
    expect(again.code).toBe(2);
    expect(JSON.parse(again.stdout)).toMatchObject({
      accepted: 0,
      duplicates: 2,
      rejected: 1,
      rejectedSteps: [{ line: 2, reason: 'invalid', violations: [{ field: 'steps.1.kind' }] }],
    });
    expect(unwrap(await api.episode(episode.id)).stepCount).toBe(2);
  });

  it('puts a refused call in --json', async () => {
    const refused = await cli(['log', '00000000-0000-0000-0000-000000000000', '-', '--json'], lines);
    expect(refused.code).toBe(4);
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: { type: 'NotFoundError' } });
  });
});
