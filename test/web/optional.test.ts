// The step view's extra fields (those a later part of the service adds to Step) are selected from
// introspection: whatever the schema adds, the selection is valid; with introspection refused
// there is nothing extra to select (the view keeps the fields it names, which codegen checks).
import { buildSchema, type GraphQLSchema, graphql, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { extraSelection, type Query } from '../../web/src/optional.ts';

function queryOf(schema: GraphQLSchema): Query {
  return async <T>(source: string, variableValues?: Record<string, unknown>) => {
    const result = await graphql({ schema, source, variableValues });
    if (result.errors) throw new Error(must(result.errors[0]).message);
    return result.data as T;
  };
}

const withExtras = buildSchema(`
  type Query { episodeStep(id: ID!): Step }
  type Step { id: ID kind: String contentRefs: [ContentRef!] summary: String episode: Episode page(first: Int!): [String!] }
  type ContentRef { field: String hash: String sizeBytes: Int }
  type Episode { id: ID }
`);

describe('extra step fields', () => {
  it('selects the fields beyond the known ones, objects one level deep, skipping episodes and required arguments', async () => {
    const selection = await extraSelection(queryOf(withExtras), 'Step', ['id', 'kind']);
    expect(selection).toBe('contentRefs { field hash sizeBytes } summary');
    expect(validate(withExtras, parse(`{ episodeStep(id: "x") { ${selection} } }`))).toEqual([]);
  });

  it('selects nothing when introspection is refused', async () => {
    expect(await extraSelection(() => Promise.reject(new Error('introspection is disabled')), 'Step', ['id'])).toBe('');
  });
});
