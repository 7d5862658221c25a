// The 350 real mini-swe-agent runs (SWE-bench Verified), for tests that need real data: unpacked
// from the shared archive into a temporary folder that `cleanup` removes, and imported through the
// product's importer (importRuns over the public API). CI clones the repository where it likes, so
// the archive is looked for in EPISODIC_REAL_RUNS_ARCHIVE, then in shared/data of every folder above
// the repository (beside a clone, or two levels up from a git worktree), then in /work/shared/data.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { EpisodicClient } from '../../src/client/client.ts';
import { type ImportReport, importRuns } from '../../src/import/index.ts';
import { testRealRunsArchive } from './env.ts';

const ARCHIVE = join('shared', 'data', 'swebench-verified-mini-swe-agent.tar.gz');
const REPO = resolve(import.meta.dirname, '../..');

/** Where the archive may be, in the order looked: the configured path, each folder above the repository, /work. */
function archiveCandidates(): string[] {
  const above: string[] = [];
  for (let dir = dirname(REPO); ; dir = dirname(dir)) {
    above.push(join(dir, ARCHIVE));
    if (dirname(dir) === dir) break;
  }
  const configured = testRealRunsArchive();
  return [...new Set([...(configured ? [resolve(configured)] : []), ...above, join('/work', ARCHIVE)])];
}

export interface RealRuns {
  /** The trajectory files imported, in name order. */
  files: string[];
  report: ImportReport;
  cleanup(): Promise<void>;
}

export function realRunsArchive(): string {
  const candidates = archiveCandidates();
  const found = candidates.find((p) => existsSync(p));
  if (!found) {
    throw new Error(`the real runs are missing: none of ${candidates.join(', ')} exists (set EPISODIC_REAL_RUNS_ARCHIVE to the archive's path)`);
  }
  return found;
}

/** Which runs and how: every `every`-th from `offset` by instance id, sent in reverse order, so many at once (importRuns' concurrency). */
export interface RealRunsPlan {
  offset?: number;
  reversed?: boolean;
  concurrency?: number;
}

/**
 * Unpacks the archive and imports every `every`-th run (by instance id, so the subset is the same
 * on every machine) through `importRuns`, with the harness verdicts of results.csv.
 */
export async function importRealRuns(client: EpisodicClient, every = 1, plan: RealRunsPlan = {}): Promise<RealRuns> {
  const dir = await mkdtemp(join(tmpdir(), 'episodic-real-runs-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    execFileSync('tar', ['-xzf', realRunsArchive(), '-C', dir]);
    const base = join(dir, (await readdir(dir)).find((d) => existsSync(join(dir, d, 'results.csv'))) ?? '');
    const ids = (await readdir(join(base, 'trajs'))).sort().filter((_, i) => i % every === (plan.offset ?? 0));
    const files = ids.map((id) => join(base, 'trajs', id, `${id}.traj.json`));
    const sent = plan.reversed ? [...files].reverse() : files;
    const report = await importRuns(client, sent, { verdictFiles: [join(base, 'results.csv')], concurrency: plan.concurrency });
    return { files, report, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
