// The byte budget of a request (MAX_RESPONSE_BYTES) and the streamed blob download (issue 29, H).
// The audit's attack: a write key stores a ~16 MB blob, then one read-key request with 30 aliased
// blob(hash) took 477 MB of response and 2 GB of server memory. Real server, real PostgreSQL.
import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { unwrap } from '../../src/client/index.ts';
import { blobHash } from '../../src/steps/large-content.ts';
import { clientFor } from '../client/support.ts';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';

let t: TestApp;
useApp((app) => (t = app));

const MiB = 1024 * 1024;
const BUDGET = 8 * MiB; // the documented default

async function storeBlob(text: string): Promise<{ hash: string; episodeId: string }> {
  const api = clientFor(t, t.keys.write);
  const episode = unwrap(await api.startEpisode({ taskDescription: 'large output', taskType: 'budget' })).episode;
  unwrap(await api.logSteps(episode.id, [{ tool: 'shell', result: { kind: 'SUCCESS', output: text } }], { largeContent: 'BLOB' }));
  return { hash: blobHash(text), episodeId: episode.id };
}

function aliased(count: number, body: string): string {
  return `query { ${Array.from({ length: count }, (_, i) => `a${i}: ${body}`).join(' ')} }`;
}

function download(hash: string, token: string | null, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(t.url.replace('/graphql', `/blobs/${hash}`), { headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });
}

let big: { hash: string; text: string };

it('refuses 30 aliased blob(hash) of a 16 MB blob before reading any, with memory flat, while another key is served', async () => {
  const text = `${'b'.repeat(15.5 * MiB)}end`;
  big = { hash: (await storeBlob(text)).hash, text };
  const other = await t.addTenant('bystander');
  const rssBefore = process.memoryUsage().rss;
  const attack = t.gql(aliased(30, `blob(hash: "${big.hash}") { __typename ... on Blob { sizeBytes content } }`), {}, t.keys.read);
  const bystander = Promise.all(Array.from({ length: 5 }, () => t.gql('{ viewer { id } }', {}, other.read)));
  const [refused, served] = await Promise.all([attack, bystander]);
  const rssAfter = process.memoryUsage().rss;
  expect(refused.data ?? null).toBeNull();
  expect(refused.errors).toHaveLength(1);
  expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'RESPONSE_TOO_LARGE', budget: 'MAX_RESPONSE_BYTES', limit: BUDGET });
  expect(refused.errors?.[0]?.message).toContain('MAX_RESPONSE_BYTES');
  // Before the budget this request grew the server by ~2 GB; a refusal reads nothing large.
  expect(rssAfter - rssBefore).toBeLessThan(150 * MiB);
  for (const answer of served) expect([answer.errors, (answer.data as Json).viewer.id]).toEqual([undefined, expect.any(String)]);
});

it('refuses a single blob larger than the budget, and serves one within it', async () => {
  const one = await t.gql(`{ blob(hash: "${big.hash}") { __typename } }`, {}, t.keys.read);
  expect(one.errors?.[0]?.extensions).toMatchObject({ code: 'RESPONSE_TOO_LARGE', requested: Buffer.byteLength(big.text) });
  const small = `${'s'.repeat(3 * MiB)}`;
  const { hash } = await storeBlob(small);
  const two = await t.gql(aliased(2, `blob(hash: "${hash}") { ... on Blob { sizeBytes content } }`), {}, t.keys.read);
  expect(two.errors).toBeUndefined();
  expect((two.data as Json).a1.content).toBe(small);
  const three = await t.gql(aliased(3, `blob(hash: $h) { __typename }`).replace('query {', 'query($h: String!) {'), { h: hash }, t.keys.read);
  expect(three.errors?.[0]?.extensions).toMatchObject({ code: 'RESPONSE_TOO_LARGE', requested: 3 * 3 * MiB });
});

it('charges Step.contentRefs { content } at its stored size before reading it', async () => {
  const text = 'c'.repeat(2 * MiB + 1);
  const { episodeId } = await storeBlob(text);
  const field = `episode(id: "${episodeId}") { ... on Episode { steps(first: 1) { edges { node { contentRefs { sizeBytes content } } } } } }`;
  const answer = await t.gql(aliased(30, field), {}, t.keys.read);
  const contents = Object.values(answer.data as Record<string, Json>).map((e) => e.steps.edges[0].node.contentRefs[0].content);
  const served = contents.filter((c) => c !== null);
  // 2 MiB + 1 byte each: three fit in 8 MiB, the fourth would pass it.
  expect(served).toHaveLength(3);
  expect(served.every((c) => c === text)).toBe(true);
  const refusals = answer.errors ?? [];
  expect(refusals).toHaveLength(27);
  for (const e of refusals) expect(e.extensions).toMatchObject({ code: 'RESPONSE_TOO_LARGE', budget: 'MAX_RESPONSE_BYTES', limit: BUDGET });
});

it('refuses 30 aliased steps pages of a 9.9 MB inline episode before reading their content, with memory flat', async () => {
  const api = clientFor(t, t.keys.write);
  const episode = unwrap(await api.startEpisode({ taskDescription: 'large inline outputs', taskType: 'budget' })).episode;
  // 333 steps of 29,700-byte outputs, inline (under the 1 MiB output limit): the audit's 9.9 MB episode.
  const output = (i: number) => String(i % 10).repeat(29_700);
  for (let from = 0; from < 333; from += 111) {
    const steps = Array.from({ length: 111 }, (_, i) => ({ tool: 'sh', result: { kind: 'SUCCESS' as const, output: output(from + i) } }));
    expect(unwrap(await api.logSteps(episode.id, steps)).accepted).toBe(111);
  }
  const page = (first: number, fields: string) => `episode(id: "${episode.id}") { ... on Episode { steps(first: ${first}) { edges { node { ${fields} } } } } }`;
  const rssBefore = process.memoryUsage().rss;
  const refused = await t.gql(aliased(30, page(333, 'result')), {}, t.keys.read);
  expect(process.memoryUsage().rss - rssBefore).toBeLessThan(150 * MiB);
  // The 30 pages together hold ~297 MB: the request is refused as a whole before any of it runs, with one error.
  expect(refused.data ?? null).toBeNull();
  expect(refused.errors).toHaveLength(1);
  expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'RESPONSE_TOO_LARGE', budget: 'MAX_RESPONSE_BYTES', limit: BUDGET });
  expect(refused.errors?.[0]?.extensions?.requested).toBeGreaterThan(30 * 333 * 29_700);
  expect(refused.errors?.[0]?.message).toContain('MAX_RESPONSE_BYTES');
  // Pages within the budget together are served (100 steps: ~3 MB; two fit, three do not), and a page without content is not charged.
  const served = await t.gql(aliased(2, page(100, 'stepNumber result')), {}, t.keys.read);
  expect(served.errors).toBeUndefined();
  for (const p of Object.values(served.data as Record<string, Json>)) expect(p.steps.edges[99].node.result.output).toBe(output(99));
  const three = await t.gql(aliased(3, page(100, 'stepNumber result')), {}, t.keys.read);
  expect([three.data ?? null, three.errors?.length, three.errors?.[0]?.extensions?.code]).toEqual([null, 1, 'RESPONSE_TOO_LARGE']);
  const ids = await t.gql(aliased(30, page(333, 'id stepNumber')), {}, t.keys.read);
  expect(ids.errors).toBeUndefined();
  expect((ids.data as Json).a29.steps.edges).toHaveLength(333);
});

it('streams a blob of any size with GET /blobs/<hash>, with byte ranges, to its own tenant only', async () => {
  const whole = await download(big.hash, t.keys.read);
  expect(whole.status).toBe(200);
  expect(whole.headers.get('accept-ranges')).toBe('bytes');
  expect(whole.headers.get('content-length')).toBe(String(Buffer.byteLength(big.text)));
  const body = Buffer.from(await whole.arrayBuffer());
  expect(createHash('sha256').update(body).digest('hex')).toBe(createHash('sha256').update(big.text).digest('hex'));

  const middle = await download(big.hash, t.keys.read, { range: 'bytes=1048570-1048580' });
  expect(middle.status).toBe(206);
  expect(middle.headers.get('content-range')).toBe(`bytes 1048570-1048580/${Buffer.byteLength(big.text)}`);
  expect(await middle.text()).toBe(big.text.slice(1048570, 1048581));
  const tail = await download(big.hash, t.keys.read, { range: 'bytes=-3' });
  expect([tail.status, await tail.text()]).toEqual([206, 'end']);
  const beyond = await download(big.hash, t.keys.read, { range: `bytes=${Buffer.byteLength(big.text)}-` });
  expect(beyond.status).toBe(416);
  expect(beyond.headers.get('content-range')).toBe(`bytes */${Buffer.byteLength(big.text)}`);

  const utf8 = `é${'x'.repeat(1.5 * MiB)}€`;
  const { hash } = await storeBlob(utf8);
  const euro = await download(hash, t.keys.read, { range: 'bytes=-3' });
  expect(await euro.text()).toBe('€');

  expect((await download(big.hash, null)).status).toBe(401);
  expect((await download(big.hash, 'epk_nope_nope')).status).toBe(401);
  const outsider = await t.addTenant('blob-outsider');
  expect((await download(big.hash, outsider.read)).status).toBe(404);
  expect((await download('not-a-hash', t.keys.read)).status).toBe(404);
});
