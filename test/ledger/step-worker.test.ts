// The step check off the main thread (src/ledger/step-checker.ts): a batch large enough to go to
// the worker gets the verdict the same check gives inline (step-check.ts), on good rows, on rows
// whose content or content_hash column was changed, on missing rows, and the same error on a row
// that is not the JSON the read asks for. Verifications of small ledgers check inline, so this is
// what exercises the worker.
import { describe, expect, it } from 'vitest';
import { checkStepBatch, type StepBatch } from '../../src/ledger/step-check.ts';
import { checkSteps, stepWorkerReady } from '../../src/ledger/step-checker.ts';
import { STEP_CANONICAL_FIELDS, stepRowHash } from '../../src/ledger/step-hash.ts';

const episodeId = '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9';
const utf8 = new TextEncoder();

/** Step n's row: the hashed record, and its text as the step read gets it (times as epoch ms, cost as text). */
function step(n: number): { hash: string; text: string } {
  const record: Record<string, unknown> = {
    episodeId,
    kind: 'tool_call',
    tool: 'bash',
    action: `run ${n}`,
    parameters: { command: `grep -rn "x${n}" src/`, flags: [n, 1.5, true] },
    argsHash: null,
    resultKind: 'success',
    result: { output: `line\n${'é'.repeat(n % 5)}`, exitCode: 0 },
    observation: null,
    latencyMs: n,
    tokens: 100 + n,
    cost: n / 1000,
    sideEffectKey: null,
    worldBefore: null,
    worldAfter: { cwd: '/repo' },
    metadata: null,
    ...(n % 3 === 0 ? { startedAt: new Date(1_700_000_000_000 + n).toISOString() } : {}),
  };
  const hash = stepRowHash(record);
  const value = (field: string) => {
    const v = record[field] ?? null;
    if (v !== null && (field === 'startedAt' || field === 'endedAt')) return Date.parse(v as string);
    return field === 'cost' ? String(v) : v;
  };
  const members = STEP_CANONICAL_FIELDS.map(({ field }) => JSON.stringify(value(field)));
  return { hash, text: `[${n}, ${JSON.stringify(hash)}, ${members.join(', ')}]` };
}

/** A batch of `count` steps; `edit` may change a row's text or logged hash, or drop the row (null). */
function batch(count: number, edit: (n: number, row: { hash: string; text: string }) => { hash: string; text: string } | null = (_, r) => r): StepBatch {
  const rows = Array.from({ length: count }, (_, i) => edit(i + 1, step(i + 1)));
  const texts = rows.map((r) => utf8.encode(r?.text ?? ''));
  const bytes = new Uint8Array(texts.reduce((n, t) => n + t.length + 1, 0));
  const starts = new Int32Array(count);
  const ends = new Int32Array(count);
  let at = 0;
  texts.forEach((t, k) => {
    bytes.set(t, at);
    starts[k] = rows[k] ? at : -1;
    ends[k] = rows[k] ? at + t.length : -1;
    at += t.length + 1;
  });
  return { bytes, wellFormed: true, starts, ends, hashes: rows.map((r, k) => r?.hash ?? step(k + 1).hash) };
}

/** The verdict inline (on a copy: the worker takes the batch's bytes). */
const inline = (b: StepBatch) => checkStepBatch({ ...b, bytes: b.bytes.slice() });

describe('step checks on the worker thread', () => {
  it('starts the worker', async () => {
    expect(await stepWorkerReady()).toBe(true);
  });

  it('gives the inline verdict on good, changed and missing rows', async () => {
    const cases: StepBatch[] = [
      batch(2_500),
      batch(2_500, (n, r) => (n === 1_777 ? { ...r, text: r.text.replace('"run ', '"ran ') } : r)),
      batch(2_500, (n, r) => (n === 2_001 ? { ...r, text: r.text.replace(r.hash, r.hash.replace(/^./, 'f')) } : r)),
      batch(2_500, (n, r) => (n === 2_400 ? null : r)),
    ];
    const verdicts = [
      { checked: 2_500 },
      { checked: 1_776, bad: { entry: 1_776, problem: 'content-differs' } },
      { checked: 2_000, bad: { entry: 2_000, problem: 'column-differs' } },
      { checked: 2_399, bad: { entry: 2_399, problem: 'step-missing' } },
    ];
    for (const [i, b] of cases.entries()) {
      const expected = inline(b);
      expect(expected).toEqual(verdicts[i]);
      expect(await checkSteps(b)).toEqual(expected);
      expect(b.bytes.byteLength).toBe(0); // moved to the worker, not copied
    }
  });

  it('fails with the inline error on a row that is not a step row', async () => {
    const b = batch(2_500, (n, r) => (n === 3 ? { ...r, text: '[3, "x"]' } : r));
    expect(() => inline(b)).toThrow('step row ends early');
    await expect(checkSteps(b)).rejects.toThrow('step row ends early');
  });
});
