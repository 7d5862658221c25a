// Episode.steps, a page of an episode's steps, with its inline content charged to the request's
// byte budget (MAX_RESPONSE_BYTES) before it is read: when the page selects a content field, the
// page's stored sizes (steps.size_bytes, read without the content columns) are charged first, and a
// page that would pass the budget is refused (RESPONSE_TOO_LARGE) with none of its rows read. 30
// aliased pages of one 9.9 MB episode took a 297 MB answer and 1.4 GB of server memory before.
import type { FieldNode, FragmentDefinitionNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';
import type { Prisma } from '../generated/prisma/client.ts';
import { ResponseBudgetError } from '../steps/read-budget.ts';
import type { Context } from './context.ts';
import { budgetGraphQLError } from './step-blobs.ts';

/** Step fields whose values are the step's inline content (what size_bytes measures), not its few fixed-size columns. */
const CONTENT_FIELDS: ReadonlySet<string> = new Set(['parameters', 'result', 'observation', 'worldBefore', 'worldAfter', 'metadata', 'hashedContent']);

type Fragments = Record<string, FragmentDefinitionNode>;

/** The fields of a selection set, through its fragment spreads and inline fragments. */
function fieldsOf(set: SelectionSetNode | undefined, fragments: Fragments): FieldNode[] {
  const fields: FieldNode[] = [];
  for (const selection of set?.selections ?? []) {
    if (selection.kind === 'Field') fields.push(selection);
    else if (selection.kind === 'InlineFragment') fields.push(...fieldsOf(selection.selectionSet, fragments));
    else fields.push(...fieldsOf(fragments[selection.name.value]?.selectionSet, fragments));
  }
  return fields;
}

/** The fields named `name` among `fields`' children. */
function children(fields: readonly FieldNode[], name: string, fragments: Fragments): FieldNode[] {
  return fields.flatMap((f) => fieldsOf(f.selectionSet, fragments)).filter((f) => f.name.value === name);
}

/** True when this steps page selects a content field of its nodes (edges.node.result, ...). */
export function selectsStepContent(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>): boolean {
  const nodes = children(children(info.fieldNodes, 'edges', info.fragments), 'node', info.fragments);
  return nodes.some((node) => fieldsOf(node.selectionSet, info.fragments).some((f) => CONTENT_FIELDS.has(f.name.value)));
}

/** The paging Pothos derives from first/last/after/before: the rows the page will read. */
type PageQuery = Pick<Prisma.StepFindManyArgs, 'take' | 'skip' | 'cursor'>;

/** Charges the page's stored size before its rows are read; throws RESPONSE_TOO_LARGE (nothing read) past the budget. */
export async function chargeStepPage(ctx: Context, episodeId: string, page: PageQuery): Promise<void> {
  const sizes = await ctx.db.step.findMany({
    where: { episodeId },
    orderBy: { stepNumber: 'asc' },
    take: page.take,
    skip: page.skip,
    cursor: page.cursor,
    select: { sizeBytes: true },
  });
  const bytes = sizes.reduce((sum, s) => sum + s.sizeBytes, 0);
  try {
    ctx.budget.charge(bytes, `This page of ${sizes.length} steps of episode ${episodeId}`);
  } catch (err) {
    throw err instanceof ResponseBudgetError ? budgetGraphQLError(err) : err;
  }
}
