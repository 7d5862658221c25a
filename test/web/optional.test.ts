// The learning fields (reward, reflection, patterns) are selected from introspection: whatever
// shape the schema gives them, the selection is valid; without them, or without introspection,
// there is nothing to select.
import { buildSchema, type GraphQLSchema, graphql, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import { optionalEpisodeSelection, type Query } from '../../web/src/optional.ts';

function queryOf(schema: GraphQLSchema): Query {
  return async <T>(source: string, variableValues?: Record<string, unknown>) => {
    const result = await graphql({ schema, source, variableValues });
    if (result.errors) throw new Error(must(result.errors[0]).message);
    return result.data as T;
  };
}

const withLearning = buildSchema(`
  type Query { episode(id: ID!): Episode }
  type Episode { id: ID taskType: String reward: Reward reflection: Reflection patterns: [Pattern!]! }
  type Reward { total: Float normalized: Float components: RewardComponents }
  type RewardComponents { base: Float efficiency: Float detail: Detail }
  type Detail { note: String }
  type Reflection { successes: [String!] improvements: [String!] insights: [String!] }
  type Pattern { id: ID kind: String successRate: Float sourceEpisode: Episode episodes(first: Int!): [Episode!] }
`);

describe('optional episode fields', () => {
  it('selects what the schema offers, two levels deep, skipping episodes and required arguments', async () => {
    const selection = await optionalEpisodeSelection(queryOf(withLearning));
    expect(selection).toBe(
      'reward { total normalized components { base efficiency } } reflection { successes improvements insights } patterns { id kind successRate }',
    );
    expect(validate(withLearning, parse(`{ episode(id: "x") { ${selection} } }`))).toEqual([]);
  });

  it('selects nothing when the schema lacks the fields or refuses introspection', async () => {
    expect(await optionalEpisodeSelection(queryOf(buildSchema('type Query { episode: Episode } type Episode { id: ID }')))).toBe('');
    expect(await optionalEpisodeSelection(() => Promise.reject(new Error('introspection is disabled')))).toBe('');
  });
});
