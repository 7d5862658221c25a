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
  // 1, 2, 3 and 4-byte characters: slice boundaries (every 524,288 bytes) fall inside some of them.
  const text = `${'aé€😀'.repeat(160_000)}end`;
  const api = clientFor(t, t.keys.write);
  const episode = unwrap(await api.startEpisode({ taskDescription: 'multi-byte blob', taskType: 'budget' })).episode;
  unwrap(await api.logSteps(episode.id, [{ tool: 'sh', result: { kind: 'SUCCESS', output: text } }], { largeContent: 'BLOB' }));
  const query = `{ blob(hash: "${blobHash(text)}") { __typename ... on Blob { sizeBytes content } } }`;
  const other = await t.addTenant('blob-slices-bystander');
  const [reads, bystander] = await Promise.all([
    Promise.all(Array.from({ length: 3 }, () => t.gql(query, {}, t.keys.read))),
    t.gql('{ viewer { id } }', {}, other.read),
  ]);
  for (const answer of reads) {
    expect(answer.errors).toBeUndefined();
    const blob = (answer.data as Json).blob;
    expect(blob.sizeBytes).toBe(Buffer.byteLength(text));
    expect(blob.content === text).toBe(true);
  }
  expect((bystander.data as Json).viewer.id).toEqual(expect.any(String));
});
