// `episodic import` of folders with nothing to import (empty, only other files, only symbolic links
// to run folders): the real binary warns naming the folder and why, and exits 4 (docs/IMPORT.md).
// Nothing is sent: the URL is a port nothing listens on.
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawnBinary } from '../client/cli-run.ts';
import { tempDir } from '../reliability/harness.ts';
import { freePort } from '../support/ports.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const NAMES = '.traj.json (mini-swe-agent), .traj (swe-agent) or .jsonl (jsonl)';

let root: { path: string; remove(): Promise<void> };
let url: string;
beforeAll(async () => {
  root = await tempDir('import-nothing-');
  url = `http://127.0.0.1:${await freePort()}/graphql`;
});
afterAll(() => root.remove());

function importing(paths: string[], extra: string[] = []) {
  return spawnBinary(['import', ...paths, '--url', url, '--key', 'epk_none', ...extra], { env: { EPISODIC_DATA_DIR: join(root.path, 'none') } }).exited;
}

it('warns naming each folder and why nothing was found, and exits 4', { timeout: 60_000 }, async () => {
  const empty = join(root.path, 'empty');
  const linked = join(root.path, 'linked');
  const notes = join(root.path, 'notes');
  await mkdir(empty);
  await mkdir(linked);
  await symlink(join(FIXTURES, 'mini'), join(linked, 'mini'));
  await symlink(join(FIXTURES, 'jsonl'), join(linked, 'jsonl'));
  await mkdir(notes);
  await writeFile(join(notes, 'README.txt'), 'not a run');

  const text = await importing([empty, linked, notes]);
  expect(text.code).toBe(4);
  expect(text.stdout.split('\n')).toEqual([
    expect.stringMatching(/^imported 0 run\(s\), 0 already imported, 0 failed; steps: 0 accepted, 0 refused/),
    `warning: nothing to import in ${empty}: no file named ${NAMES}`,
    `warning: nothing to import in ${linked}: no file named ${NAMES}; 2 symbolic link(s) skipped (links are not followed)`,
    `warning: nothing to import in ${notes}: 1 file(s), none named ${NAMES}`,
    '',
  ]);
  expect(text.stderr).toBe('episodic: nothing to import: no run file in the paths given\n');

  const json = await importing([linked], ['--json']);
  expect(json.code).toBe(4);
  expect(JSON.parse(json.stdout)).toMatchObject({ runs: [], imported: 0, warnings: [{ code: 'NOTHING_FOUND', runs: [] }] });
});
