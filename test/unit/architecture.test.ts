// The dependency order of ARCHITECTURE.md, checked on the import statements of src/**: between
// folders, an import only runs down the order, GraphQL modules included (a folder's graphql*.ts
// imports its own folder, lower folders and the GraphQL base, never a higher folder), and domain
// modules never import the GraphQL layer. Pure: reads files, no database.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../support/source-files.ts';

const SRC = resolve(import.meta.dirname, '../../src');

/**
 * Lowest first: a module may import its own folder and the folders before it. The root files are
 * placed one by one (config and log are read everywhere; write.ts is the write path over the
 * ledger; the rest compose the server). `schema` is the GraphQL base and assembly: src/schema/
 * and builder.ts, above every domain folder.
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
  'experiments',
  'lifecycle',
  'monitor',
  'client',
  'import',
  'loop',
  'web',
  'schema',
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

/** The one exception to the order: every GraphQL module registers on the builder and reads the resolvers' context, scalars and base types. */
const GRAPHQL_BASE = (path: string) => path === 'builder.ts' || (path.startsWith('schema/') && path !== 'schema/index.ts');

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

/** A module of the GraphQL layer: src/schema/, builder.ts, every graphql*.ts, and any module that imports the builder. */
function isGraphQL(file: string): boolean {
  const path = rel(file);
  return (
    path.startsWith('schema/') ||
    path === 'builder.ts' ||
    /(^|\/)graphql[^/]*\.ts$/.test(path) ||
    (imports.get(file) ?? []).some((t) => rel(t) === 'builder.ts')
  );
}

/** The place of a module in ORDER: its folder, or its own name at the root (builder.ts is with schema/). */
function placeOf(path: string): string {
  if (path === 'builder.ts') return 'schema';
  return path.includes('/') ? (path.split('/')[0] ?? path) : path;
}

function rank(place: string): number {
  const index = ORDER.indexOf(place);
  if (index < 0) throw new Error(`${place} is not in ARCHITECTURE.md's order (test/unit/architecture.test.ts ORDER)`);
  return index;
}

/** Whether an import from one module to another (paths under src/) runs back up between places. */
function runsBackUp(from: { path: string; graphql: boolean }, to: string): boolean {
  const [a, b] = [placeOf(from.path), placeOf(to)];
  if (a === b) return false;
  if (from.graphql && GRAPHQL_BASE(to)) return false;
  return rank(b) > rank(a);
}

/** Every import from a module to a module placed above it, as "from -> to" (paths under src/). */
function againstTheOrder(): string[] {
  const found: string[] = [];
  for (const [file, targets] of imports) {
    const from = { path: rel(file), graphql: isGraphQL(file) };
    for (const target of targets) if (runsBackUp(from, rel(target))) found.push(`${rel(file)} -> ${rel(target)}`);
  }
  return found.sort();
}

describe('the dependency order of ARCHITECTURE.md', () => {
  it('places every source folder and root file', () => {
    for (const file of files) expect(() => rank(placeOf(rel(file))), rel(file)).not.toThrow();
  });

  it('no import runs back up between folders (GraphQL modules included)', () => {
    expect(againstTheOrder()).toEqual([]);
  });

  it('domain modules never import the GraphQL layer', () => {
    const domain = files.filter((f) => !isGraphQL(f) && rank(placeOf(rel(f))) < rank('schema'));
    const offending = domain.flatMap((f) => (imports.get(f) ?? []).filter(isGraphQL).map((t) => `${rel(f)} -> ${rel(t)}`));
    expect(offending).toEqual([]);
  });

  it('would catch an import running back up, from a domain module or a GraphQL one', () => {
    const domain = (path: string) => ({ path, graphql: false });
    const graphql = (path: string) => ({ path, graphql: true });
    expect(runsBackUp(domain('episodes/store.ts'), 'ledger/store.ts')).toBe(false);
    expect(runsBackUp(domain('ledger/store.ts'), 'episodes/store.ts')).toBe(true);
    expect(runsBackUp(graphql('leases/graphql.ts'), 'episodes/graphql-payloads.ts')).toBe(true);
    expect(runsBackUp(graphql('episodes/graphql-inputs.ts'), 'lifecycle/complete.ts')).toBe(true);
    expect(runsBackUp(graphql('lifecycle/graphql.ts'), 'episodes/graphql-payloads.ts')).toBe(false);
    expect(runsBackUp(graphql('ledger/graphql.ts'), 'schema/context.ts')).toBe(false);
    expect(runsBackUp(graphql('ledger/graphql.ts'), 'builder.ts')).toBe(false);
    expect(runsBackUp(graphql('ledger/graphql.ts'), 'schema/index.ts')).toBe(true);
    expect(runsBackUp(domain('ledger/store.ts'), 'schema/context.ts')).toBe(true);
    expect(importsOf(join(SRC, 'schema/index.ts')).map(rel)).toContain('ledger/graphql.ts');
  });
});
