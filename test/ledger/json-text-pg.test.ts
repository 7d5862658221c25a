// canonicalFromJsonBytes and JsonBytesCanonicaliser (src/ledger/format/json-text.ts) on the UTF-8 of
// PostgreSQL's own output, which verifyLedger canonicalises without parsing: jsonb as jsonb_out prints it (members by length, ", " and ": ")
// and inside json_build_array beside text, for arbitrary JSON values stored as jsonb. The result
// must be canonicalJson of the value parsed back, and of the value that was stored.
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/ledger/format/hash.ts';
import { canonicalFromJsonBytes, JsonBytesCanonicaliser } from '../../src/ledger/format/json-text.ts';
import { createEmptyDatabase, type TestDatabase } from '../support/db.ts';

let database: TestDatabase;
let client: pg.Client;
beforeAll(async () => {
  database = await createEmptyDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await database?.drop();
});

// jsonb refuses \u0000 in strings; every other JSON value is storable.
const storable = fc.jsonValue({ maxDepth: 4 }).filter((v) => !JSON.stringify(v).includes('\\u0000'));

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();
const canonicalFromJsonText = (text: string): string => utf8Decoder.decode(canonicalFromJsonBytes(utf8.encode(text)));

describe('canonicalFromJsonBytes on PostgreSQL output', () => {
  it('is canonicalJson of the stored value, from jsonb text and from json_build_array', async () => {
    const values = fc.sample(storable, { numRuns: 300, seed: 30 });
    const texts = [...values.map((v) => JSON.stringify(v)), '{"b": 1, "a": [1.0, 1e2, -0, 0.10], "é": "\\n\\t\\"x\\u001f", "aa": {"z": null, "y": true}}'];
    const { rows } = await client.query<{ jsonb: string; built: string }>(
      `SELECT v::jsonb::text AS jsonb, json_build_array('pre"fix\n', v::jsonb, 1.50::float8)::text AS built FROM unnest($1::text[]) WITH ORDINALITY AS t(v, i) ORDER BY i`,
      [texts],
    );
    rows.forEach((row, i) => {
      const stored = JSON.parse(texts[i] as string);
      expect(canonicalFromJsonText(row.jsonb)).toBe(canonicalJson(JSON.parse(row.jsonb)));
      expect(canonicalFromJsonText(row.jsonb)).toBe(canonicalJson(stored));
      const writer = new JsonBytesCanonicaliser();
      writer.begin(utf8.encode(row.built));
      writer.enterArray();
      expect(writer.more()).toBe(true);
      expect(writer.stringValue()).toBe('pre"fix\n');
      expect(writer.more()).toBe(true);
      writer.value();
      expect(utf8Decoder.decode(writer.written())).toBe(canonicalJson(stored));
      expect(writer.more()).toBe(true);
      expect(writer.numberValue()).toBe(1.5);
      expect(writer.more()).toBe(false);
      expect(writer.done()).toBe(true);
    });
  });
});
