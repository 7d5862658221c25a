// Step content charged to the request's byte budget (MAX_RESPONSE_BYTES) before it is read, on
// every door that answers steps: a page (Episode.steps), one step (episodeStep), the steps of a
// logSteps answer and of a stepsLogged event. When the selection names a content field, the rows'
// stored sizes (steps.size_bytes, read without the content columns) are charged first, and a read
// that would pass the budget is refused (RESPONSE_TOO_LARGE) with none of its rows read. 30
// aliased pages of one 9.9 MB episode took a 297 MB answer and 1.4 GB of server memory before.
import type { FieldNode, FragmentDefinitionNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';
import type { Prisma } from '../generated/prisma/client.ts';
import type { ResponseBudget } from '../steps/read-budget.ts';
import type { Context } from './context.ts';

/** Step fields whose values are the step's inline content (what size_bytes measures), not its few fixed-size columns. */
const CONTENT_FIELDS: ReadonlySet<string> = new Set(['parameters', 'result', 'observation', 'worldBefore', 'worldAfter', 'metadata', 'hashedContent']);

type Fragments = Record<string, FragmentDefinitionNode>;
type Selection = Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>;

/** The fields of a selection set, through its fragment spreads and inline fragments. */
export function fieldsOf(set: SelectionSetNode | undefined, fragments: Fragments): FieldNode[] {
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

function namesContent(steps: readonly FieldNode[], fragments: Fragments): boolean {
  return steps.some((step) => fieldsOf(step.selectionSet, fragments).some((f) => CONTENT_FIELDS.has(f.name.value)));
}

/** True when this steps page selects a content field of its nodes (edges.node.result, ...). */
export function selectsStepContent(info: Selection): boolean {
  return namesContent(children(children(info.fieldNodes, 'edges', info.fragments), 'node', info.fragments), info.fragments);
}

/** True when this field, which answers a Step (or a list of them), selects one of its content fields. */
export function selectsOwnStepContent(info: Selection): boolean {
  return namesContent(info.fieldNodes, info.fragments);
}

/** The rows a read will answer: its filter, order and the paging Pothos derives from first/last/after/before. */
type StepRows = Pick<Prisma.StepFindManyArgs, 'where' | 'orderBy' | 'take' | 'skip' | 'cursor'>;

/** What the refusal names, given how many steps the read would answer. */
type Described = (steps: number) => string;

/** Charges the stored size of the rows before they are read; throws ResponseBudgetError (nothing granted) past the budget. */
export async function chargeStepRows(ctx: Context, rows: StepRows, what: Described, budget: ResponseBudget = ctx.budget): Promise<void> {
  const sizes = await ctx.db.step.findMany({ ...rows, select: { sizeBytes: true } });
  budget.charge(
    sizes.reduce((sum, s) => sum + s.sizeBytes, 0),
    what(sizes.length),
  );
}

/** Charges one step's stored size before it is read: a findUnique, which Prisma batches with the other
 * steps of the same tick, so a 1,000-step logSteps answer costs one statement, not a thousand. */
export async function chargeStep(ctx: Context, id: string, what: string): Promise<void> {
  const row = await ctx.db.step.findUnique({ where: { id }, select: { sizeBytes: true } });
  ctx.budget.charge(row?.sizeBytes ?? 0, what);
}

/** Charges a page of an episode's steps before its rows are read. */
export function chargeStepPage(ctx: Context, episodeId: string, page: Pick<StepRows, 'take' | 'skip' | 'cursor'>): Promise<void> {
  const rows = { where: { episodeId }, orderBy: { stepNumber: 'asc' as const }, ...page };
  return chargeStepRows(ctx, rows, (n) => `This page of ${n} steps of episode ${episodeId}`);
}
