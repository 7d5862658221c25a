// The shape of src/, computed from its import statements (type-only, side-effect and dynamic
// imports included): between its places (each folder, each top-level file) the imports form no
// cycle; every module that registers on the Pothos builder lives in src/graphql/; the domain
// modules (every place the GraphQL layer reaches) never import it. Pure: reads files, no database.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../support/source-files.ts';

const SRC = resolve(import.meta.dirname, '../../src');
const GRAPHQL = 'graphql';

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
const rel = (file: string) => relative(SRC, file);
const imports = new Map(files.map((f) => [rel(f), importsOf(f).map(rel)]));

/** A module's place: its top-level folder under src/, or its own name for a top-level file. */
const placeOf = (path: string): string => (path.includes('/') ? (path.split('/')[0] ?? path) : path);

/** One import between two places: "from -> to" of the places, with the module import that makes it. */
interface PlaceEdge {
  from: string;
  to: string;
  via: string;
}

function placeEdges(graph: ReadonlyMap<string, readonly string[]>): PlaceEdge[] {
  const edges = new Map<string, PlaceEdge>();
  for (const [file, targets] of graph) {
    for (const target of targets) {
      const [from, to] = [placeOf(file), placeOf(target)];
      if (from !== to && !edges.has(`${from} ${to}`)) edges.set(`${from} ${to}`, { from, to, via: `${file} -> ${target}` });
    }
  }
  return [...edges.values()];
}

/** A cycle between places, as the imports that close it ("a/x.ts -> b/y.ts"), or null when there is none. */
function cycleOf(edges: readonly PlaceEdge[]): string[] | null {
  const out = new Map<string, PlaceEdge[]>();
  for (const e of edges) out.set(e.from, [...(out.get(e.from) ?? []), e]);
  const state = new Map<string, 'open' | 'done'>();
  const path: PlaceEdge[] = [];
  const visit = (place: string): string[] | null => {
    state.set(place, 'open');
    for (const edge of out.get(place) ?? []) {
      if (state.get(edge.to) === 'open') {
        const start = path.findIndex((e) => e.from === edge.to);
        return [...path.slice(start < 0 ? path.length : start), edge].map((e) => e.via);
      }
      if (state.has(edge.to)) continue;
      path.push(edge);
      const found = visit(edge.to);
      if (found) return found;
      path.pop();
    }
    state.set(place, 'done');
    return null;
  };
  for (const place of out.keys()) {
    const found = state.has(place) ? null : visit(place);
    if (found) return found;
  }
  return null;
}

const REGISTRATION = /\bbuilder\.(?:query|mutation|subscription|object|input|enum|interface|union|scalar|prisma|node|add)\w*\(/;

/** Whether a module registers on the Pothos builder: it imports the builder, or calls it. */
const registersOnBuilder = (path: string) =>
  (imports.get(path) ?? []).includes(`${GRAPHQL}/builder.ts`) || REGISTRATION.test(readFileSync(join(SRC, path), 'utf8'));

/** The places the GraphQL layer imports, directly or through others: the domain below it. */
function domainPlaces(edges: readonly PlaceEdge[]): Set<string> {
  const reached = new Set<string>();
  const next = [GRAPHQL];
  while (next.length) {
    const place = next.pop() ?? '';
    for (const e of edges.filter((edge) => edge.from === place && !reached.has(edge.to))) {
      reached.add(e.to);
      next.push(e.to);
    }
  }
  reached.delete(GRAPHQL);
  return reached;
}

/** The imports between the subfolders of src/ledger/, as place edges (a subfolder is a place). */
function ledgerSubfolderEdges(graph: ReadonlyMap<string, readonly string[]>): PlaceEdge[] {
  const ledger = new Map(
    [...graph]
      .filter(([file]) => file.startsWith('ledger/'))
      .map(([file, targets]) => [file.slice('ledger/'.length), targets.filter((t) => t.startsWith('ledger/')).map((t) => t.slice('ledger/'.length))] as const),
  );
  return placeEdges(ledger).map((e) => ({ ...e, via: e.via.replace(/^|(?<= -> )/g, 'ledger/') }));
}

describe('the shape of src/', () => {
  const edges = placeEdges(imports);

  it('has no import cycle between its folders and top-level files', () => {
    expect(cycleOf(edges)).toBeNull();
  });

  it('keeps every module that registers on the Pothos builder in src/graphql/', () => {
    expect([...imports.keys()].filter((p) => registersOnBuilder(p) && placeOf(p) !== GRAPHQL)).toEqual([]);
  });

  it('has domain modules that never import src/graphql/', () => {
    const domain = domainPlaces(edges);
    expect(domain.size).toBeGreaterThan(10);
    expect(edges.filter((e) => domain.has(e.from) && e.to === GRAPHQL).map((e) => e.via)).toEqual([]);
  });

  it('has no import cycle between the subfolders of src/ledger/ (formats, proofs, verification, fan-out, store)', () => {
    const subfolders = ledgerSubfolderEdges(imports);
    expect(new Set(subfolders.flatMap((e) => [e.from, e.to]))).toEqual(new Set(['format', 'proofs', 'verification', 'fanout', 'store']));
    expect([...imports.keys()].filter((p) => /^ledger\/[^/]+$/.test(p))).toEqual([]); // every ledger module is in a subfolder
    expect(cycleOf(subfolders)).toBeNull();
  });

  it('would catch a cycle, naming the imports that close it, and a builder module outside src/graphql/', () => {
    const graph = new Map([...imports, ['ledger/store/store.ts', [...(imports.get('ledger/store/store.ts') ?? []), 'graphql/ledger.ts']]]);
    const cycle = cycleOf(placeEdges(graph));
    expect(cycle).toContain('ledger/store/store.ts -> graphql/ledger.ts');
    const inLedger = new Map([...imports, ['ledger/format/hash.ts', ['ledger/store/read.ts']]]);
    expect(cycleOf(ledgerSubfolderEdges(inLedger))).toContain('ledger/format/hash.ts -> ledger/store/read.ts');
    expect(cycle?.some((via) => via.startsWith('graphql/'))).toBe(true);
    expect(cycleOf([{ from: 'a', to: 'b', via: 'a/x.ts -> b/y.ts' }])).toBeNull();
    expect(registersOnBuilder('graphql/episodes.ts')).toBe(true);
    expect(registersOnBuilder('episodes/store.ts')).toBe(false);
    expect(domainPlaces(edges)).toContain('episodes');
    expect(domainPlaces(edges)).not.toContain('http');
  });
});
