// The 350 real mini-swe-agent runs (SWE-bench Verified), for tests that need real data: unpacked
// from the shared archive into a temporary folder that `cleanup` removes, and imported through the
// product's importer (importRuns over the public API). The archive sits beside the repository on CI
// (../shared/data); from a git worktree under /work/wt it is two levels up.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { EpisodicClient } from '../../src/client/client.ts';
import { type ImportReport, importRuns } from '../../src/import/index.ts';

const ARCHIVE = 'shared/data/swebench-verified-mini-swe-agent.tar.gz';
const REPO = resolve(import.meta.dirname, '../..');
export const ARCHIVE_CANDIDATES = [resolve(REPO, '..', ARCHIVE), resolve(REPO, '../..', ARCHIVE)];

export interface RealRuns {
  /** The trajectory files imported, in name order. */
  files: string[];
  report: ImportReport;
  cleanup(): Promise<void>;
}

export function realRunsArchive(): string {
  const found = ARCHIVE_CANDIDATES.find((p) => existsSync(p));
  if (!found) throw new Error(`the real runs are missing: none of ${ARCHIVE_CANDIDATES.join(', ')} exists`);
  return found;
}

/**
 * Unpacks the archive and imports every `every`-th run (by instance id, so the subset is the same
 * on every machine) through `importRuns`, with the harness verdicts of results.csv.
 */
export async function importRealRuns(client: EpisodicClient, every = 1): Promise<RealRuns> {
  const dir = await mkdtemp(join(tmpdir(), 'episodic-real-runs-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    execFileSync('tar', ['-xzf', realRunsArchive(), '-C', dir]);
    const base = join(dir, (await readdir(dir)).find((d) => existsSync(join(dir, d, 'results.csv'))) ?? '');
    const ids = (await readdir(join(base, 'trajs'))).sort().filter((_, i) => i % every === 0);
    const files = ids.map((id) => join(base, 'trajs', id, `${id}.traj.json`));
    const report = await importRuns(client, files, { verdictFiles: [join(base, 'results.csv')] });
    return { files, report, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
