// The generated types follow schema.graphql: `npm run codegen` would write what is committed
// (web/src/generated, src/client/generated), and every document the client, the importer and the
// MCP tools send is valid against the schema (the monitor's are checked by codegen itself, which
// fails on a document the schema does not answer).
import { readFileSync } from 'node:fs';
import { generate } from '@graphql-codegen/cli';
import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { CODEGEN_CONFIG } from '../../scripts/codegen.ts';
import { DOCUMENTS } from '../../src/client/documents.ts';
import { IMPORT_DOCUMENTS } from '../../src/import/documents.ts';
import { OPERATIONS } from '../../src/mcp/operations.ts';

const schema = buildSchema(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'));

describe('generated GraphQL types', () => {
  it("are what `npm run codegen` writes from schema.graphql and the monitor's documents (run it after a schema change)", async () => {
    const outputs = (await generate(CODEGEN_CONFIG, false)) as Array<{ filename: string; content: string }>;
    expect(outputs.length).toBeGreaterThan(2);
    for (const { filename, content } of outputs) {
      expect(readFileSync(filename, 'utf8'), `${filename} is stale: npm run codegen`).toBe(content);
    }
  }, 60_000);

  it.each([
    ['client', DOCUMENTS],
    ['import', IMPORT_DOCUMENTS],
    ['mcp', OPERATIONS],
  ])('the %s documents are valid against schema.graphql', (_, documents) => {
    for (const [name, source] of Object.entries(documents)) {
      const problems = validate(schema, parse(String(source))).map((e) => e.message);
      expect(problems, name).toEqual([]);
    }
  });
});
