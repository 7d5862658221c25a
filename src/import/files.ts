// Which files an import reads: the paths given, folders walked (sorted, so runs import in a stable
// order), each file's format from its name unless one is forced.
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { type Format, formatOfName, formatSuffixesText } from './formats.ts';
import { ImportFileError } from './run.ts';

/** Harness verdict files found in a folder are read, not imported as runs. */
const VERDICT_FILE_NAMES = ['results.csv', 'results.json'];

export interface FoundFile {
  path: string;
  format: Format;
}

export interface FoundFiles {
  runs: FoundFile[];
  verdictFiles: string[];
  /** Why a folder gave no run: per folder given that held none, its files and the links skipped. */
  empty: Array<{ folder: string; files: number; links: number }>;
}

async function walk(dir: string, out: string[], links: { count: number }): Promise<void> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) await walk(path, out, links);
    else if (e.isFile()) out.push(path);
    else if (e.isSymbolicLink()) links.count += 1;
  }
}

export async function findFiles(paths: readonly string[], forced: Format | null): Promise<FoundFiles> {
  const runs: FoundFile[] = [];
  const verdictFiles: string[] = [];
  const empty: FoundFiles['empty'] = [];
  for (const path of paths) {
    const info = await stat(path).catch(() => null);
    if (!info) throw new ImportFileError(path, null, 'no such file or folder');
    if (info.isFile()) {
      const format = forced ?? formatOfName(path);
      if (!format) throw new ImportFileError(path, null, `unknown format: name it ${formatSuffixesText()}, or pass --format`);
      runs.push({ path, format });
      continue;
    }
    const inside: string[] = [];
    const links = { count: 0 };
    await walk(path, inside, links);
    const before = runs.length;
    for (const file of inside) {
      if (VERDICT_FILE_NAMES.includes(basename(file))) verdictFiles.push(file);
      const implied = formatOfName(file);
      if (implied && (!forced || forced === implied)) runs.push({ path: file, format: implied });
    }
    if (runs.length === before) empty.push({ folder: path, files: inside.length, links: links.count });
  }
  return { runs, verdictFiles, empty };
}
