// An import walking a folder reads only the regular files inside it: a symbolic link (to a file or
// a folder, inside or outside) is skipped, so a folder cannot make `episodic import` read elsewhere.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { findFiles } from '../../src/import/files.ts';

const made: string[] = [];
afterAll(() => Promise.all(made.map((d) => rm(d, { recursive: true, force: true }))));

it('does not follow symbolic links out of (or within) the folder it walks', async () => {
  const outside = await mkdtemp(join(tmpdir(), 'episodic-outside-'));
  const folder = await mkdtemp(join(tmpdir(), 'episodic-import-'));
  made.push(outside, folder);
  await writeFile(join(outside, 'secret.jsonl'), '{"not": "yours"}\n');
  await mkdir(join(outside, 'runs'));
  await writeFile(join(outside, 'runs', 'other.traj.json'), '{}');
  await writeFile(join(folder, 'good.jsonl'), '{}\n');
  await symlink(join(outside, 'secret.jsonl'), join(folder, 'linked.jsonl'));
  await symlink(join(outside, 'runs'), join(folder, 'linked-folder'));
  await symlink(join(folder, 'good.jsonl'), join(folder, 'again.jsonl'));
  const found = await findFiles([folder], null);
  expect(found.runs).toEqual([{ path: join(folder, 'good.jsonl'), format: 'jsonl' }]);
});
