// How many nodes an operation may return, counted as GitHub's GraphQL API counts its node limit:
// each paged field (a connection, or a list sized by first/limit) may return its page size times
// the page sizes of every paged field above it; the operation may return the sum over all of them.
// Pure: a document, the schema and the variables in, a count and its biggest contributor out.
import {
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  GraphQLIncludeDirective,
  type GraphQLInterfaceType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  GraphQLSkipDirective,
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getOperationAST,
  getVariableValues,
  isInterfaceType,
  isObjectType,
  Kind,
  type SelectionSetNode,
  type ValueNode,
  type VariableDefinitionNode,
} from 'graphql';
import { type PageSize, pageSizeOf } from '../graphql/page-size.ts';

/** The paged field that may return the most nodes: its response path and the page sizes multiplied along it. */
export interface NodePath {
  /** Response keys (aliases where given) from the root, e.g. ['episodes', 'edges', 'node', 'steps']. */
  path: string[];
  /** The page size of each paged field on the path, outermost first, e.g. [100, 1000]. */
  factors: number[];
  /** The product of factors. */
  nodes: number;
}

export interface NodeCount {
  /** The most nodes the operation may return, summed over every paged field. */
  total: number;
  /** The paged field contributing the most; null when nothing pages. */
  worst: NodePath | null;
}

export interface NodeCountRequest {
  document: DocumentNode;
  variables?: Readonly<Record<string, unknown>> | null;
  operationName?: string | null;
}

type Variables = Record<string, unknown>;

interface Walk {
  schema: GraphQLSchema;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  variables: LazyVariables;
  /** A number for each selection set, the memo's key. */
  ids: Map<SelectionSetNode, number>;
  /** Counts of a selection under one parent node, memoized: a fragment spread many times is counted once. */
  memo: Map<string, NodeCount>;
}

const NOTHING: NodeCount = { total: 0, worst: null };

/**
 * The most nodes the operation may return. The variables it reads are coerced as execution coerces
 * them; a page whose size does not coerce (execution will refuse it) counts 0, as does an operation
 * when none is chosen.
 * @skip and @include are honoured; fragments of every type condition are counted (an upper bound).
 */
export function countNodes(schema: GraphQLSchema, request: NodeCountRequest): NodeCount {
  const operation = getOperationAST(request.document, request.operationName ?? undefined);
  if (!operation) return NOTHING;
  const root = schema.getRootType(operation.operation);
  if (!root) return NOTHING;
  const known = countsOf(schema, request.document);
  const name = operation.name?.value ?? '';
  const counted = known.get(name);
  if (counted) return counted;
  const variables = new LazyVariables(schema, operation.variableDefinitions ?? [], request.variables ?? {});
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of request.document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const count = countSelections({ schema, fragments, variables, ids: new Map(), memo: new Map() }, root, [operation.selectionSet]);
  if (!variables.read) known.set(name, count);
  return count;
}

/**
 * Counts that read no variable, per parsed document (yoga hands the same object for the same text)
 * and operation: they hold for any variables. Counting relevantEpisodes' document again on every
 * call was 1 % of a retrieval's CPU.
 */
const countsByDocument = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, NodeCount>>>();

function countsOf(schema: GraphQLSchema, document: DocumentNode): Map<string, NodeCount> {
  let documents = countsByDocument.get(schema);
  if (!documents) countsByDocument.set(schema, (documents = new WeakMap()));
  let counts = documents.get(document);
  if (!counts) documents.set(document, (counts = new Map()));
  return counts;
}

/**
 * The operation's variables, each coerced as execution coerces it when a count first reads it (a
 * page size, @skip or @include). Coercing them all up front read and checked every StepInput of a
 * logSteps call, 3 % of its CPU (bench/ingest.ts), for a count that reads none of them.
 */
class LazyVariables {
  private readonly definitions = new Map<string, VariableDefinitionNode>();
  private readonly coerced: Variables = {};
  /** Variables that do not coerce: execution refuses the operation, so what they would count does not matter. */
  private readonly refused = new Set<string>();
  /** Whether a count read any variable (else it holds for every set of variables). */
  read = false;

  constructor(
    private readonly schema: GraphQLSchema,
    definitions: readonly VariableDefinitionNode[],
    private readonly raw: Readonly<Variables>,
  ) {
    for (const d of definitions) this.definitions.set(d.variable.name.value, d);
  }

  /** The coerced values of the variables these argument (or directive argument) nodes reference; null when one does not coerce. */
  of(args: readonly ArgumentNode[] | undefined): Variables | null {
    const names = new Set<string>();
    for (const arg of args ?? []) variableNames(arg.value, names);
    if (names.size > 0) this.read = true;
    for (const name of names) {
      if (this.refused.has(name)) return null;
      const definition = this.definitions.get(name);
      if (!definition || name in this.coerced) continue;
      const result = getVariableValues(this.schema, [definition], name in this.raw ? { [name]: this.raw[name] } : {}, { maxErrors: 1 });
      if (result.errors) {
        this.refused.add(name);
        return null;
      }
      if (name in result.coerced) this.coerced[name] = result.coerced[name];
    }
    return this.coerced;
  }
}

function variableNames(value: ValueNode, into: Set<string>): void {
  if (value.kind === Kind.VARIABLE) into.add(value.name.value);
  else if (value.kind === Kind.LIST) for (const item of value.values) variableNames(item, into);
  else if (value.kind === Kind.OBJECT) for (const field of value.fields) variableNames(field.value, into);
}

/** The count under one node of parentType whose selections are selectionSets (merged, as execution merges them). */
function countSelections(walk: Walk, parentType: GraphQLNamedType, selectionSets: SelectionSetNode[]): NodeCount {
  const key = `${parentType.name}:${selectionSets.map((s) => idOf(walk, s)).join(',')}`;
  const known = walk.memo.get(key);
  if (known) return known;
  // Entered but not finished: a fragment cycle (validation refuses those); it adds nothing.
  walk.memo.set(key, NOTHING);
  let total = 0;
  let worst: NodePath | null = null;
  const consider = (candidate: NodePath | null) => {
    if (candidate && (!worst || candidate.nodes > worst.nodes)) worst = candidate;
  };
  for (const { type, responseKey, nodes } of collectFields(walk, parentType, selectionSets)) {
    const [first] = nodes;
    if (!first || first.name.value.startsWith('__')) continue;
    const field = type.getFields()[first.name.value];
    if (!field) continue;
    const children = nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
    const below = children.length ? countSelections(walk, getNamedType(field.type), children) : NOTHING;
    const page = pageSizeOf(field);
    if (!page) {
      total += below.total;
      consider(below.worst && { ...below.worst, path: [responseKey, ...below.worst.path] });
      continue;
    }
    const size = pageSizeRequested(field, first, walk.variables, page);
    total += size + size * below.total;
    consider({ path: [responseKey], factors: [size], nodes: size });
    consider(below.worst && { path: [responseKey, ...below.worst.path], factors: [size, ...below.worst.factors], nodes: size * below.worst.nodes });
  }
  const result: NodeCount = { total, worst };
  walk.memo.set(key, result);
  return result;
}

/** The rows a page may hold: the first size argument given, else the default, at most the maximum. */
function pageSizeRequested(field: GraphQLField<unknown, unknown>, node: FieldNode, variables: LazyVariables, page: PageSize): number {
  // The size arguments only: relevantEpisodes' task (a 10 KB description) is no page size.
  const coerced = variables.of(node.arguments?.filter((a) => page.args.includes(a.name.value)));
  if (!coerced) return 0; // a variable that does not coerce: execution refuses the operation
  let args: Record<string, unknown>;
  try {
    args = getArgumentValues({ ...field, args: field.args.filter((a) => page.args.includes(a.name)) }, node, coerced);
  } catch {
    // An argument that does not coerce: execution refuses the field before it reads anything.
    return 0;
  }
  const asked = page.args.map((name) => args[name]).find((value): value is number => typeof value === 'number');
  return Math.max(0, Math.min(asked ?? page.defaultSize, page.maxSize));
}

interface CollectedField {
  type: GraphQLObjectType | GraphQLInterfaceType;
  responseKey: string;
  nodes: FieldNode[];
}

/**
 * The fields the selections select, grouped by the type that declares them and their response key
 * (fields of one key merge at execution; aliases are separate keys), fragments expanded.
 */
function collectFields(walk: Walk, parentType: GraphQLNamedType, selectionSets: SelectionSetNode[]): CollectedField[] {
  const groups = new Map<string, CollectedField>();
  const visit = (type: GraphQLNamedType, selectionSet: SelectionSetNode, spread: ReadonlySet<string>) => {
    for (const selection of selectionSet.selections) {
      if (!included(selection, walk.variables)) continue;
      if (selection.kind === Kind.FIELD) {
        if (!isObjectType(type) && !isInterfaceType(type)) continue;
        const responseKey = selection.alias?.value ?? selection.name.value;
        const group = `${type.name}.${responseKey}`;
        const found = groups.get(group);
        if (found) found.nodes.push(selection);
        else groups.set(group, { type, responseKey, nodes: [selection] });
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        visit(narrowed(walk.schema, type, selection.typeCondition?.name.value), selection.selectionSet, spread);
      } else {
        const name = selection.name.value;
        const fragment = walk.fragments.get(name);
        if (!fragment || spread.has(name)) continue;
        visit(narrowed(walk.schema, type, fragment.typeCondition.name.value), fragment.selectionSet, new Set([...spread, name]));
      }
    }
  };
  for (const selectionSet of selectionSets) visit(parentType, selectionSet, new Set());
  return [...groups.values()];
}

/** The type a fragment's fields belong to: an object parent is the runtime type already. */
function narrowed(schema: GraphQLSchema, parentType: GraphQLNamedType, condition: string | undefined): GraphQLNamedType {
  if (!condition || isObjectType(parentType)) return parentType;
  return schema.getType(condition) ?? parentType;
}

function included(node: { directives?: FieldNode['directives'] }, variables: LazyVariables): boolean {
  if (!node.directives?.length) return true;
  const coerced = variables.of(node.directives.flatMap((d) => d.arguments ?? []));
  // A variable that does not coerce: execution refuses the operation; counting the field is the upper bound.
  if (!coerced) return true;
  const skip = getDirectiveValues(GraphQLSkipDirective, node, coerced);
  if (skip?.if === true) return false;
  const include = getDirectiveValues(GraphQLIncludeDirective, node, coerced);
  return include?.if !== false;
}

function idOf(walk: Walk, selectionSet: SelectionSetNode): number {
  let id = walk.ids.get(selectionSet);
  if (id === undefined) {
    id = walk.ids.size;
    walk.ids.set(selectionSet, id);
  }
  return id;
}
