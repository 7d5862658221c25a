// The node limit's count (src/http/node-count.ts) on the real schema: page sizes multiplied along
// nested connections and summed, with variables, defaults, fragments, aliases and directives.
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.ts';
import { countNodes } from '../../src/http/node-count.ts';
import { nodeLimitError } from '../../src/http/node-limit.ts';

const count = (query: string, variables: Record<string, unknown> = {}, operationName?: string) =>
  countNodes(schema, { document: parse(query), variables, operationName });

const NESTED = '{ episodes(first: 100) { edges { node { steps(first: 1000) { edges { node { id observation } } } } } } }';

describe('countNodes', () => {
  it('multiplies nested page sizes and sums every paged field (GitHub: 100 + 100 x 1,000)', () => {
    const { total, worst } = count(NESTED);
    expect(total).toBe(100 + 100 * 1000);
    expect(worst).toEqual({ path: ['episodes', 'edges', 'node', 'steps'], factors: [100, 1000], nodes: 100_000 });
  });

  it('uses each field’s declared default page size when no size is given', () => {
    // episodes: 20 by default, steps: 50 by default.
    expect(count('{ episodes { edges { node { id steps { edges { node { id } } } } } } }').total).toBe(20 + 20 * 50);
    // Pattern.episodes and WorkItem.episodes: 20; patterns: 20.
    expect(count('{ patterns { edges { node { episodes { edges { node { id } } } } } } }').total).toBe(20 + 20 * 20);
    expect(count('{ episodes(first: 1) { nodes: edges { node { workItem { episodes { edges { node { id } } } } } } } }').total).toBe(1 + 20);
  });

  it('reads last when first is absent, and cuts a page to the field’s maximum as the resolver does', () => {
    expect(count('{ episodes(last: 7) { edges { node { id } } } }').total).toBe(7);
    expect(count('{ episodes(first: 5000) { edges { node { id } } } }').total).toBe(100);
    expect(count('{ episodes(first: 3, last: 9) { edges { node { id } } } }').total).toBe(3);
    expect(count('{ episodes(first: -4) { edges { node { id } } } }').total).toBe(0);
  });

  it('resolves variables, and falls back to the default for a null or omitted one', () => {
    const query = 'query($n: Int, $m: Int) { episodes(first: $n) { edges { node { steps(first: $m) { edges { node { id } } } } } } }';
    expect(count(query, { n: 100, m: 1000 }).total).toBe(100_100);
    expect(count(query, { n: 10 }).total).toBe(10 + 10 * 50);
    expect(count(query, { n: null, m: null }).total).toBe(20 + 20 * 50);
  });

  it('counts nothing when the variables do not coerce (execution refuses them)', () => {
    expect(count('query($n: Int) { episodes(first: $n) { edges { node { id } } } }', { n: 'many' }).total).toBe(0);
  });

  it('coerces only the variables a count reads: another that does not coerce leaves the pages counted', () => {
    // logSteps' 100 StepInputs are never read by the count; execution refuses $other on its own.
    const query = 'query($n: Int, $other: Int) { episodes(first: $n) { edges { node { id } } } }';
    expect(count(query, { n: 30, other: 'many' }).total).toBe(30);
  });

  it('counts fragment spreads and inline fragments, including through the result unions', () => {
    const spread = `{ episodes(first: 100) { edges { node { ...Steps } } } }
      fragment Steps on Episode { steps(first: 100) { edges { node { id } } } }`;
    expect(count(spread).total).toBe(100 + 100 * 100);
    const inline = '{ episode(id: "x") { ... on Episode { steps(first: 1000) { edges { node { id } } } } } }';
    expect(count(inline)).toEqual({ total: 1000, worst: { path: ['episode', 'steps'], factors: [1000], nodes: 1000 } });
  });

  it('counts each alias, and a field selected twice under one key once (execution merges it)', () => {
    const aliased = '{ a: episodes(first: 100) { edges { node { id } } } b: episodes(first: 100) { edges { node { id } } } }';
    expect(count(aliased).total).toBe(200);
    const merged = `{ episodes(first: 100) { edges { node { id ...S ...S } } } }
      fragment S on Episode { steps(first: 10) { edges { node { id } } } }`;
    expect(count(merged).total).toBe(100 + 100 * 10);
  });

  it('counts a deeply shared fragment in linear time (each selection counted once)', () => {
    // Each fragment spreads the next twice under two keys: 2^20 paths, a handful of selections.
    const fragments = Array.from(
      { length: 20 },
      (_, i) => `fragment F${i} on Episode { a: parentEpisode { ...F${i + 1} } b: parentEpisode { ...F${i + 1} } }`,
    ).join('\n');
    const query = `{ episodes(first: 1) { edges { node { ...F0 } } } } ${fragments} fragment F20 on Episode { steps(first: 1) { edges { node { id } } } }`;
    const started = performance.now();
    expect(count(query).total).toBe(1 + 2 ** 20);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('honours @skip and @include', () => {
    const query = 'query($big: Boolean!) { episodes(first: 100) { edges { node { steps(first: 1000) @include(if: $big) { edges { node { id } } } } } } }';
    expect(count(query, { big: false }).total).toBe(100);
    expect(count(query, { big: true }).total).toBe(100_100);
    expect(count('{ episodes(first: 100) @skip(if: true) { edges { node { id } } } }').total).toBe(0);
  });

  it('counts the list fields sized by first or limit, with their defaults', () => {
    expect(count('{ ledgerEvents { __typename } }').total).toBe(100);
    expect(count('{ ledgerEvents(first: 500) { __typename } ledgerCheckpoints(first: 2) { __typename } }').total).toBe(502);
    expect(count('{ retrievalReceipts { id } }').total).toBe(20);
    const relevant = `{ relevantEpisodes(task: { description: "x" }, limit: 50) { ... on RelevantEpisodes {
      episodes { episode { steps(first: 1000) { edges { node { id } } } } } } } }`;
    expect(count(relevant).total).toBe(50 + 50 * 1000);
  });

  it('counts only the operation that runs', () => {
    const doc = 'query Small { episodes(first: 1) { edges { node { id } } } } query Big { episodes(first: 100) { edges { node { id } } } }';
    expect(count(doc, {}, 'Small').total).toBe(1);
    expect(count(doc, {}, 'Big').total).toBe(100);
    expect(count(doc).total).toBe(0);
  });

  it('counts one parsed document again for other variables when its pages read them', () => {
    const document = parse('query($n: Int) { episodes(first: $n) { edges { node { id } } } }');
    expect(countNodes(schema, { document, variables: { n: 3 } }).total).toBe(3);
    expect(countNodes(schema, { document, variables: { n: 70 } }).total).toBe(70);
    expect(countNodes(schema, { document, variables: { n: 'many' } }).total).toBe(0);
  });

  it('counts one parsed document the same every time, and per operation, when no page reads a variable', () => {
    const document = parse('query A { episodes(first: 4) { edges { node { id } } } } query B { episodes(first: 9) { edges { node { id } } } }');
    expect(countNodes(schema, { document, operationName: 'A' }).total).toBe(4);
    expect(countNodes(schema, { document, operationName: 'B' }).total).toBe(9);
    expect(countNodes(schema, { document, operationName: 'A' }).total).toBe(4);
  });

  it('reads only the size arguments of a page: a task that does not coerce leaves relevantEpisodes counted', () => {
    const document = parse('query($t: RetrievalTaskInput!) { relevantEpisodes(task: $t, limit: 7) { __typename } }');
    expect(countNodes(schema, { document, variables: { t: { description: 'fix' } } }).total).toBe(7);
    expect(countNodes(schema, { document, variables: { t: 'not a task' } }).total).toBe(7);
  });

  it('counts nothing for operations without paged fields', () => {
    expect(count('{ viewer { id } }')).toEqual({ total: 0, worst: null });
    expect(count('{ __schema { types { name } } }').total).toBe(0);
  });
});

describe('nodeLimitError', () => {
  it('names the count, the biggest field with its page sizes, and the limit', () => {
    const error = nodeLimitError({ schema, document: parse(NESTED) }, 10_000);
    expect(error?.message).toBe('This request may return 100,100 nodes (episodes.edges.node.steps: 100 x 1,000); the limit is 10,000. Ask for smaller pages.');
    expect(error?.extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', limit: 10_000, actual: 100_100, field: 'episodes.edges.node.steps' });
  });

  it('lets a request at the limit through', () => {
    const atLimit = parse('{ episodes(first: 100) { edges { node { steps(first: 99) { edges { node { id } } } } } } }');
    expect(countNodes(schema, { document: atLimit }).total).toBe(10_000);
    expect(nodeLimitError({ schema, document: atLimit }, 10_000)).toBeNull();
    expect(nodeLimitError({ schema, document: atLimit }, 9_999)).not.toBeNull();
  });
});
