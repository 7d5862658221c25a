// Malformed cursors and ids are bad input, never a masked INTERNAL_SERVER_ERROR (issue 29, residual
// of the re-audit): every cursor argument of every connection, with strings that are not cursors,
// answers BAD_USER_INPUT (or the InputLimitError of its result union); malformed ids in filters
// match nothing, the same answer as an unknown id.
import { expect, it } from 'vitest';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';

let t: TestApp;
useApp((app) => (t = app));

const NOT_CURSORS = ['!!!', 'abc', 'Y3Vyc29y', 'T2Zmc2V0Q29ubmVjdGlvbjox', '-1', '1e99', '99999999999999999999', 'null', ''];
const NOT_IDS = ['x', '1', 'zzzz-zzzz', '00000000-0000-0000-0000-00000000000g'];

async function ids(): Promise<{ episode: string; workItem: string }> {
  const ep = await t.gql(
    'mutation { startEpisode(input: {taskDescription: "x", taskType: "t"}) { ... on StartEpisodePayload { episode { id } } } }',
    {},
    t.keys.write,
  );
  const wi = await t.gql('mutation { createWorkItem(title: "w") { ... on WorkItemPayload { workItem { id } } } }', {}, t.keys.write);
  return { episode: (ep.data as Json).startEpisode.episode.id, workItem: (wi.data as Json).createWorkItem.workItem.id };
}

function cursorDocuments(c: string, id: { episode: string; workItem: string }): string[] {
  const a = JSON.stringify(c);
  return [
    `{ episodes(after: ${a}) { edges { cursor } } }`,
    `{ episodes(before: ${a}, last: 2) { edges { cursor } } }`,
    `{ patterns(after: ${a}) { edges { cursor } } }`,
    `{ patterns(before: ${a}, last: 2) { edges { cursor } } }`,
    `{ episode(id: "${id.episode}") { ... on Episode { steps(after: ${a}) { edges { cursor } } } } }`,
    `{ episode(id: "${id.episode}") { ... on Episode { steps(before: ${a}, last: 2) { edges { cursor } } } } }`,
    `{ workItem(id: "${id.workItem}") { ... on WorkItem { episodes(after: ${a}) { edges { cursor } } } } }`,
    `{ workItem(id: "${id.workItem}") { ... on WorkItem { episodes(before: ${a}, last: 2) { edges { cursor } } } } }`,
    `{ ledgerEvents(after: ${a}) { __typename } }`,
  ];
}

it('answers every malformed cursor of every connection as bad input', async () => {
  const id = await ids();
  for (const c of NOT_CURSORS.filter((x) => x !== '')) {
    for (const doc of cursorDocuments(c, id)) {
      const r = await t.gql(doc, {}, t.keys.read);
      const code = r.errors?.[0]?.extensions?.code;
      const typename = Object.values((r.data ?? {}) as Record<string, Json>)[0]?.__typename;
      expect([code, typename], doc).toSatisfy(
        ([c2, tn]: [unknown, unknown]) => c2 === 'BAD_USER_INPUT' || c2 === 'GRAPHQL_VALIDATION_FAILED' || tn === 'InputLimitError',
      );
    }
  }
});

it('answers malformed ids in filters and arguments without an internal error', async () => {
  for (const bad of NOT_IDS) {
    const answers = await Promise.all(
      [
        `{ episodes(filter: { workItemId: "${bad}" }) { edges { cursor } } }`,
        `{ ledgerEvents(filter: { workItemId: "${bad}" }) { ... on LedgerEventConnection { edges { cursor } } } }`,
        `{ ledgerEvents(filter: { episodeId: "${bad}" }) { ... on LedgerEventConnection { edges { cursor } } } }`,
        `{ workItem(id: "${bad}") { __typename } }`,
      ].map((doc) => t.gql(doc, {}, t.keys.read)),
    );
    // episodes' workItemId is checked before execution (graphql/page-arguments.ts): a typed refusal naming it.
    const [refused, ...rest] = answers;
    expect(refused?.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'filter.workItemId', limit: 'a UUID' });
    for (const r of rest) expect(r.errors, JSON.stringify(r)).toBeUndefined();
    const [ledger, , workItem] = rest.map((r) => r.data as Json);
    expect(ledger.ledgerEvents.edges).toEqual([]);
    expect(workItem.workItem.__typename).toBe('NotFoundError');
  }
});

it('refuses a body that is not UTF-8 instead of storing U+FFFD, with or without a Content-Length', async () => {
  const head = Buffer.from('{"query":"mutation { startEpisode(input: {taskDescription: \\"bad ');
  const tail = Buffer.from(' byte\\", taskType: \\"t\\"}) { __typename } }"}');
  const body = Buffer.concat([head, Buffer.from([0xff, 0xfe]), tail]);
  const before = await t.database.db.pool.query('SELECT count(*)::int AS n FROM episodes');
  const declared = await fetch(t.url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${t.keys.write}` }, body });
  expect(declared.status).toBe(400);
  expect((await declared.json()).errors[0]).toMatchObject({ message: expect.stringMatching(/not valid UTF-8/), extensions: { code: 'BAD_REQUEST' } });
  const chunked = await fetch(t.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.keys.write}` },
    body: new ReadableStream({ start: (c) => (c.enqueue(new Uint8Array(body)), c.close()) }),
    duplex: 'half',
  } as RequestInit);
  expect(chunked.status).toBe(400);
  const after = await t.database.db.pool.query('SELECT count(*)::int AS n FROM episodes');
  expect(after.rows[0].n).toBe(before.rows[0].n);
  // The same request in UTF-8 is served.
  const fine = await fetch(t.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.keys.write}` },
    body: Buffer.concat([head, Buffer.from('é'), tail]),
  });
  expect((await fine.json()).data.startEpisode.__typename).toBe('StartEpisodePayload');
});
