// The answer of an operation waits for the writes its resolvers started without awaiting
// (Context.writesBeforeAnswer). If one failed, the answer is that failure instead of data naming
// something that was not stored; the error masker (registered after this plugin) shows it as any
// other unexpected or database error.
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../graphql/context.ts';

export function useWritesBeforeAnswer(): Plugin {
  return {
    onExecute({ args }) {
      const writes = (args.contextValue as unknown as Context).writesBeforeAnswer;
      return {
        onExecuteDone({ setResult }) {
          // An answer no resolver started a write for leaves at once (no promise).
          if (writes.none) return undefined;
          return writes.settled().then((failed) => {
            if (!failed) return;
            const error = failed.error instanceof Error ? failed.error : new Error(String(failed.error));
            setResult({ data: null, errors: [new GraphQLError(error.message, { originalError: error })] });
          });
        },
      };
    },
  };
}
