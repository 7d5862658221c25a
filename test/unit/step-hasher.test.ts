// Hashing a large batch on a worker thread gives exactly the hashes of the inline path (which the
// ledger verifier recomputes), in input order; small batches stay inline.
import { afterAll, describe, expect, it } from 'vitest';
import { StepHasher, type StepHashRow } from '../../src/steps/hasher.ts';
import { prepareStep, stepContentHash } from '../../src/steps/prepare.ts';

const EPISODE = '3f1d9c2e-8a4b-4c5d-9e0f-0123456789ab';

function rows(n: number): StepHashRow[] {
  return Array.from({ length: n }, (_, i) => ({
    episodeId: EPISODE,
    step: prepareStep(
      { kind: i % 3 ? 'tool_call' : 'thought', tool: `tool-${i % 5}`, parameters: { path: `f${i}.ts`, token: `t${i}`, nested: { n: i, ok: i % 2 === 0 } }, observation: `saw ${i} \u00e9\u{1F600}`, tokens: i, cost: i / 7 },
      ['token'],
    ),
  }));
}

const inlineHashes = (batch: StepHashRow[]) => batch.map((r) => stepContentHash(r.episodeId, r.step));

const threaded = new StepHasher(1);
afterAll(() => threaded.close());

describe('StepHasher', () => {
  it('hashes a large batch on a thread exactly as inline, in order', async () => {
    const batch = rows(200);
    const hashes = await threaded.hash(batch);
    expect(hashes).toEqual(batch.map((r) => stepContentHash(r.episodeId, r.step)));
    expect(new Set(hashes).size).toBe(200);
  });

  it('gives the same answer with no threads and for small batches', async () => {
    const inline = new StepHasher(0);
    const batch = rows(40);
    expect(await inline.hash(batch)).toEqual(inlineHashes(batch));
    expect(await threaded.hash(batch.slice(0, 3))).toEqual(inlineHashes(batch.slice(0, 3)));
  });
});

describe('StepHasher.warm', () => {
  it('hashes batches correctly after warming its thread; without threads warming resolves at once', async () => {
    const warmed = new StepHasher(1);
    try {
      await warmed.warm();
      const batch = rows(50);
      expect(await warmed.hash(batch)).toEqual(inlineHashes(batch));
    } finally {
      await warmed.close();
    }
    await new StepHasher(0).warm();
  });
});
