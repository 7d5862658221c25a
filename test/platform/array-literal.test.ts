// unnestAs' own array literals (db/sql.ts arrayLiteral) read back by PostgreSQL as the same arrays
// pg's encoding of the values gives, for every element type the statements pass.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrayLiteral } from '../../src/db/sql.ts';
import { serverUrl } from '../support/db.ts';

let client: pg.Client;
beforeAll(async () => {
  client = new pg.Client({ connectionString: serverUrl() });
  await client.connect();
});
afterAll(() => client.end());

const cases: Array<[string, unknown[]]> = [
  ['text', ['', 'NULL', null, 'a "quoted" word', 'back\\slash\\', '{braces}, commas', ' spaced ', 'line\nbreak\ttab', 'ünïcödé 😀', undefined]],
  ['jsonb', [JSON.stringify({ a: 'x"y\\z', b: [1, null] }), null, '"just a string"', '[]']],
  ['uuid', ['00000000-0000-4000-8000-000000000001', null]],
  ['int', [0, -1, 2147483647, null]],
  ['int8', [9007199254740991, -5, null]],
  ['float8', [0.1, -0, 1e-7, 1.7976931348623157e308, Number.NaN, Number.POSITIVE_INFINITY, null]],
  ['bool', [true, false, null]],
  ['timestamptz', [new Date('2026-12-03T13:00:00.123Z'), null]],
];

describe('arrayLiteral', () => {
  it.each(cases)('%s: the same array as pg encodes', async (type, values) => {
    const literal = arrayLiteral(values, type);
    expect(typeof literal).toBe('string');
    const { rows } = await client.query(
      `SELECT $1::${type}[]::text AS ours, $2::${type}[]::text AS pgs, $1::${type}[] IS NOT DISTINCT FROM $2::${type}[] AS same`,
      [literal, values],
    );
    expect(rows[0].ours).toBe(rows[0].pgs);
    expect(rows[0].same).toBe(true);
  });

  it('leaves arrays of arrays, objects and dates of other types to pg', () => {
    const nested = [['a'], ['b']];
    expect(arrayLiteral(nested, 'text[]')).toBe(nested);
    const objects = [{ a: 1 }];
    expect(arrayLiteral(objects, 'jsonb')).toBe(objects);
    const dates = [new Date()];
    expect(arrayLiteral(dates, 'timestamp')).toBe(dates);
    const invalid = [new Date(Number.NaN)];
    expect(arrayLiteral(invalid, 'timestamptz')).toBe(invalid);
  });
});
