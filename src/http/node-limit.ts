// The node limit (MAX_NODES): an operation whose pages, multiplied through nested connections and
// summed, may return more nodes than the limit is refused before any resolver reads a row.
// graphql-armor's cost limit cannot see page sizes: `episodes(first: 100) { ... steps(first: 1000) }`
// is a small document that may read 100,000 steps. Counted where the variables are known: at
// execute and subscribe (HTTP, SSE) and in the graphql-ws onSubscribe (src/http/websocket.ts).
import { type DocumentNode, GraphQLError, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { countNodes } from './node-count.ts';

const number = (n: number) => n.toLocaleString('en-US');

export interface NodeLimitArgs {
  schema: GraphQLSchema;
  document: DocumentNode;
  variableValues?: Readonly<Record<string, unknown>> | null;
  operationName?: string | null;
}

/** The refusal of an operation that may return more than maxNodes nodes; null when it may run. */
export function nodeLimitError(args: NodeLimitArgs, maxNodes: number): GraphQLError | null {
  const { total, worst } = countNodes(args.schema, { document: args.document, variables: args.variableValues, operationName: args.operationName });
  if (total <= maxNodes) return null;
  const field = worst ? worst.path.join('.') : null;
  const biggest = worst && field ? ` (${field}: ${worst.factors.map(number).join(' x ')})` : '';
  return new GraphQLError(`This request may return ${number(total)} nodes${biggest}; the limit is ${number(maxNodes)}. Ask for smaller pages.`, {
    extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: maxNodes, actual: total, field, http: { status: 400 } },
  });
}

export function useNodeLimit(maxNodes: number): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const error = nodeLimitError(args, maxNodes);
      if (error) setResultAndStopExecution({ errors: [error] });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const error = nodeLimitError(args, maxNodes);
      if (error) setResultAndStopExecution({ errors: [error] });
    },
  };
}
