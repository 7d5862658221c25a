// The step journal's mutations (logSteps, logStep) run through graphql-jit: it compiles a
// document's variable coercion and execution to JavaScript once, and coercing 100 StepInput
// objects per call was the largest GraphQL cost of ingestion (bench/ingest.ts). Every other
// operation keeps graphql-js: subscriptions and the error unions elsewhere rely on its behaviour.
import { useGraphQlJit } from '@envelop/graphql-jit';
import { type DocumentNode, getOperationAST, Kind } from 'graphql';
import type { Plugin } from 'graphql-yoga';

const COMPILED_FIELDS = new Set(['logSteps', 'logStep']);

/** A mutation whose root selects only step-journal fields (no fragments, no other fields). */
export function isStepJournalMutation(document: DocumentNode, operationName?: string | null): boolean {
  const operation = getOperationAST(document, operationName);
  if (operation?.operation !== 'mutation') return false;
  return operation.selectionSet.selections.every((s) => s.kind === Kind.FIELD && COMPILED_FIELDS.has(s.name.value));
}

export function useCompiledStepJournal(): Plugin {
  return useGraphQlJit({}, { enableIf: ({ document, operationName }) => isStepJournalMutation(document, operationName) }) as Plugin;
}
