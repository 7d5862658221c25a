// The arrays of the hot multi-row writes are encoded by us (src/db/sql.ts unnestAs), not by
// node-postgres: every value must reach PostgreSQL as itself, whatever characters it holds, and
// no element may split into two (the columns of an unnest would shift against each other).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrayLiteral, Params, unnestAs } from '../../src/db/sql.ts';
import { createMigratedDatabase, type MigratedDatabase } from '../support/db.ts';

let m: MigratedDatabase;
beforeAll(async () => {
  m = await createMigratedDatabase();
});
afterAll(() => m.drop());

const AWKWARD = ['plain', '', 'NULL', 'null', 'a,b', '{x}', '"quoted"', 'back\\slash', '\\"', ' spaced ', 'tab\tnew\nline', 'ünïcødé 🙂', "it's"];

describe('arrayLiteral and unnestAs', () => {
  it('send every text, number and null as itself, in row order', async () => {
    const texts = [...AWKWARD, null];
    const ints = texts.map((_, i) => (i % 3 === 0 ? null : i - 5));
    const floats = texts.map((_, i) => i / 7);
    const p = new Params();
    const sql = `SELECT t, n, f, ord FROM ${unnestAs(p, 'u', { t: [texts, 'text'], n: [ints, 'int'], f: [floats, 'float8'], ord: [texts.map((_, i) => i), 'int'] })} ORDER BY ord`;
    const { rows } = await m.db.pool.query<{ t: string | null; n: number | null; f: number }>(sql, p.values);
    expect(rows.map((r) => r.t)).toEqual(texts);
    expect(rows.map((r) => r.n)).toEqual(ints);
    expect(rows.map((r) => r.f)).toEqual(floats);
  });

  it('stores jsonb values as they were, null as SQL NULL (or as jsonb null when asked)', async () => {
    const values = [{ a: [1, '"x"', null], b: { 'k,{}': 'back\\slash' } }, null, 'text', 12.5, [], undefined, { nested: { deep: [true, false] } }];
    const p = new Params();
    const sql = `SELECT v, w, w IS NULL AS w_null, ord FROM ${unnestAs(p, 'u', {
      v: { json: values },
      w: { json: values, nulls: 'json' },
      ord: [values.map((_, i) => i), 'int'],
    })} ORDER BY ord`;
    const { rows } = await m.db.pool.query<{ v: unknown; w: unknown; w_null: boolean }>(sql, p.values);
    expect(rows.map((r) => r.v)).toEqual(values.map((v) => (v === undefined ? null : v)));
    // node-postgres reads jsonb null as null: the column held a value, not SQL NULL.
    expect(rows.map((r) => r.w_null)).toEqual(values.map(() => false));
  });

  it('leaves values it does not encode to node-postgres', () => {
    const objects = [{ a: 1 }];
    expect(arrayLiteral(objects, 'jsonb')).toBe(objects);
    expect(arrayLiteral(['a"b', 'c\\d', null, 3, true], 'text')).toBe('{"a\\"b","c\\\\d",NULL,3,true}');
  });
});
