// A blob's content is read as ~1 MiB slices of its UTF-8 bytes, one statement each, by every door
// (src/steps/blob-text.ts): blob(hash) { content } (streamed into a sliced answer, issue 50), the
// whole text, and GET /blobs/<hash> with byte ranges. The text arrives whole wherever a slice cuts
// a character, a range's bytes are exact wherever it starts or ends, one key's concurrent large
// reads (one at a time per key) all complete while another key is served, and an empty or missing
// blob reads as such. Real server, real PostgreSQL.
import { expect, it } from 'vitest';
import { unwrap } from '../../src/client/index.ts';
import { Params } from '../../src/db/sql.ts';
import { blobText, blobTextSlices } from '../../src/steps/blob-text.ts';
import { blobHash } from '../../src/steps/large-content.ts';
import { clientFor } from '../client/support.ts';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';

let t: TestApp;
useApp((app) => (t = app));

const MiB = 1024 * 1024;
// 1, 2, 3 and 4-byte characters (10 bytes a round): the slice boundary (at 1 MiB, 6 bytes into a
// round) falls on a character's start, or 1, 2 or 3 bytes into one, as the prefix shifts it.
const texts = [0, 1, 2, 4, 7, 8, 9].map((prefix) => `${'x'.repeat(prefix)}${'aé€😀'.repeat(160_000)}end`);

function download(hash: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(t.url.replace('/graphql', `/blobs/${hash}`), { headers: { authorization: `Bearer ${t.keys.read}`, ...headers } });
}

async function slicesOf(hash: string): Promise<string[]> {
  const slices: string[] = [];
  for await (const slice of blobTextSlices(t.services.db.pool, t.keys.tenantId, hash)) slices.push(slice);
  return slices;
}

it('answers a multi-byte blob whole through every slice boundary, to concurrent reads of one key', async () => {
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

it('reads the same text whole and slice by slice, and downloads exact bytes of ranges that cut characters', async () => {
  for (const text of texts) {
    const hash = blobHash(text);
    const bytes = Buffer.from(text, 'utf8');
    expect((await blobText(t.services.db.pool, t.keys.tenantId, hash)) === text).toBe(true);
    const slices = await slicesOf(hash);
    expect(slices).toHaveLength(2);
    expect(slices.join('') === text).toBe(true);
    const whole = Buffer.from(await (await download(hash)).arrayBuffer());
    expect(whole.equals(bytes)).toBe(true);
    // Across the slice boundary, from and to a character start or a byte inside one (as the prefix shifts them).
    const [start, end] = [MiB - 9_995, MiB + 5_003];
    const range = await download(hash, { range: `bytes=${start}-${end}` });
    expect(range.status).toBe(206);
    expect(Buffer.from(await range.arrayBuffer()).equals(bytes.subarray(start, end + 1))).toBe(true);
  }
});

it('reads an empty blob as empty text and a missing one as none (or a broken stream)', async () => {
  const empty = blobHash('');
  const p = new Params();
  await t.services.db.pool.query(
    `INSERT INTO blobs (tenant_id, hash, content, size_bytes) VALUES (${p.add(t.keys.tenantId)}, ${p.add(empty)}, '', 0) ON CONFLICT DO NOTHING`,
    p.values,
  );
  expect(await blobText(t.services.db.pool, t.keys.tenantId, empty)).toBe('');
  expect(await slicesOf(empty)).toEqual([]);
  const download0 = await download(empty);
  expect([download0.status, download0.headers.get('content-length'), await download0.text()]).toEqual([200, '0', '']);
  const missing = blobHash('never stored');
  expect(await blobText(t.services.db.pool, t.keys.tenantId, missing)).toBeNull();
  await expect(slicesOf(missing)).rejects.toThrow(`blob ${missing} is gone`);
});
