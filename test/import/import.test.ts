// importRuns against a real server: each format (small hand-made fixtures), malformed files (the
// file and line named, nothing written), re-import without duplicates, and what an imported
// episode holds (task, repository, verdict, artifacts, tools, exit codes, historical times).
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createBLAKE3 } from 'hash-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { type EpisodicClient, type Step, unwrap } from '../../src/client/index.ts';
import { must } from '../../src/core/must.ts';
import { importRuns } from '../../src/import/index.ts';
import { clientFor } from '../client/support.ts';
import { type TestApp, useApp } from '../support/app.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const MINI = join(FIXTURES, 'mini');
const MINI_FILE = join(MINI, 'django__django-11', 'django__django-11.traj.json');

let t: TestApp;
let api: EpisodicClient;
useApp((app) => {
  t = app;
  api = clientFor(t, t.keys.write);
});

async function blake3File(path: string): Promise<string> {
  return (await createBLAKE3())
    .init()
    .update(await readFile(path))
    .digest('hex');
}

async function counts() {
  const { rows } = await t.database.db.pool.query('SELECT (SELECT count(*) FROM episodes)::int AS episodes, (SELECT count(*) FROM steps)::int AS steps');
  return rows[0] as { episodes: number; steps: number };
}

async function stepsOf(episodeId: string): Promise<Step[]> {
  const page = await api.episodeSteps(episodeId, { first: 100 });
  if (page.__typename !== 'EpisodeStepsConnection') throw new Error(page.message);
  return page.edges.map((e) => e.node);
}

async function episodeOf(episodeId: string) {
  const r = await t.gql(
    `query($id: ID!) { episode(id: $id) { ... on Episode { taskDescription startedAt endedAt timesKnown wallTimeMs context { domain language tags }
    outcome { kind verdict artifacts reason } reflection { successes improvements insights } budgetUsage { resource used } } } }`,
    { id: episodeId },
    t.keys.read,
  );
  return r.data.episode;
}

describe('mini-swe-agent', () => {
  let episodeId: string;
  beforeAll(async () => {
    const report = await importRuns(api, [MINI]);
    expect(report).toMatchObject({ imported: 1, failed: 0, rejectedSteps: 0 });
    episodeId = must(must(report.runs[0]).episodeId);
  });

  it('maps the run to one episode: task text, repository, language, verdict, changed files, real times', async () => {
    const episode = await episodeOf(episodeId);
    expect(episode.taskDescription).toBe('slugify() should accept allow_unicode\nDescription\nslugify drops non-ASCII letters; add an allow_unicode flag.');
    expect(episode.context).toMatchObject({ domain: 'django/django', language: 'python' });
    expect(episode.outcome).toMatchObject({ kind: 'SUCCESS', artifacts: ['django/utils/text.py'] });
    expect(episode.startedAt).toBe(new Date(1763500000 * 1000).toISOString());
    expect(episode.endedAt).toBe(new Date(1763500090 * 1000).toISOString());
    expect(episode.budgetUsage.find((b: { resource: string }) => b.resource === 'wall_time').used).toBe(90_000);
    expect(episode).toMatchObject({ timesKnown: true, wallTimeMs: 90_000 });
    expect(JSON.stringify(episode.reflection)).not.toMatch(/Finished in 0(\.\d+)? s/);
  });

  it('maps commands to tools with the raw command kept, exit codes to result kinds, and the patch to the submit step', async () => {
    const steps = await stepsOf(episodeId);
    expect(steps.map((s) => s.tool)).toEqual(['search', null, 'edit', 'test', 'submit']);
    expect(steps[1]).toMatchObject({ kind: 'llm_call', resultKind: 'error', result: { errorClass: 'format_error' } });
    expect(must(steps[3]).parameters).toEqual({ command: 'cd /testbed && ./tests/runtests.py utils_tests.test_text' });
    expect(steps[3]).toMatchObject({ resultKind: 'error', result: { message: 'exit code 1', errorClass: 'exit_1' } });
    expect((must(steps[3]).result as { output: string }).output).toContain("AssertionError: 'a' != 'b'");
    const patch = JSON.parse(await readFile(MINI_FILE, 'utf8')).info.submission;
    expect(steps[4]).toMatchObject({ resultKind: 'success', result: { output: patch } });
    expect(must(steps[0]).startedAt).toBe(new Date(1763500000 * 1000).toISOString());
    expect(must(steps[0]).endedAt).toBe(new Date(1763500010 * 1000).toISOString());
  });

  it("records the source file's BLAKE3 and name (never the client's path) in the ledger and marks the run imported", async () => {
    const page = await api.ledgerEvents({ filter: { episodeId } });
    if (page.__typename !== 'LedgerEventConnection') throw new Error(page.message);
    const started = must(page.events.find((e) => e.type === 'episode.started'));
    expect(started.payload).toMatchObject({
      imported: {
        startedAt: new Date(1763500000 * 1000).toISOString(),
        source: { format: 'mini-swe-agent', sourceHash: await blake3File(MINI_FILE), name: basename(MINI_FILE) },
      },
    });
  });

  it('imports the same file again without a second episode or step', async () => {
    const before = await counts();
    const again = await importRuns(api, [MINI_FILE]);
    expect(again).toMatchObject({ imported: 0, duplicates: 1, failed: 0 });
    expect(must(again.runs[0]).episodeId).toBe(episodeId);
    expect(await counts()).toEqual(before);
  });
});

describe('SWE-agent', () => {
  it('imports a .traj with its tools, rejected edits and the verdict from results.json', async () => {
    const report = await importRuns(api, [join(FIXTURES, 'swe')]);
    expect(report).toMatchObject({ imported: 1, failed: 0 });
    const id = must(must(report.runs[0]).episodeId);
    const episode = await episodeOf(id);
    expect(episode).toMatchObject({
      taskDescription: 'Add.x should be 2, not 1.',
      context: { domain: 'sympy/sympy', language: 'python' },
      timesKnown: false,
      wallTimeMs: null,
    });
    expect(episode.outcome).toMatchObject({ kind: 'FAILURE', reason: 'not resolved by the harness', artifacts: ['sympy/core/add.py'] });
    const steps = await stepsOf(id);
    expect(steps.map((s) => s.tool)).toEqual(['search', 'view', 'edit', 'edit', 'test', 'submit']);
    expect(steps.map((s) => s.resultKind)).toEqual(['success', 'success', 'error', 'success', 'success', 'success']);
    expect(must(steps[4]).latencyMs).toBe(2500);
  });
});

describe('generic JSONL', () => {
  it('imports a run with its own times, verdict, timeouts and failing output', async () => {
    const report = await importRuns(api, [join(FIXTURES, 'jsonl', 'acme__widgets-7.jsonl')]);
    expect(report).toMatchObject({ imported: 1, failed: 0 });
    const id = must(must(report.runs[0]).episodeId);
    const episode = await episodeOf(id);
    expect(episode).toMatchObject({
      startedAt: '2025-06-01T10:00:00.000Z',
      endedAt: '2025-06-01T10:05:00.000Z',
      context: { domain: 'acme/widgets', language: 'typescript' },
    });
    expect(episode.outcome).toMatchObject({ kind: 'SUCCESS', artifacts: ['src/list.ts'] });
    const steps = await stepsOf(id);
    expect(steps.map((s) => [s.tool, s.resultKind])).toEqual([
      ['view', 'success'],
      ['test', 'error'],
      ['shell', 'timeout'],
      ['submit', 'success'],
    ]);
    expect(must(steps[1]).result).toEqual({ message: 'tests failed', errorClass: 'exit_1', output: '1 failing' });
  });
});

describe('malformed files', () => {
  it('names the file and line of invalid JSON and writes nothing', async () => {
    const before = await counts();
    const report = await importRuns(api, [join(FIXTURES, 'bad.traj.json')]);
    expect(report.failed).toBe(1);
    expect(must(report.runs[0]).error).toMatchObject({ file: join(FIXTURES, 'bad.traj.json'), line: 3 });
    expect(must(must(report.runs[0]).error).message).toMatch(/bad\.traj\.json:3: invalid JSON/);
    expect(await counts()).toEqual(before);
  });

  it('names the JSONL line that is not JSON, even after good lines, and writes nothing', async () => {
    const before = await counts();
    const report = await importRuns(api, [join(FIXTURES, 'jsonl-bad.jsonl')]);
    expect(must(report.runs[0]).error).toMatchObject({ line: 3 });
    expect(await counts()).toEqual(before);
  });

  it('names a missing required field and its line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'import-'));
    const file = join(dir, 'no-task.jsonl');
    await writeFile(file, '{"type":"run","id":"x-1"}\n');
    const report = await importRuns(api, [file]);
    expect(must(must(report.runs[0]).error).message).toBe(`${file}:1: "task" is required`);
  });
});

describe('large output', () => {
  it('keeps an 868 KB failing test log whole on its ERROR result', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'import-'));
    const log = `FAIL test_big\n${'x'.repeat(868 * 1024)}\nEND OF LOG`;
    const lines = [
      { type: 'run', id: 'big__log-1', task: 'A test prints a huge log.', startedAt: '2025-01-01T00:00:00Z' },
      { type: 'step', command: 'pytest -x', exitCode: 1, output: log, startedAt: '2025-01-01T00:00:01Z' },
    ];
    await writeFile(join(dir, 'big.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n'));
    const report = await importRuns(api, [dir]);
    expect(report).toMatchObject({ imported: 1, rejectedSteps: 0 });
    const [step] = await stepsOf(must(must(report.runs[0]).episodeId));
    expect(step).toMatchObject({ tool: 'test', resultKind: 'error' });
    expect((must(step).result as { output: string }).output).toBe(log);
    expect(unwrap(await api.verifyLedger()).ok).toBe(true);
  });
});
