// The one walk of a source folder for the tests that read the code itself (ids, the SQL idiom,
// function length, the import order, dead code, job handlers), so they agree on what a source is.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export interface SourceWalk {
  /** File names taken (default: TypeScript, .ts and .tsx); a declaration file (.d.ts) never is. */
  names?: RegExp;
  /** Folder names not entered (default: the Prisma client and Pothos types, not ours to shape). */
  skip?: readonly string[];
}

/** Every source file under `dir`, as absolute paths. */
export function sourceFiles(dir: string, { names = /\.tsx?$/, skip = ['generated'] }: SourceWalk = {}): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return skip.includes(entry.name) ? [] : sourceFiles(path, { names, skip });
    return names.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}
