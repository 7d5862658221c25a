// Pages of inline step content are charged for the whole request before it runs (issue 50): the
// stored sizes of every aliased `episode(id) { steps { edges { node { result } } } }` page are summed
// by PostgreSQL in one statement, and a request past MAX_RESPONSE_BYTES is refused with one error
// before any resolver reads a step. Each page is counted as Pothos reads it (first/last, after/before,
// the default and largest page size, fragments, @skip, merged fields). Real server, real PostgreSQL.
import { parse } from 'graphql';
import { expect, it } from 'vitest';
import { unwrap } from '../../src/client/index.ts';
import { schema } from '../../src/graphql/schema.ts';
import { stepPagesIn } from '../../src/http/step-page-reads.ts';
import { stepPagesBytes } from '../../src/steps/page-sizes.ts';
import { clientFor } from '../client/support.ts';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';
import { statementsDuring } from '../support/statements.ts';

const BUDGET = 64 * 1024;
let t: TestApp;
useApp((app) => (t = app), { MAX_RESPONSE_BYTES: String(BUDGET) });

/** Ten steps of 5,000 to 14,000-byte outputs: six fit in the budget. */
async function episodeOfTenSteps(): Promise<{ id: string; sizes: number[]; cursors: string[] }> {
  const api = clientFor(t, t.keys.write);
  const { id } = unwrap(await api.startEpisode({ taskDescription: 'ten steps', taskType: 'budget' })).episode;
  const steps = Array.from({ length: 10 }, (_, i) => ({ tool: 'sh', result: { kind: 'SUCCESS' as const, output: 'x'.repeat(5_000 + i * 1_000) } }));
  unwrap(await api.logSteps(id, steps));
  const rows = await t.services.db.pool.query<{ size_bytes: number }>('SELECT size_bytes FROM steps WHERE episode_id = $1 ORDER BY step_number', [id]);
  const page = await t.gql(`{ episode(id: "${id}") { ... on Episode { steps { edges { cursor } } } } }`, {}, t.keys.read);
  const cursors = (page.data as Json).episode.steps.edges.map((e: Json) => e.cursor as string);
  return { id, sizes: rows.rows.map((r) => r.size_bytes), cursors };
}

const sum = (sizes: number[], from: number, to: number) => sizes.slice(from - 1, to).reduce((a, b) => a + b, 0);

it('refuses aliased pages of step content past the budget as one request, naming the limit, before any step is read, changing nothing', async () => {
  const { id, sizes } = await episodeOfTenSteps();
  const page = `episode(id: "${id}") { ... on Episode { steps(first: 5) { edges { node { result } } } } }`;
  let refused: Awaited<ReturnType<TestApp['gql']>> | undefined;
  const sent = await statementsDuring(async () => (refused = await t.gql(`{ a: ${page} b: ${page} }`, {}, t.keys.read)));
  expect(refused?.data ?? null).toBeNull();
  expect(refused?.errors).toHaveLength(1);
  // Each page reads six rows (Pothos asks for one more than first, to know hasNextPage).
  expect(refused?.errors?.[0]?.extensions).toMatchObject({
    code: 'RESPONSE_TOO_LARGE',
    budget: 'MAX_RESPONSE_BYTES',
    limit: BUDGET,
    requested: 2 * sum(sizes, 1, 6),
  });
  expect(refused?.errors?.[0]?.message).toContain(`MAX_RESPONSE_BYTES (${BUDGET} bytes per request)`);
  // One statement summed the sizes; no resolver ran: neither the episode nor a step's content was read.
  expect(sent.filter((q) => /\bsteps\b/.test(q))).toHaveLength(1);
  expect(sent.filter((q) => /"result"|\bresult\b|"episodes"/.test(q))).toEqual([]);
  const after = await t.gql(`{ episode(id: "${id}") { ... on Episode { stepCount steps(first: 1) { edges { node { result } } } } } }`, {}, t.keys.read);
  expect(after.errors).toBeUndefined();
  expect((after.data as Json).episode.stepCount).toBe(10);
  // One page of the two fits and is served.
  const one = await t.gql(`{ a: ${page} }`, {}, t.keys.read);
  expect(one.errors).toBeUndefined();
  expect((one.data as Json).a.steps.edges).toHaveLength(5);
});

it('counts each page as Pothos reads it', async () => {
  const { id, sizes, cursors } = await episodeOfTenSteps();
  const other = await t.addTenant('pages-outsider');
  const bytes = async (query: string, variables: Record<string, unknown> = {}, tenantId = t.keys.tenantId) =>
    stepPagesBytes(t.services.db.pool, tenantId, stepPagesIn(schema, parse(query), undefined, variables));
  const page = (args: string, node = 'result', alias = 'a') =>
    `${alias}: episode(id: "${id}") { ... on Episode { steps${args} { edges { node { ${node} } } } } }`;
  expect(await bytes(`{ ${page('(first: 2)')} }`)).toBe(sum(sizes, 1, 3));
  expect(await bytes(`{ ${page(`(first: 2, after: "${cursors[3]}")`)} }`)).toBe(sum(sizes, 5, 7));
  expect(await bytes(`{ ${page('(last: 2)')} }`)).toBe(sum(sizes, 8, 10));
  expect(await bytes(`{ ${page(`(last: 2, before: "${cursors[3]}")`)} }`)).toBe(sum(sizes, 1, 3));
  expect(await bytes(`{ ${page('')} }`)).toBe(sum(sizes, 1, 10));
  expect(await bytes(`{ ${page('(first: 5000)')} }`)).toBe(sum(sizes, 1, 10));
  expect(
    await bytes(`query($e: ID!, $n: Int) { a: episode(id: $e) { ... on Episode { steps(first: $n) { edges { node { parameters } } } } } }`, { e: id, n: 1 }),
  ).toBe(sum(sizes, 1, 2));
  // Through fragments, once per response key (graphql-js merges fields of one key), for every alias.
  const fragments = `fragment P on Episode { steps(first: 1) { edges { node { ...N } } } } fragment N on Step { result }`;
  expect(await bytes(`{ a: episode(id: "${id}") { ...P } b: episode(id: "${id}") { ...P ...P } } ${fragments}`)).toBe(2 * sum(sizes, 1, 2));
  expect(await bytes(`{ ${page('(first: 1)', 'id')} ${page('(first: 1)', 'result')} }`)).toBe(sum(sizes, 1, 2));
  // Not read, so not counted: a page without content, a skipped one, another tenant's episode, a cursor that is no step.
  expect(await bytes(`{ ${page('', 'id stepNumber tool')} }`)).toBe(0);
  expect(
    await bytes(`query($s: Boolean!) { a: episode(id: "${id}") @skip(if: $s) { ... on Episode { steps { edges { node { result } } } } } }`, { s: true }),
  ).toBe(0);
  expect(await bytes(`{ ${page('')} }`, {}, other.tenantId)).toBe(0);
  expect(await bytes(`{ ${page('(after: "bm9wZQ==")')} }`)).toBe(0);
});
