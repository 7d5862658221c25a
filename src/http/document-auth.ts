// Authorises the whole document before any field runs. Pothos' scope auth checks each field as it
// resolves, so a document with an allowed and a forbidden mutation committed the allowed one and
// then answered 403. Here every root field's scopes (its type's and its own, as declared to Pothos)
// are checked first: one field the key may not run refuses the whole document, and nothing runs.
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLObjectType,
  type GraphQLSchema,
  getOperationAST,
  Kind,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AUTH_FAILURE_MESSAGES, grantsScope, type Scope } from '../auth/keys.ts';
import type { Context } from '../graphql/context.ts';
import { perOperation } from './per-document.ts';

type ScopeMap = Partial<Record<Scope, boolean>>;

function declaredScopes(extensions: Readonly<Record<string, unknown>> | null | undefined): ScopeMap | null {
  const options = extensions?.pothosOptions as { authScopes?: unknown } | undefined;
  const scopes = options?.authScopes;
  return scopes && typeof scopes === 'object' ? (scopes as ScopeMap) : null;
}

/** Pothos' rule for a scope map: any one listed scope that is granted opens it. */
function opens(map: ScopeMap | null, held: readonly string[]): boolean {
  if (!map) return true;
  const listed = (Object.keys(map) as Scope[]).filter((s) => map[s]);
  return !listed.length || listed.some((s) => grantsScope(held, s));
}

/** The scopes listed by whichever of the two maps the held scopes do not open. */
function missingScopes(typeScopes: ScopeMap | null, fieldScopes: ScopeMap | null, held: readonly string[]): Scope[] {
  return [typeScopes, fieldScopes].flatMap((map) => (map && !opens(map, held) ? (Object.keys(map) as Scope[]).filter((s) => map[s]) : []));
}

/** Root field names a selection set selects, through fragments and inline fragments. */
function rootFieldNames(set: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, seen = new Set<string>()): string[] {
  const names: string[] = [];
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) names.push(s.name.value);
    else if (s.kind === Kind.INLINE_FRAGMENT) names.push(...rootFieldNames(s.selectionSet, fragments, seen));
    else if (!seen.has(s.name.value)) {
      seen.add(s.name.value);
      const fragment = fragments.get(s.name.value);
      if (fragment) names.push(...rootFieldNames(fragment.selectionSet, fragments, seen));
    }
  }
  return names;
}

function rootType(schema: GraphQLSchema, operation: 'query' | 'mutation' | 'subscription'): GraphQLObjectType | null | undefined {
  return operation === 'query' ? schema.getQueryType() : operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
}

/** The root type and root field names (without `__` fields) an operation of a document runs, or null. */
function rootFieldsOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
): { type: GraphQLObjectType; fields: string[] } | null {
  const operation = getOperationAST(document, operationName);
  const type = operation && rootType(schema, operation.operation);
  if (!operation || !type) return null;
  const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
  return { type, fields: [...new Set(rootFieldNames(operation.selectionSet, fragments))].filter((n) => !n.startsWith('__')) };
}

/** rootFieldsOf kept per document and operation (yoga's parser cache hands one document to every request of a query text); the scopes are checked on every request. */
const rootFieldsKept = perOperation(rootFieldsOf);

/** The refusal for the document, or null when the viewer may run every root field of it. */
function documentRefusal(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, ctx: Context): GraphQLError | null {
  const root = rootFieldsKept(schema, document, operationName);
  if (!root?.fields.length) return null;
  const { type, fields } = root;
  if (!ctx.viewer) {
    const failure = ctx.authFailure ?? 'missing';
    return new GraphQLError(AUTH_FAILURE_MESSAGES[failure], { extensions: { code: 'UNAUTHENTICATED', reason: failure.toUpperCase(), http: { status: 401 } } });
  }
  const held = ctx.viewer.scopes;
  const typeScopes = declaredScopes(type.extensions);
  const forbidden = fields.filter((name) => {
    const field = type.getFields()[name];
    return !field || !opens(typeScopes, held) || !opens(declaredScopes(field.extensions), held);
  });
  if (!forbidden.length) return null;
  const needed = [...new Set(forbidden.flatMap((name) => missingScopes(typeScopes, declaredScopes(type.getFields()[name]?.extensions), held)))];
  const scope = needed.length ? `the ${needed.join(' or ')} scope` : 'the scope';
  return new GraphQLError(`This API key (scopes ${held.join(', ')}) lacks ${scope} ${forbidden.join(', ')} needs; nothing in this document ran.`, {
    extensions: { code: 'FORBIDDEN', fields: forbidden, scopes: needed, http: { status: 403 } },
  });
}

export function useDocumentAuthorization(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const refusal = documentRefusal(args.schema, args.document, args.operationName, args.contextValue as unknown as Context);
      if (refusal) setResultAndStopExecution({ errors: [refusal] });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const refusal = documentRefusal(args.schema, args.document, args.operationName, args.contextValue as unknown as Context);
      if (refusal) setResultAndStopExecution({ errors: [refusal] });
    },
  };
}
