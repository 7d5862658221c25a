// step-runs.ts: a page's step entries as runs of step numbers per episode, and the slot table that
// finds an entry's row among the rows PostgreSQL sent for its run (each text starting with its
// step number), without a map or a string per row.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GroupedRows } from '../../src/ledger/copy-rows.ts';
import { runsOf, type StepKey, stepRowOf, storedSteps } from '../../src/ledger/step-runs.ts';

const A = '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9';
const B = '5f0c6b7e-3d2a-4c1b-9e8f-7a6b5c4d3e2f';
const utf8 = new TextEncoder();

/** Rows as the step read returns them: for each run, the texts of the stored steps it covers. */
function rowsFor(keys: StepKey[], stored: Set<string>): GroupedRows {
  const runs = runsOf(keys);
  const texts: { text: string; group: number }[] = [];
  runs.episodes.forEach((episodeId, r) => {
    for (let n = runs.lo[r] as number; n <= (runs.hi[r] as number); n++)
      if (stored.has(`${episodeId}/${n}`)) texts.push({ text: `[${n}, "${episodeId}/${n}", null]`, group: r });
  });
  const bytes = utf8.encode(texts.map((t) => t.text).join('\n'));
  const rows: GroupedRows = { bytes, starts: [], ends: [], groups: [] };
  let at = 0;
  for (const { text, group } of texts) {
    rows.starts.push(at);
    rows.ends.push(at + text.length);
    rows.groups.push(group);
    at += text.length + 1;
  }
  return rows;
}

const textOf = (rows: GroupedRows, i: number) => new TextDecoder().decode(rows.bytes.subarray(rows.starts[i], rows.ends[i]));

describe('runsOf', () => {
  it('joins step numbers of an episode within the gap, in key order', () => {
    const runs = runsOf([
      { episodeId: A, n: 1 },
      { episodeId: A, n: 2 },
      { episodeId: B, n: 1 },
      { episodeId: A, n: 9 },
      { episodeId: A, n: 40 },
      { episodeId: A, n: 3 },
    ]);
    // 3 comes after A's run moved on to 40: a run of its own (rows may be read twice, never missed).
    expect(runs.episodes).toEqual([A, B, A, A]);
    expect(runs.lo).toEqual([1, 1, 40, 3]);
    expect(runs.hi).toEqual([9, 1, 40, 3]);
    expect([...runs.keyRun]).toEqual([0, 0, 1, 0, 2, 3]);
  });

  it('puts a step number step_number cannot hold in no run', () => {
    const runs = runsOf([
      { episodeId: A, n: 2 ** 31 },
      { episodeId: A, n: 1.5 },
      { episodeId: A, n: 7 },
    ]);
    expect([...runs.keyRun]).toEqual([-1, -1, 0]);
    expect(runs.episodes).toEqual([A]);
  });
});

describe('stepRowOf', () => {
  it("finds every entry's stored row, and no row for an absent step", () => {
    const keyArb = fc.record({ episodeId: fc.constantFrom(A, B), n: fc.integer({ min: -3, max: 60 }) });
    fc.assert(
      fc.property(fc.array(keyArb, { maxLength: 60 }), fc.func(fc.boolean()), (keys, isStored) => {
        const stored = new Set(keys.filter((k) => isStored(k)).map((k) => `${k.episodeId}/${k.n}`));
        const steps = storedSteps(rowsFor(keys, stored), runsOf(keys));
        keys.forEach((k, i) => {
          const row = stepRowOf(steps, i, k.n);
          if (stored.has(`${k.episodeId}/${k.n}`)) expect(textOf(steps, row)).toBe(`[${k.n}, "${k.episodeId}/${k.n}", null]`);
          else expect(row).toBe(-1);
        });
      }),
    );
  });

  it('ignores a row outside its run or without a readable step number', () => {
    const keys = [{ episodeId: A, n: 5 }];
    const rows = rowsFor(keys, new Set([`${A}/5`]));
    const steps = storedSteps(rows, runsOf(keys));
    expect(stepRowOf(steps, 0, 5)).toBe(0);
    for (const text of ['[6, "x"]', '["5", "x"]', '[5x, "x"]', '5, "x"]', '[12345678901, "x"]']) {
      const bytes = utf8.encode(text);
      const other = storedSteps({ bytes, starts: [0], ends: [bytes.length], groups: [0] }, runsOf(keys));
      expect(stepRowOf(other, 0, 5)).toBe(-1);
    }
  });
});
