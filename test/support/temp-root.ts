// Global setup of every test project: one temporary folder per run, made the system temp folder
// (TMPDIR) of the run's workers and of everything they start (servers, CLIs, Chromium, PostgreSQL),
// and removed at teardown. A test that fails before its own clean-up, or a child process killed
// mid-write, still leaves nothing behind in /tmp.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let root: string | undefined;

export async function setup() {
  root = await mkdtemp(join(tmpdir(), 'episodic-test-run-'));
  // os.tmpdir() reads TMPDIR on each call; workers and child processes inherit it.
  process.env.TMPDIR = root;
}

export async function teardown() {
  if (root) await rm(root, { recursive: true, force: true });
}
