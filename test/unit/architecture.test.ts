// The dependency order of ARCHITECTURE.md, checked on the import statements of src/**: between
// folders, an import only runs down the order, and domain modules never import the GraphQL layer
// (src/graphql/, above every domain folder). Pure: reads files, no database.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../support/source-files.ts';

const SRC = resolve(import.meta.dirname, '../../src');

/**
 * Lowest first: a module may import its own folder and the folders before it. The root files are
 * placed one by one (config and log are read everywhere; write.ts is the write path over the
 * ledger; services.ts declares and builds the Services every door reads; the rest compose the
 * server). `graphql` is the GraphQL layer, above every domain folder.
 */
const ORDER: readonly string[] = [
  'core',
  'generated',
  'config.ts',
  'log.ts',
  'db',
  'jobs',
  'ledger',
  'write.ts',
  'validation',
  'auth',
  'stops',
  'leases',
  'episodes',
  'steps',
  'learning',
  'retrieval',
  'lifecycle',
  'monitor',
  'client',
  'import',
  'loop',
  'web',
  'services.ts',
  'graphql',
  'http',
  'otlp',
  'mcp',
  'runtime.ts',
  'server.ts',
  'index.ts',
  'main.ts',
  'cli',
];

/** The src files a module imports: static imports and re-exports (type-only ones included), side-effect imports, dynamic imports. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/^(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gms),
    ...text.matchAll(/^import\s+'(\.[^']+)'/gm),
    ...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g),
  ].map((m) => m[1] ?? '');
  return specifiers.map((s) => resolve(dirname(file), s)).filter((t) => t.startsWith(`${SRC}/`));
}

const files = sourceFiles(SRC);
const imports = new Map(files.map((f) => [f, importsOf(f)]));
const rel = (file: string) => relative(SRC, file);

/** A module of the GraphQL layer: src/graphql/, and any module that imports the builder. */
function isGraphQL(file: string): boolean {
  return rel(file).startsWith('graphql/') || (imports.get(file) ?? []).some((t) => rel(t) === 'graphql/builder.ts');
}

/** The place of a module in ORDER: its folder, or its own name at the root. */
function placeOf(path: string): string {
  return path.includes('/') ? (path.split('/')[0] ?? path) : path;
}

function rank(place: string): number {
  const index = ORDER.indexOf(place);
  if (index < 0) throw new Error(`${place} is not in ARCHITECTURE.md's order (test/unit/architecture.test.ts ORDER)`);
  return index;
}

/** Whether an import from one module to another (paths under src/) runs back up between places. */
function runsBackUp(from: string, to: string): boolean {
  const [a, b] = [placeOf(from), placeOf(to)];
  return a !== b && rank(b) > rank(a);
}

/** Every import from a module to a module placed above it, as "from -> to" (paths under src/). */
function againstTheOrder(): string[] {
  const found: string[] = [];
  for (const [file, targets] of imports) {
    for (const target of targets) if (runsBackUp(rel(file), rel(target))) found.push(`${rel(file)} -> ${rel(target)}`);
  }
  return found.sort();
}

describe('the dependency order of ARCHITECTURE.md', () => {
  it('places every source folder and root file', () => {
    for (const file of files) expect(() => rank(placeOf(rel(file))), rel(file)).not.toThrow();
  });

  it('no import runs back up between folders', () => {
    expect(againstTheOrder()).toEqual([]);
  });

  it('domain modules never import the GraphQL layer', () => {
    const domain = files.filter((f) => !isGraphQL(f) && rank(placeOf(rel(f))) < rank('graphql'));
    const offending = domain.flatMap((f) => (imports.get(f) ?? []).filter(isGraphQL).map((t) => `${rel(f)} -> ${rel(t)}`));
    expect(offending).toEqual([]);
  });

  it('would catch an import running back up, or a domain module importing the GraphQL layer', () => {
    expect(runsBackUp('episodes/store.ts', 'ledger/store.ts')).toBe(false);
    expect(runsBackUp('ledger/store.ts', 'episodes/store.ts')).toBe(true);
    expect(runsBackUp('graphql/leases.ts', 'episodes/store.ts')).toBe(false);
    expect(runsBackUp('lifecycle/complete.ts', 'graphql/lifecycle.ts')).toBe(true);
    expect(runsBackUp('graphql/ledger.ts', 'http/yoga.ts')).toBe(true);
    expect(isGraphQL(join(SRC, 'graphql/context.ts'))).toBe(true);
    expect(isGraphQL(join(SRC, 'ledger/store.ts'))).toBe(false);
    expect(importsOf(join(SRC, 'graphql/schema.ts')).map(rel)).toContain('graphql/ledger.ts');
  });
});
