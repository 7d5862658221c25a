// The pages of inline step content an operation reads: each `episode(id:) { steps(...) { edges {
// node { <content> } } } }` at the top of a query (every alias, through fragments), with the rows
// Pothos will ask Prisma for (take/cursor as prismaCursorConnectionQuery derives them). The byte
// budget sums their stored sizes before the operation runs (response-budget.ts): 30 aliased pages
// of a 9.9 MB episode were refused one alias at a time, after 60 statements and ~10,000 size rows
// (~100 ms of the event loop per request). A page this cannot place (a conditional field, a bad
// argument or cursor) counts nothing here: its resolver still charges it (src/graphql/step-page.ts).
import { getConnectionPageSize } from '@pothos/core';
import { parsePrismaCursor } from '@pothos/plugin-prisma';
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  GraphQLIncludeDirective,
  type GraphQLObjectType,
  type GraphQLSchema,
  GraphQLSkipDirective,
  getArgumentValues,
  getDirectiveValues,
  Kind,
  type OperationDefinitionNode,
} from 'graphql';
import { isUuid } from '../core/ids.ts';
import { pageSizeOf } from '../graphql/page-size.ts';
import { fieldsOf, selectsStepContent } from '../graphql/step-page.ts';
import type { StepPage } from '../steps/page-sizes.ts';
import { perDocument } from './per-document.ts';

type Variables = Record<string, unknown>;

/** An `episode` field of the operation's root and one `steps` field under it that selects content. */
interface PageField {
  episode: FieldNode;
  steps: FieldNode;
}

/** Per operation name ('' for an anonymous one), the page fields of each query of the document. */
const pageFieldsOf = perDocument((document: DocumentNode): Map<string, PageField[]> => {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const byOperation = new Map<string, PageField[]>();
  for (const d of document.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION || d.operation !== 'query') continue;
    byOperation.set(d.name?.value ?? '', operationPageFields(d, fragments));
  }
  return byOperation;
});

/** The key a field answers under: graphql-js merges fields of one key at one level into one execution, so each is counted once. */
const keyOf = (field: FieldNode) => field.alias?.value ?? field.name.value;

function operationPageFields(operation: OperationDefinitionNode, fragments: Record<string, FragmentDefinitionNode>): PageField[] {
  const byKey = new Map<string, Map<string, PageField & { content: boolean }>>();
  for (const episode of fieldsOf(operation.selectionSet, fragments)) {
    if (episode.name.value !== 'episode') continue;
    const pages = byKey.get(keyOf(episode)) ?? new Map<string, PageField & { content: boolean }>();
    byKey.set(keyOf(episode), pages);
    for (const steps of fieldsOf(episode.selectionSet, fragments)) {
      if (steps.name.value !== 'steps') continue;
      const content = selectsStepContent({ fieldNodes: [steps], fragments });
      const known = pages.get(keyOf(steps));
      if (!known) pages.set(keyOf(steps), { episode, steps, content });
      else known.content ||= content;
    }
  }
  return [...byKey.values()].flatMap((pages) => [...pages.values()].filter((p) => p.content).map(({ episode, steps }) => ({ episode, steps })));
}

/** False for a field an @skip / @include leaves out (or whose condition cannot be read: execution refuses it). */
function included(node: FieldNode, variables: Variables): boolean {
  try {
    if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
    return getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false;
  } catch {
    return false;
  }
}

function argumentsOf(field: GraphQLField<unknown, unknown>, node: FieldNode, variables: Variables): Record<string, unknown> | null {
  try {
    return getArgumentValues(field, node, variables);
  } catch {
    return null; // graphql-js refuses the operation itself
  }
}

/** The rows Pothos reads for this page (prismaCursorConnectionQuery), or null where it would refuse the arguments. */
function pageRows(steps: GraphQLField<unknown, unknown>, args: Record<string, unknown>): Omit<StepPage, 'episodeId'> | null {
  const { first, last, after, before } = args as { first?: number | null; last?: number | null; after?: string | null; before?: string | null };
  if ((first ?? 0) < 0 || (last ?? 0) < 0 || (before != null && (after != null || first != null)) || (after != null && last != null)) return null;
  const size = pageSizeOf(steps);
  const { limit } = getConnectionPageSize({ args: { first, last }, defaultSize: size?.defaultSize, maxSize: size?.maxSize });
  const backward = before != null || last != null;
  const raw = before ?? after;
  if (raw == null) return { take: limit, backward, cursor: null };
  let cursor: unknown;
  try {
    cursor = parsePrismaCursor(raw);
  } catch {
    return null;
  }
  return isUuid(cursor) ? { take: limit, backward, cursor } : null;
}

/** The step pages with content the chosen operation of the document reads, for these variables. */
export function stepPagesIn(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, variables: Variables): StepPage[] {
  const byOperation = pageFieldsOf(document);
  const fields = operationName ? byOperation.get(operationName) : byOperation.size === 1 ? [...byOperation.values()][0] : undefined;
  const episodeField = schema.getQueryType()?.getFields().episode;
  const stepsField = (schema.getType('Episode') as GraphQLObjectType | undefined)?.getFields().steps;
  if (!fields?.length || !episodeField || !stepsField) return [];
  const pages: StepPage[] = [];
  for (const { episode, steps } of fields) {
    if (!included(episode, variables) || !included(steps, variables)) continue;
    const id = argumentsOf(episodeField, episode, variables)?.id;
    const args = argumentsOf(stepsField, steps, variables);
    const rows = args && pageRows(stepsField, args);
    if (isUuid(id) && rows) pages.push({ episodeId: id, ...rows });
  }
  return pages;
}
