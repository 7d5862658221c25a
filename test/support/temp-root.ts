// Global setup of every test project: one temporary folder per run, made the system temp folder
// (TMPDIR) of the run's workers and of everything they start (servers, CLIs, Chromium, PostgreSQL),
// and removed at teardown. A test that fails before its own clean-up, or a child process killed
// mid-write, still leaves nothing behind in /tmp.
import { readFileSync, statfsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The run's peak use of its folder was about 0.5 GB (PostgreSQL's WAL and data, Chromium, unpacked runs). */
const MEMORY_FOLDER_FREE_BYTES = 2 * 1024 ** 3;

let root: string | undefined;

/**
 * /dev/shm when it is a tmpfs with room and allows programs, else the system temp folder. Every test
 * file creates a database, and on this machine's ext4 one CREATE DATABASE took 136-293 ms of system
 * CPU against 24 ms on tmpfs; nothing in the run needs its files to outlive the machine.
 */
export function runFolderBase(mounts = readMounts(), free = freeBytes): string {
  const shm = mounts
    .split('\n')
    .map((line) => line.split(' '))
    .find((f) => f[1] === '/dev/shm');
  const usable = shm?.[2] === 'tmpfs' && !(shm[3] ?? '').split(',').includes('noexec');
  return usable && free('/dev/shm') >= MEMORY_FOLDER_FREE_BYTES ? '/dev/shm' : tmpdir();
}

function readMounts(): string {
  try {
    return readFileSync('/proc/mounts', 'utf8');
  } catch {
    return ''; // not Linux
  }
}

function freeBytes(path: string): number {
  const s = statfsSync(path);
  return s.bavail * s.bsize;
}

export async function setup() {
  root = await mkdtemp(join(runFolderBase(), 'episodic-test-run-'));
  // os.tmpdir() reads TMPDIR on each call; workers and child processes inherit it.
  process.env.TMPDIR = root;
}

export async function teardown() {
  if (root) await rm(root, { recursive: true, force: true });
}
