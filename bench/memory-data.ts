// The development set for the memory benchmarks, read for labels and baselines only: each run's
// repository, task text, harness verdict, and the files its final patch changes. The product
// itself reads the runs through the importer; this file never feeds the ranking.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DEFAULT_DATASET = resolve(dirname(fileURLToPath(import.meta.url)), '../../shared/data/swebench-verified-mini-swe-agent.tar.gz');

/** Packaging files nearly every Python change may touch; a shared one says nothing about the task. */
export const IGNORED_FILES = new Set(['setup.py', 'setup.cfg', 'tox.ini', 'pyproject.toml']);

export interface RunStep {
  command: string;
  output: string;
  returnCode: number | null;
}

export interface DevRun {
  /** The instance id, e.g. django__django-14915. */
  id: string;
  /** django/django */
  repository: string;
  language: string;
  description: string;
  resolved: boolean;
  patch: string;
  /** Files the final patch changes (labels), without IGNORED_FILES. */
  files: string[];
  steps: RunStep[];
  /** The trajectory file, for the importer. */
  path: string;
}

/** Unpacks the archive once per content size into the system temp folder (never into the repo); a folder is read as it is. */
export function unpack(archive: string): string {
  if (statSync(archive).isDirectory()) return archive;
  const size = readFileSync(archive).length;
  const target = join(tmpdir(), `episodic-memory-${size}`);
  if (!existsSync(join(target, '.done'))) {
    mkdirSync(target, { recursive: true });
    execFileSync('tar', ['xzf', archive, '-C', target]);
    execFileSync('touch', [join(target, '.done')]);
  }
  return target;
}

export function changedFiles(patch: string): string[] {
  const files = new Set<string>();
  for (const m of patch.matchAll(/^diff --git a\/(\S+) b\/(\S+)$/gm)) files.add(m[2] ?? m[1] ?? '');
  return [...files].filter((f) => f !== '' && !IGNORED_FILES.has(f.split('/').pop() ?? f));
}

interface Message {
  role: string;
  content: string | Array<{ type: string; text?: string }>;
}

const text = (m: Message | undefined): string =>
  m === undefined ? '' : typeof m.content === 'string' ? m.content : m.content.map((c) => c.text ?? '').join('\n');

export function taskText(prompt: string): string {
  const inside = /<pr_description>([\s\S]*?)<\/pr_description>/.exec(prompt)?.[1] ?? prompt;
  return inside.replace(/^\s*Consider the following PR description:\s*/, '').trim();
}

function stepsOf(messages: Message[]): RunStep[] {
  const steps: RunStep[] = [];
  for (let i = 2; i < messages.length; i++) {
    const m = messages[i];
    if (m?.role !== 'assistant') continue;
    const command = /```bash\s*\n([\s\S]*?)```/.exec(text(m))?.[1]?.trim() ?? '';
    const reply = messages[i + 1]?.role === 'user' ? text(messages[i + 1]) : '';
    const code = /<returncode>(-?\d+)<\/returncode>/.exec(reply)?.[1];
    const output = /<output>([\s\S]*?)<\/output>/.exec(reply)?.[1] ?? reply;
    steps.push({ command, output, returnCode: code === undefined ? null : Number(code) });
  }
  return steps;
}

export function loadDevRuns(archive = process.env.MEMORY_DATASET ?? DEFAULT_DATASET): DevRun[] {
  const root = unpack(archive);
  const base =
    readdirSync(root)
      .map((d) => join(root, d))
      .find((d) => existsSync(join(d, 'results.csv'))) ?? root;
  const verdicts = new Map(
    readFileSync(join(base, 'results.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => {
        const [id, resolved] = line.split(',');
        return [id ?? '', resolved === 'True'] as const;
      }),
  );
  const runs: DevRun[] = [];
  for (const id of readdirSync(join(base, 'trajs')).sort()) {
    const path = join(base, 'trajs', id, `${id}.traj.json`);
    if (!existsSync(path)) continue;
    const traj = JSON.parse(readFileSync(path, 'utf8')) as { instance_id: string; info: { submission?: string }; messages: Message[] };
    const [owner, rest] = traj.instance_id.split('__');
    const patch = traj.info.submission ?? '';
    runs.push({
      id: traj.instance_id,
      repository: `${owner}/${(rest ?? '').replace(/-\d+$/, '')}`,
      language: 'python',
      description: taskText(text(traj.messages[1])),
      resolved: verdicts.get(traj.instance_id) ?? false,
      patch,
      files: changedFiles(patch),
      steps: stepsOf(traj.messages),
      path,
    });
  }
  return runs;
}
