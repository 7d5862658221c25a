import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { isStepJournalMutation } from '../../src/http/jit.ts';

describe('isStepJournalMutation (which operations graphql-jit runs)', () => {
  it('takes mutations that select only logSteps or logStep', () => {
    expect(isStepJournalMutation(parse('mutation { logSteps(episodeId: "x", steps: []) { __typename } }'))).toBe(true);
    expect(
      isStepJournalMutation(parse('mutation M { a: logStep(episodeId: "x", step: {}) { __typename } b: logSteps(episodeId: "x", steps: []) { __typename } }')),
    ).toBe(true);
  });

  it('leaves every other operation to graphql-js', () => {
    expect(isStepJournalMutation(parse('mutation { logSteps(episodeId: "x", steps: []) { __typename } completeEpisode(id: "x") { __typename } }'))).toBe(false);
    expect(isStepJournalMutation(parse('mutation { ...F } fragment F on Mutation { logSteps(episodeId: "x", steps: []) { __typename } }'))).toBe(false);
    expect(isStepJournalMutation(parse('query { logSteps { __typename } }'))).toBe(false);
    expect(isStepJournalMutation(parse('subscription { logSteps { __typename } }'))).toBe(false);
  });

  it('decides by the operation that runs when a document holds several', () => {
    const doc = parse('mutation Log { logStep(episodeId: "x", step: {}) { __typename } } query Read { __typename }');
    expect(isStepJournalMutation(doc, 'Log')).toBe(true);
    expect(isStepJournalMutation(doc, 'Read')).toBe(false);
    expect(isStepJournalMutation(doc)).toBe(false); // ambiguous without a name: graphql-js reports it
  });
});
