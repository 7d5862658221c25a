// Which selections read stored content (charged to MAX_RESPONSE_BYTES before the read): the pure
// readers of a field's selection, through fragments, for steps and for an episode's texts.
import { type FieldNode, type FragmentDefinitionNode, Kind, type OperationDefinitionNode, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { selectedEpisodeTexts } from '../../src/graphql/episode-budget.ts';
import { selectsOwnStepContent, selectsStepContent } from '../../src/graphql/step-page.ts';

/** The info of the document's first root field, as a resolver sees it. */
function infoOf(document: string): { fieldNodes: FieldNode[]; fragments: Record<string, FragmentDefinitionNode> } {
  const parsed = parse(document);
  const operation = parsed.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const fragments = Object.fromEntries(
    parsed.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]),
  );
  return { fieldNodes: [operation?.selectionSet.selections[0] as FieldNode], fragments };
}

describe('step content', () => {
  it('sees a content field of one step, inside a union member or a fragment', () => {
    expect(selectsOwnStepContent(infoOf('{ episodeStep { ... on Step { result } } }'))).toBe(true);
    expect(selectsOwnStepContent(infoOf('{ episodeStep { ...S } } fragment S on Step { observation }'))).toBe(true);
    expect(selectsOwnStepContent(infoOf('{ episodeStep { ... on Step { id stepNumber tool } } }'))).toBe(false);
  });

  it('sees a content field of a page only under edges.node', () => {
    expect(selectsStepContent(infoOf('{ steps { edges { node { worldAfter } } } }'))).toBe(true);
    expect(selectsStepContent(infoOf('{ steps { edges { node { id } } pageInfo { hasNextPage } } }'))).toBe(false);
  });
});

describe('episode texts', () => {
  it('names the large fields an episode selection reads, once each', () => {
    const info = infoOf('{ episode { ... on Episode { id taskDescription metadata ...E } } } fragment E on Episode { taskDescription outcome { kind } }');
    expect(selectedEpisodeTexts(info).sort()).toEqual(['metadata', 'outcome', 'taskDescription']);
  });

  it('counts checkpoints only when their state is read, and a page under edges.node', () => {
    expect(selectedEpisodeTexts(infoOf('{ episode { ... on Episode { checkpoints { id label } } } }'))).toEqual([]);
    expect(selectedEpisodeTexts(infoOf('{ episode { ... on Episode { checkpoints { state } } } }'))).toEqual(['checkpoints']);
    expect(selectedEpisodeTexts(infoOf('{ episodes { edges { node { goalSpec } } } }'), true)).toEqual(['goalSpec']);
    expect(selectedEpisodeTexts(infoOf('{ episodes { edges { node { id status } } } }'), true)).toEqual([]);
  });
});
