// Heavy reads paced by their bytes while another key is active (issue 50, src/core/paced-work.ts):
// one key's large answers and blob downloads leave at most ~16 MiB/s while another tenant's key is
// at work, so that key's requests find the cores free. The bounds here are lower bounds only (the
// pacing's waits), which load cannot break; on a busy machine an unpaced read may be as slow (at
// load 12: 171 ms for the answer, 376 ms for the download unpaced, 393 / 449 ms paced), so the
// logic itself is tested in test/unit/paced-work.test.ts. Real server, real PostgreSQL.
import { expect, it } from 'vitest';
import { unwrap } from '../../src/client/index.ts';
import { blobHash } from '../../src/steps/large-content.ts';
import { clientFor } from '../client/support.ts';
import { type TestApp, useApp } from '../support/app.ts';
import type { Json } from '../support/json.ts';

let t: TestApp;
useApp((app) => (t = app));

const MiB = 1024 * 1024;

/** Another tenant's key asking `{ viewer { id } }` every 100 ms until stopped: it stays active. */
async function bystander(): Promise<{ stop(): Promise<void> }> {
  const other = await t.addTenant('paced-bystander');
  await t.gql('{ viewer { id } }', {}, other.read);
  let running = true;
  const loop = (async () => {
    while (running) {
      await t.gql('{ viewer { id } }', {}, other.read);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
  };
}

it('sends one key a large answer and a download no faster than 16 MiB/s while another key is active, content whole', async () => {
  const text = `${'p'.repeat(4 * MiB)}end`;
  const api = clientFor(t, t.keys.write);
  const episode = unwrap(await api.startEpisode({ taskDescription: 'paced', taskType: 'fairness' })).episode;
  unwrap(await api.logSteps(episode.id, [{ tool: 'shell', result: { kind: 'SUCCESS', output: text } }], { largeContent: 'BLOB' }));
  const hash = blobHash(text);
  const other = await bystander();
  try {
    // 4 MiB in 16 slices of 256 Ki characters: the first at once, then one per ~15.6 ms.
    let started = performance.now();
    const answer = await t.gql(`{ blob(hash: "${hash}") { ... on Blob { content } } }`, {}, t.keys.read);
    const answered = performance.now() - started;
    expect(answer.errors).toBeUndefined();
    expect((answer.data as Json).blob.content).toBe(text);
    expect(answered).toBeGreaterThanOrEqual(200);
    // GET /blobs/<hash>: 5 chunks of 1 MiB, the first at once, then one per ~62.5 ms.
    started = performance.now();
    const download = await fetch(t.url.replace('/graphql', `/blobs/${hash}`), { headers: { authorization: `Bearer ${t.keys.read}` } });
    expect(await download.text()).toBe(text);
    expect(performance.now() - started).toBeGreaterThanOrEqual(200);
  } finally {
    await other.stop();
  }
});
