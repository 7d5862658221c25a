// Adapts a ledger tail to a GraphQL subscription source. Two things a plain async generator cannot do:
// - end the subscription when the client stops draining its socket (a slow consumer), with an
//   error naming the seq to resume after, instead of a silent gap or an unbounded buffer;
// - stop a tail that is waiting for a wake-up as soon as the client completes (return() on an
//   async generator waits until it next yields).
// Over SSE there is no socket to watch and none is needed: yoga waits for 'drain' before it asks
// for the next item, so a stalled SSE client holds at most one page, and resumes where it stopped.
import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { KeyRevokedEnd, type LedgerCursor } from './tail.ts';

/** How a stream ended early; the field resolver turns it into the client's error. */
export class StreamEnd {
  constructor(
    readonly code: 'SLOW_CONSUMER' | 'INTERNAL_SERVER_ERROR' | 'KEY_REVOKED',
    readonly resumeAfterSeq: number | null,
  ) {}

  toError(): GraphQLError {
    if (this.code === 'KEY_REVOKED')
      return new GraphQLError('Subscription ended: its API key was revoked or has expired.', { extensions: { code: this.code } });
    const resume = this.resumeAfterSeq === null ? 'from where it started' : `with afterSeq: ${this.resumeAfterSeq}`;
    const message =
      this.code === 'SLOW_CONSUMER'
        ? `Subscription ended: the client did not read its events fast enough. Resubscribe ${resume}.`
        : `Subscription ended by a server error. Resubscribe ${resume}.`;
    return new GraphQLError(message, {
      extensions: { code: this.code, resumeAfterSeq: this.resumeAfterSeq === null ? null : String(this.resumeAfterSeq) },
    });
  }
}

/** What the stream guard reads of a request's context (src/graphql/context.ts has it). */
export interface StreamContext {
  log: Pick<Logger, 'error'>;
  services: { config: { subscriptions: { maxBufferedBytes: number } } };
  /** The graphql-ws socket the stream is sent on (absent over SSE). */
  wsSocket?: { readonly bufferedAmount: number };
}

/** How often a stalled send is checked: a stall is what makes bufferedAmount grow. */
const CHECK_EVERY_MS = 500;

export interface LiveSourceOptions<T> {
  ctx: StreamContext;
  /** The cursor of the tail behind the stream: while the tail waits at a yield, it is the seq of that item. */
  cursor: LedgerCursor;
  run(signal: AbortSignal): AsyncGenerator<T>;
}

export function liveSource<T>({ ctx, cursor, run }: LiveSourceOptions<T>): AsyncIterableIterator<T | StreamEnd> {
  const abort = new AbortController();
  const stream = guarded(run(abort.signal), cursor, ctx);
  return {
    next: () => stream.next(),
    return: (value?: unknown) => {
      abort.abort();
      return stream.return(value as never);
    },
    throw: (err?: unknown) => {
      abort.abort();
      return stream.throw(err);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

async function* guarded<T>(source: AsyncGenerator<T>, cursor: LedgerCursor, ctx: StreamContext): AsyncGenerator<T | StreamEnd> {
  const socket = ctx.wsSocket;
  const maxBytes = ctx.services.config.subscriptions.maxBufferedBytes;
  const over = () => !!socket && socket.bufferedAmount > maxBytes;
  let sending = false;
  let overflowed = false;
  // graphql-ws awaits each send before it asks for the next item, so a client that stops reading
  // stalls us at `yield` with the socket's buffer growing: only a timer can see that.
  const timer = socket ? setInterval(() => (overflowed ||= sending && over()), CHECK_EVERY_MS).unref() : null;
  try {
    for await (const item of source) {
      sending = true;
      yield item;
      sending = false;
      // The item was sent and the tail still waits at it: the cursor is the last seq delivered.
      if (overflowed || over()) return yield new StreamEnd('SLOW_CONSUMER', cursor.seen);
    }
  } catch (err) {
    if (err instanceof KeyRevokedEnd) return yield new StreamEnd('KEY_REVOKED', cursor.seen);
    ctx.log.error({ err }, 'live subscription failed');
    yield new StreamEnd('INTERNAL_SERVER_ERROR', cursor.seen);
  } finally {
    if (timer) clearInterval(timer);
  }
}
