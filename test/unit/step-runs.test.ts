// step-runs.ts: a page's step entries as runs of step numbers per episode, and the slot table that
// finds an entry's row among the rows PostgreSQL sent (each starting with its run and step number,
// in any order), without a map or a string per row.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FieldRows } from '../../src/ledger/verification/copy-rows.ts';
import { runsOf, type StepKey, stepKeys, stepRowOf, storedSteps } from '../../src/ledger/verification/step-runs.ts';
import { fieldRows } from '../support/copy-binary.ts';

const A = '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9';
const B = '5f0c6b7e-3d2a-4c1b-9e8f-7a6b5c4d3e2f';
const utf8 = new TextEncoder();

/** A binary COPY row of int4 fields, then a text field (step-check.ts reads the rest). */
function copyRow(ints: number[], text: string): Uint8Array {
  const tail = utf8.encode(text);
  const row = new Uint8Array(2 + 8 * ints.length + 4 + tail.length);
  const view = new DataView(row.buffer);
  view.setInt16(0, ints.length + 1);
  ints.forEach((n, i) => {
    view.setInt32(2 + 8 * i, 4);
    view.setInt32(6 + 8 * i, n);
  });
  view.setInt32(2 + 8 * ints.length, tail.length);
  row.set(tail, 6 + 8 * ints.length);
  return row;
}

/** Rows as the step read returns them, in the given order: for each run, the stored steps it covers. */
function rowsFor(keys: StepKey[], stored: Set<string>, order: (n: number) => number = (i) => i): FieldRows {
  const runs = runsOf(stepKeys(keys));
  const made: { row: Uint8Array; text: string }[] = [];
  runs.episodes.forEach((episodeId, r) => {
    for (let n = runs.lo[r] as number; n <= (runs.hi[r] as number); n++)
      if (stored.has(`${episodeId}/${n}`)) made.push({ row: copyRow([r, n], `${episodeId}/${n}`), text: `${episodeId}/${n}` });
  });
  made.sort((a, b) => order(made.indexOf(a)) - order(made.indexOf(b)));
  return fieldRows(made.map((m) => m.row));
}

/** The text field that ends row i. */
const textOf = (rows: FieldRows, i: number) => {
  const end = rows.ends[i] as number;
  const text = rows.bytes.subarray(rows.starts[i], end);
  return new TextDecoder().decode(text.subarray(text.length - (text.length - 2 - 16 - 4)));
};

describe('runsOf', () => {
  it('joins step numbers of an episode within the gap, in key order', () => {
    const runs = runsOf(
      stepKeys([
        { episodeId: A, n: 1 },
        { episodeId: A, n: 2 },
        { episodeId: B, n: 1 },
        { episodeId: A, n: 9 },
        { episodeId: A, n: 40 },
        { episodeId: A, n: 3 },
      ]),
    );
    // 3 comes after A's run moved on to 40: a run of its own (rows may be read twice, never missed).
    expect(runs.episodes).toEqual([A, B, A, A]);
    expect(runs.lo).toEqual([1, 1, 40, 3]);
    expect(runs.hi).toEqual([9, 1, 40, 3]);
    expect([...runs.keyRun]).toEqual([0, 0, 1, 0, 2, 3]);
  });

  it('puts a step number step_number cannot hold in no run', () => {
    const runs = runsOf(
      stepKeys([
        { episodeId: A, n: 2 ** 31 },
        { episodeId: A, n: 1.5 },
        { episodeId: A, n: Number.NaN },
        { episodeId: A, n: 7 },
      ]),
    );
    expect([...runs.keyRun]).toEqual([-1, -1, -1, 0]);
    expect(runs.episodes).toEqual([A]);
  });
});

describe('stepRowOf', () => {
  it("finds every entry's stored row, and no row for an absent step", () => {
    const keyArb = fc.record({ episodeId: fc.constantFrom(A, B), n: fc.integer({ min: -3, max: 60 }) });
    fc.assert(
      fc.property(fc.array(keyArb, { maxLength: 60 }), fc.func(fc.boolean()), fc.func(fc.integer()), (keys, isStored, order) => {
        const stored = new Set(keys.filter((k) => isStored(k)).map((k) => `${k.episodeId}/${k.n}`));
        const steps = storedSteps(rowsFor(keys, stored, order), runsOf(stepKeys(keys)));
        keys.forEach((k, i) => {
          const row = stepRowOf(steps, i, k.n);
          if (stored.has(`${k.episodeId}/${k.n}`)) expect(textOf(steps, row)).toBe(`${k.episodeId}/${k.n}`);
          else expect(row).toBe(-1);
        });
      }),
    );
  });

  it('ignores a row outside its run or without a readable run and step number', () => {
    const keys = [{ episodeId: A, n: 5 }];
    const rows = rowsFor(keys, new Set([`${A}/5`]));
    const steps = storedSteps(rows, runsOf(stepKeys(keys)));
    expect(stepRowOf(steps, 0, 5)).toBe(0);
    const short = copyRow([0, 5], 'x').subarray(0, 12);
    const wide = copyRow([0, 5], 'x');
    new DataView(wide.buffer).setInt32(10, 8); // the step number's field is not 4 bytes
    for (const row of [copyRow([0, 6], 'x'), copyRow([1, 5], 'x'), copyRow([-1, 5], 'x'), short, wide]) {
      expect(stepRowOf(storedSteps(fieldRows([row]), runsOf(stepKeys(keys))), 0, 5)).toBe(-1);
    }
  });
});
