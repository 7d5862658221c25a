// Every subscription, over SSE or graphql-ws, is registered with the key watch: it counts against
// its key's cap on open streams, and it ends (a KEY_REVOKED error, then complete) as soon as the
// watch finds its key revoked or expired. Over graphql-ws the socket is closed as well (4403).
import { type ExecutionResult, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { KeyWatch } from '../auth/socket-keys.ts';
import type { Context } from '../graphql/context.ts';

function tooManyStreams(max: number): GraphQLError {
  return new GraphQLError(`This API key already has ${max} open subscriptions, the most one key may (MAX_STREAMS_PER_KEY). Complete one first.`, {
    extensions: { code: 'TOO_MANY_STREAMS', limit: max, http: { status: 429 } },
  });
}

function keyRevokedError(): GraphQLError {
  return new GraphQLError('Subscription ended: its API key was revoked or has expired.', { extensions: { code: 'KEY_REVOKED' } });
}

type Results = AsyncIterable<ExecutionResult>;

/**
 * `source` as an iterator that `end()` stops at once, even while it waits for its next item:
 * the waiting next() answers the KEY_REVOKED error, the one after it completes.
 */
function endable(source: Results, onFinish: () => void): { iterator: AsyncIterableIterator<ExecutionResult>; end(): void } {
  const inner = source[Symbol.asyncIterator]();
  let state: 'open' | 'ending' | 'done' = 'open';
  let signal: (r: IteratorResult<ExecutionResult>) => void = () => undefined;
  const ended = new Promise<IteratorResult<ExecutionResult>>((resolve) => (signal = resolve));
  const finish = () => {
    if (state === 'done') return;
    state = 'done';
    onFinish();
  };
  const iterator: AsyncIterableIterator<ExecutionResult> = {
    async next() {
      if (state === 'done') return { done: true, value: undefined };
      if (state === 'ending') {
        finish();
        return ended;
      }
      const item = await Promise.race([inner.next(), ended]);
      if ((state as string) === 'ending') {
        finish();
        return ended;
      }
      if (item.done) finish();
      return item;
    },
    async return(value?: unknown) {
      finish();
      await inner.return?.(value);
      return { done: true, value: undefined };
    },
    async throw(err?: unknown) {
      finish();
      await inner.return?.();
      throw err;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return {
    iterator,
    end() {
      if (state !== 'open') return;
      state = 'ending';
      signal({ done: false, value: { errors: [keyRevokedError()] } });
      void Promise.resolve(inner.return?.()).catch(() => undefined);
    },
  };
}

export function useStreamGuard(watch: KeyWatch, maxStreamsPerKey: number): Plugin {
  return {
    onSubscribe({ args, setResultAndStopExecution }) {
      const viewer = (args.contextValue as unknown as Context).viewer;
      const keyId = viewer?.keyId;
      // No key: scope auth refuses the operation; nothing is opened.
      if (!keyId) return undefined;
      if (watch.countFor(keyId) >= maxStreamsPerKey) {
        setResultAndStopExecution({ errors: [tooManyStreams(maxStreamsPerKey)] });
        return undefined;
      }
      // Registered now, so concurrent subscribes of one key cannot all pass the cap before any opens.
      let revoked = false;
      const entry = {
        keyId,
        kind: 'stream' as const,
        expiresAt: viewer?.expiresAt,
        end: (): void => {
          revoked = true;
        },
      };
      const forget = watch.add(entry);
      return {
        onSubscribeResult({ result, setResult }) {
          if (!(Symbol.asyncIterator in result)) {
            forget();
            return;
          }
          const stream = endable(result, forget);
          entry.end = () => stream.end();
          if (revoked) stream.end();
          setResult(stream.iterator);
        },
      };
    },
  };
}
