// A call's steps are prepared (redacted, sized) and hashed before the group commit; the hashes are
// the ones the ledger verifier recomputes from the stored rows (stepContentHash on the lowercase id).
import { describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { prepareStep, prepareSteps, stepContentHash } from '../../src/steps/prepare.ts';

const EPISODE = '3f1d9c2e-8a4b-4c5d-9e0f-0123456789ab';
/** A fixed salt, where a test compares hashes of two preparations (each draws fresh salts). */
const fixedSalt = () => 'cd'.repeat(16);
const steps = Array.from({ length: 30 }, (_, i) => ({
  kind: i % 3 ? 'tool_call' : 'thought',
  tool: `tool-${i % 5}`,
  parameters: { path: `f${i}.ts`, token: `t${i}`, nested: { n: i, ok: i % 2 === 0 } },
  observation: `saw ${i} \u00e9\u{1F600}`,
  tokens: i,
  cost: i / 7,
}));

describe('prepareSteps', () => {
  it('redacts, sizes and hashes each step as the verifier recomputes it, in order', () => {
    const prepared = prepareSteps(EPISODE, steps, ['token']);
    expect(prepared.map((p) => p.parameters)).toEqual(steps.map((s) => ({ ...s.parameters, token: '[REDACTED]' })));
    for (const [i, p] of prepared.entries()) {
      const { contentHash, blobs, ...step } = p;
      expect(blobs).toEqual([]);
      expect(step.salt).toMatch(/^[0-9a-f]{32}$/);
      expect(step).toEqual({ ...prepareStep(must(steps[i]), ['token']), salt: step.salt });
      expect(contentHash).toBe(stepContentHash(EPISODE, step));
    }
    expect(new Set(prepared.map((p) => p.contentHash)).size).toBe(steps.length);
    expect(new Set(prepared.map((p) => p.salt)).size).toBe(steps.length);
  });

  it('hashes an episode id sent in upper case as the uuid column stores it', () => {
    const upper = prepareSteps(EPISODE.toUpperCase(), steps, ['token'], fixedSalt);
    expect(upper.map((p) => p.contentHash)).toEqual(prepareSteps(EPISODE, steps, ['token'], fixedSalt).map((p) => p.contentHash));
  });

  it('takes offloaded steps with their content references and blobs, mixed with plain steps', () => {
    const text = 'x'.repeat(20_000);
    const blob = { hash: 'cd'.repeat(32), content: text, sizeBytes: 20_000 };
    const refs = { observation: { hash: blob.hash, sizeBytes: 20_000, stored: true } };
    const second = must(steps[1], 'second step');
    const offloaded = { step: { ...second, observation: null }, refs, blobs: [blob] };
    const [plain, withBlob] = prepareSteps(EPISODE, [must(steps[0], 'first step'), offloaded], ['token']);
    expect(plain?.blobs).toEqual([]);
    expect(plain?.contentRefs).toBeNull();
    const { contentHash, blobs, ...step } = must(withBlob, 'prepared offloaded step');
    expect(blobs).toEqual([blob]);
    expect(step).toEqual({ ...prepareStep(offloaded.step, ['token'], refs), salt: step.salt });
    expect(step.contentRefs).toEqual(refs);
    expect(step.kind).toBe(second.kind);
    expect(contentHash).toBe(stepContentHash(EPISODE, step));
  });

  it('binds the hash to the episode', () => {
    const other = prepareSteps('0b8e2f4a-1c3d-4e5f-8a9b-c0d1e2f3a4b5', steps.slice(0, 1), ['token'], fixedSalt);
    expect(must(other[0]).contentHash).not.toBe(must(prepareSteps(EPISODE, steps.slice(0, 1), ['token'], fixedSalt)[0]).contentHash);
  });
});
