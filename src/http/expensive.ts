// Fields whose cost grows with the tenant's data rather than with the query: verifyLedger re-reads
// and re-hashes the whole ledger and every step it covers (about a second per 3,000 events), so 30
// aliases of it in one request held the database pool for half a minute. Such a field may appear
// once per document, runs once at a time per API key (a second concurrent one is refused), and at
// most `concurrency` run at once in the process (others wait their turn), so the rest of the pool
// stays free for every other tenant.
import { type DocumentNode, GraphQLError, type ValidationRule, visit } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../graphql/context.ts';
import { FairPermits } from './fair-permits.ts';
import { perDocument } from './per-document.ts';

const EXPENSIVE_FIELDS: ReadonlySet<string> = new Set(['verifyLedger']);

const expensiveFieldsIn = perDocument((document: DocumentNode): readonly string[] => {
  const found: string[] = [];
  visit(document, {
    Field(node) {
      if (EXPENSIVE_FIELDS.has(node.name.value)) found.push(node.name.value);
    },
  });
  return found;
});

/** Refuses a document that selects an expensive field more than once (aliases, fragments). */
const OneExpensiveFieldRule: ValidationRule = (context) => ({
  Document(node) {
    const found = expensiveFieldsIn(node);
    if (found.length > 1) {
      context.reportError(
        new GraphQLError(`${found[0]} may appear once per request (it appears ${found.length} times); send one request per verification.`, {
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED', field: found[0], limit: 1, actual: found.length },
        }),
      );
    }
  },
});

function busy(field: string): GraphQLError {
  return new GraphQLError(`This API key is already running ${field}; one runs at a time per key. Retry when it has answered.`, {
    extensions: { code: 'RATE_LIMITED', field, retryAfterMs: 1000, http: { status: 429, headers: { 'retry-after': '1' } } },
  });
}

export function useExpensiveFieldLimits(perTenant: number, total: number): Plugin {
  const permits = new FairPermits(perTenant, total);
  const runningKeys = new Set<string>();
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(OneExpensiveFieldRule);
    },
    onExecute({ args, setResultAndStopExecution }) {
      const [field] = expensiveFieldsIn(args.document);
      const viewer = (args.contextValue as unknown as Context).viewer;
      const keyId = viewer?.keyId;
      // A document without an expensive field (nearly all) passes synchronously: no promise.
      if (!field || !viewer || !keyId) return undefined;
      if (runningKeys.has(keyId)) {
        setResultAndStopExecution({ errors: [busy(field)] });
        return undefined;
      }
      runningKeys.add(keyId);
      return permits.take(viewer.tenantId).then((release) => ({
        onExecuteDone() {
          release();
          runningKeys.delete(keyId);
        },
      }));
    },
  };
}
