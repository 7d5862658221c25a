// Large text an answer streams instead of holding (issue 50): 64 concurrent blob(hash) reads of a
// 7.9 MB blob held the whole text in the server three or four times per read (pg's rows, their
// join, the answer's UTF-8 pieces), each copy kept until the paced answer had left, so the heap grew
// by hundreds of MB of large strings between two full collections. Where the HTTP door sends the
// answer in slices (src/http/sliced-answers.ts allows it for the request), a resolver returns a
// marker in place of the text, and the answer's serialiser reads the text piece by piece from its
// source as it writes, so the server holds about one piece of it at a time. Pure bookkeeping.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** The pieces of one text, in order, read when the answer reaches it (once, or not at all). */
export type TextSource = () => AsyncIterable<string>;

/** Stored content from which a resolver streams a text into an answer that allows it (smaller is read whole, in one statement). */
export const STREAMED_TEXT_BYTES = 1024 * 1024;

const streamable = new WeakMap<object, Map<string, TextSource>>();

/** The answer of the request with this GraphQL context is serialised in slices, so large text may be streamed into it. */
export function allowStreamedText(context: object): void {
  if (!streamable.has(context)) streamable.set(context, new Map());
}

/**
 * A marker the answer's serialiser replaces with the text `read` yields, or undefined when this
 * request's answer is not streamed (the caller then reads the text whole). The marker is random per
 * text, so no stored content can stand for it.
 */
export function streamedText(context: object, read: TextSource): string | undefined {
  const texts = streamable.get(context);
  if (!texts) return undefined;
  const marker = `\u0001streamed-${randomUUID()}`;
  texts.set(marker, inScopeOfNow(read));
  return marker;
}

/**
 * The source, its pieces read in the async context of the resolver that left it (the request's
 * scope: its database turns are the request's key's, src/db/fair-pool.ts), not in that of the
 * socket writes that ask for them.
 */
function inScopeOfNow(read: TextSource): TextSource {
  const inScope = AsyncLocalStorage.snapshot();
  return () => ({
    [Symbol.asyncIterator]() {
      const pieces = inScope(() => read()[Symbol.asyncIterator]());
      return {
        next: () => inScope(() => pieces.next()),
        return: async (value?: unknown) =>
          pieces.return ? inScope(() => pieces.return?.(value) as Promise<IteratorResult<string>>) : { done: true, value: undefined },
      };
    },
  });
}

/** The texts the request's resolvers left to stream, by marker. */
export function streamedTexts(context: object): ReadonlyMap<string, TextSource> | undefined {
  const texts = streamable.get(context);
  return texts?.size ? texts : undefined;
}
