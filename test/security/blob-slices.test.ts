// blob(hash) { content } reads the blob as 512 KiB slices of its UTF-8 bytes and sends a large
// answer in slices (issue 50): the text arrives whole wherever a slice cuts a character, and one
// key's concurrent large reads (one at a time per key) all complete while another key is served.
// Real server, real PostgreSQL.
import { expect, it } from 'vitest';
import { unwrap } from '../../src/client/index.ts';
import { blobHash } from '../../src/steps/large-content.ts';
import { clientFor } from '../client/support.ts';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';

let t: TestApp;
useApp((app) => (t = app));

it('answers a multi-byte blob whole through every slice boundary, to concurrent reads of one key', async () => {
  // 1, 2, 3 and 4-byte characters (10 bytes a round): the slice boundaries (every 524,288 bytes)
  // fall on a character's start, or 1, 2 or 3 bytes into one, as the prefix shifts them.
  const texts = ['', 'x', 'xxx', 'xxxxx'].map((prefix) => `${prefix}${'aé€😀'.repeat(160_000)}end`);
  const api = clientFor(t, t.keys.write);
  const episode = unwrap(await api.startEpisode({ taskDescription: 'multi-byte blobs', taskType: 'budget' })).episode;
  const steps = texts.map((output) => ({ tool: 'sh', result: { kind: 'SUCCESS' as const, output } }));
  unwrap(await api.logSteps(episode.id, steps, { largeContent: 'BLOB' }));
  const query = (text: string) => `{ blob(hash: "${blobHash(text)}") { __typename ... on Blob { sizeBytes content } } }`;
  const other = await t.addTenant('blob-slices-bystander');
  const first = texts[0] as string;
  const [reads, bystander] = await Promise.all([
    Promise.all([first, first, ...texts].map((text) => t.gql(query(text), {}, t.keys.read).then((answer) => ({ text, answer })))),
    t.gql('{ viewer { id } }', {}, other.read),
  ]);
  for (const { text, answer } of reads) {
    expect(answer.errors).toBeUndefined();
    const blob = (answer.data as Json).blob;
    expect(blob.sizeBytes).toBe(Buffer.byteLength(text));
    expect(blob.content === text).toBe(true);
  }
  expect((bystander.data as Json).viewer.id).toEqual(expect.any(String));
});
