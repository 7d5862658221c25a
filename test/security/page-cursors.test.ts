// Malformed page cursors and ids over GraphQL (HTTP, and graphql-ws for one): each answers
// BAD_USER_INPUT naming the argument and the limit, never a masked 500 (they used to reach Prisma
// and PostgreSQL as a row's key). A cursor the API returned still pages.
import { describe, expect, it } from 'vitest';
import { type TestApp, useApp } from '../support/app.ts';

let t: TestApp;
useApp((app) => {
  t = app;
});

const b64 = (text: string) => Buffer.from(text).toString('base64');
const MALFORMED = ['GPC:S:not-a-uuid', 'GPC:N:5', 'GPC:J:{"a":1}', 'GPC:S:zzz', 'GPC:N:1e400', 'GPC:N:-1'].map(b64);

const PLACES = [
  { argument: 'episodes.after', query: 'query($c: String) { episodes(after: $c) { edges { cursor } } }' },
  { argument: 'episodes.before', query: 'query($c: String) { episodes(before: $c, last: 5) { edges { cursor } } }' },
  { argument: 'patterns.after', query: 'query($c: String) { patterns(after: $c) { edges { cursor } } }' },
  { argument: 'steps.after', query: 'query($c: String, $id: ID!) { episode(id: $id) { ... on Episode { steps(after: $c) { edges { cursor } } } } }' },
];

async function anEpisode(): Promise<string> {
  const res = await t.gql('mutation { startEpisode(input: { taskDescription: "page me", taskType: "t" }) { ... on StartEpisodePayload { episode { id } } } }');
  const id = res.data?.startEpisode.episode.id;
  expect(id).toEqual(expect.any(String));
  return id as string;
}

describe('GraphQL page cursors and ids', () => {
  it('refuses each malformed cursor in each paged place with BAD_USER_INPUT naming the argument', async () => {
    const id = await anEpisode();
    for (const place of PLACES) {
      for (const cursor of MALFORMED) {
        const res = await t.gql(place.query, { c: cursor, id }, t.keys.read);
        expect(res.data ?? null, `${place.argument} ${cursor}`).toBeNull();
        expect(res.errors?.[0]?.extensions, `${place.argument} ${cursor}`).toMatchObject({
          code: 'BAD_USER_INPUT',
          field: place.argument,
          limit: 'a cursor this connection returned',
        });
      }
    }
  });

  it('refuses a malformed cursor as a literal and over graphql-ws too', async () => {
    const literal = await t.gql(`{ episodes(after: "${MALFORMED[0]}") { edges { cursor } } }`, {}, t.keys.read);
    expect(literal.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'episodes.after' });
    const ws = t.wsClient(t.keys.read);
    const result = await new Promise<{ errors?: ReadonlyArray<{ extensions?: Record<string, unknown> }> }>((resolve, reject) => {
      ws.subscribe(
        { query: 'query($c: String) { episodes(after: $c) { edges { cursor } } }', variables: { c: MALFORMED[1] } },
        { next: resolve, error: reject, complete: () => undefined },
      );
    });
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'episodes.after' });
  });

  it('refuses a workItemId filter that is no UUID (36 dashes, 36 zeros) naming filter.workItemId', async () => {
    for (const workItemId of ['-'.repeat(36), '0'.repeat(36), 'x']) {
      const res = await t.gql('query($w: ID) { episodes(filter: {workItemId: $w}) { edges { cursor } } }', { w: workItemId }, t.keys.read);
      expect(res.errors?.[0]?.extensions, workItemId).toMatchObject({ code: 'BAD_USER_INPUT', field: 'filter.workItemId', limit: 'a UUID' });
    }
  });

  it('still pages with the cursors it returned', async () => {
    await anEpisode();
    await anEpisode();
    const first = await t.gql('{ episodes(first: 1) { edges { cursor } pageInfo { endCursor } } }', {}, t.keys.read);
    const next = await t.gql(
      'query($c: String) { episodes(first: 1, after: $c) { edges { cursor } } }',
      { c: first.data?.episodes.pageInfo.endCursor },
      t.keys.read,
    );
    expect(first.data?.episodes.pageInfo.endCursor).toEqual(expect.any(String));
    expect(next.errors).toBeUndefined();
    expect(next.data?.episodes.edges).toHaveLength(1);
    expect(next.data?.episodes.edges[0].cursor).not.toBe(first.data?.episodes.edges[0].cursor);
  });
});
