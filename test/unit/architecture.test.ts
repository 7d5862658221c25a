// The dependency order of ARCHITECTURE.md, checked on the import statements of src/**: a module
// imports only modules of its own folder or of a folder below it in the order, and the domain
// modules never import the GraphQL layer. Pure: reads files, no database.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

/**
 * Lowest first: a module may import its own folder and the folders before it. The root files are
 * placed one by one (config and log are read everywhere; write.ts is the write path over the
 * ledger; the rest compose the server). The GraphQL layer (src/schema, every graphql*.ts and any
 * module that imports the builder) sits above every domain folder, whatever folder it lives in.
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
  'GRAPHQL',
  'http',
  'otlp',
  'mcp',
  'services.ts',
  'runtime.ts',
  'server.ts',
  'index.ts',
  'main.ts',
  'cli',
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The src files each module imports (static imports and re-exports, type-only ones included). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const targets = [...text.matchAll(/^(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gms)].map((m) => resolve(dirname(file), m[1] ?? ''));
  return targets.filter((t) => t.startsWith(`${SRC}/`));
}

const files = sourceFiles(SRC);
const imports = new Map(files.map((f) => [f, importsOf(f)]));
const rel = (file: string) => relative(SRC, file);

function isGraphQL(file: string): boolean {
  const path = rel(file);
  return (
    path.startsWith('schema/') ||
    path === 'builder.ts' ||
    /(^|\/)graphql[^/]*\.ts$/.test(path) ||
    (imports.get(file) ?? []).some((t) => rel(t) === 'builder.ts')
  );
}

/** The place of a module in ORDER: its folder, its own name at the root, or the GraphQL layer. */
function placeOf(file: string): string {
  if (isGraphQL(file)) return 'GRAPHQL';
  const path = rel(file);
  return path.includes('/') ? (path.split('/')[0] ?? path) : path;
}

function rank(place: string): number {
  const index = ORDER.indexOf(place);
  if (index < 0) throw new Error(`${place} is not in ARCHITECTURE.md's order (test/unit/architecture.test.ts ORDER)`);
  return index;
}

/** Every import from a module to a module placed above it, as "from -> to" (paths under src/). */
function againstTheOrder(): string[] {
  const found: string[] = [];
  for (const [file, targets] of imports) {
    for (const target of targets) {
      const sameFolder = dirname(file) === dirname(target);
      if (!sameFolder && rank(placeOf(target)) > rank(placeOf(file))) found.push(`${rel(file)} -> ${rel(target)}`);
    }
  }
  return found.sort();
}

describe('the dependency order of ARCHITECTURE.md', () => {
  it('places every source folder and root file', () => {
    for (const file of files) expect(() => rank(placeOf(file)), rel(file)).not.toThrow();
  });

  it('no module imports against the order', () => {
    expect(againstTheOrder()).toEqual([]);
  });

  it('domain modules never import the GraphQL layer', () => {
    const domain = files.filter((f) => !isGraphQL(f) && ORDER.indexOf(placeOf(f)) < ORDER.indexOf('GRAPHQL'));
    const offending = domain.flatMap((f) => (imports.get(f) ?? []).filter(isGraphQL).map((t) => `${rel(f)} -> ${rel(t)}`));
    expect(offending).toEqual([]);
  });

  it('would catch a domain module importing against the order', () => {
    const ledger = files.find((f) => rel(f) === 'ledger/store.ts');
    const episodes = files.find((f) => rel(f) === 'episodes/store.ts');
    expect(ledger && episodes && rank(placeOf(episodes)) > rank(placeOf(ledger))).toBe(true);
  });
});
