import { readFile } from 'node:fs/promises';
import { printSchema } from 'graphql';
import { expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.ts';

it('schema.graphql is the printed schema (run `npm run print-schema` after changing types)', async () => {
  const committed = await readFile('schema.graphql', 'utf8');
  expect(committed).toBe(`${printSchema(schema)}\n`);
});
