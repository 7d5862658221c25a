// No dead module or export: every module of src/ and web/src/ is imported by something (or is an
// entry point), and every value a module of src/ exports is named in some other file (source,
// test, bench, script or example). Types are left out: an exported type documents a signature.
// Pure: reads files, no database; a name is matched as a word, so a mention counts as a use.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../support/source-files.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** Modules nothing imports because something else starts them. */
const ENTRY_POINTS: readonly string[] = [
  'src/main.ts', // the server process (npm start, the Dockerfile)
  'src/cli/main.ts', // the episodic command (bin/episodic.mjs runs its build)
  'web/src/main.tsx', // the monitor page (web/index.html)
  'src/ledger/verification/verify-worker.ts', // verifyLedger's worker threads (src/ledger/verification/verify-workers.ts starts them)
  'src/retrieval/index-worker.ts', // the term index's worker thread (src/retrieval/index-workers.ts starts it)
];

/** The package's public API (src/index.ts re-exports these folders whole): a user may need any export. */
const PUBLIC = /^src\/(client|loop)\//;

/** Every file that may import or name an export: the sources, tests, benchmarks, scripts and examples (not fixtures or builds). */
const WALK = { names: /\.(ts|tsx|mjs)$/, skip: ['generated', 'node_modules', 'dist', 'fixtures'] };

const everyFile = ['src', 'web/src', 'test', 'bench', 'scripts', 'examples', 'bin'].flatMap((d) => sourceFiles(join(ROOT, d), WALK));
const texts = new Map(everyFile.map((f) => [relative(ROOT, f), readFileSync(f, 'utf8')]));
const isSource = (path: string) => /^(src|web\/src)\//.test(path);

/** The files each word appears in. */
const filesOfWord = new Map<string, Set<string>>();
for (const [path, text] of texts)
  for (const [word] of text.matchAll(/[A-Za-z_$][\w$]*/g)) {
    const files = filesOfWord.get(word) ?? new Set<string>();
    files.add(path);
    filesOfWord.set(word, files);
  }

/** Every relative module path imported anywhere (static, side-effect and dynamic imports), resolved. */
function importedModules(): Set<string> {
  const found = new Set<string>();
  for (const [path, text] of texts)
    for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.[^'"]+)['"]/g))
      found.add(relative(ROOT, resolve(ROOT, dirname(path), m[1] ?? '')));
  return found;
}

/** "file: name" for each value a module exports that no other file names. */
function deadExports(): string[] {
  const dead: string[] = [];
  for (const [path, text] of texts) {
    if (!path.startsWith('src/') || PUBLIC.test(path)) continue;
    for (const m of text.matchAll(/^export (?:const|let|function\*?|async function|class|abstract class|enum) ([A-Za-z_$][\w$]*)/gm)) {
      const name = m[1] ?? '';
      if (![...(filesOfWord.get(name) ?? [])].some((f) => f !== path)) dead.push(`${path}: ${name}`);
    }
  }
  return dead.sort();
}

describe('no dead code', () => {
  it('every module of src/ and web/src/ is imported by something, or is an entry point', () => {
    const imported = importedModules();
    const unused = [...texts.keys()].filter((p) => isSource(p) && !imported.has(p) && !ENTRY_POINTS.includes(p));
    expect(unused).toEqual([]);
  });

  it('every value a module of src/ exports is used by another file', () => {
    expect(deadExports()).toEqual([]);
  });

  it('every entry point still matches a file', () => {
    for (const entry of ENTRY_POINTS) expect(texts.has(entry), entry).toBe(true);
  });
});
