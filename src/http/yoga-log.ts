// yoga's own log lines through pino. yoga logs every GraphQLError it refuses a request with (armor's
// limits, CSRF prevention, parse errors) at error level, and some of them twice: those are a
// client's mistakes, answered with a code, so they are logged once per request, at info, with the
// request id. Errors that are not GraphQLErrors stay at error level (unexpected errors are logged
// where they are masked, src/http/yoga.ts).
import { GraphQLError } from 'graphql';
import type { YogaLogger } from 'graphql-yoga';
import type { Logger } from 'pino';
import { requestScope } from '../log.ts';

export function yogaLogging(log: Logger): YogaLogger {
  // A request's refusal is logged once, however many times yoga reports it.
  const seen = new Map<string, Set<string>>();
  const refusal = (err: GraphQLError) => {
    const requestId = requestScope.getStore()?.requestId ?? 'none';
    let messages = seen.get(requestId);
    if (!messages) {
      messages = new Set();
      seen.set(requestId, messages);
      // Forgotten on the next turn: yoga's repeats come from the same turn of the request.
      setTimeout(() => seen.delete(requestId), 1_000).unref();
    }
    if (messages.has(err.message)) return;
    messages.add(err.message);
    log.info({ requestId, code: err.extensions?.code }, `request refused: ${err.message}`);
  };
  return {
    debug: (...args) => log.debug(args.map(String).join(' ')),
    info: (...args) => log.info(args.map(String).join(' ')),
    warn: (...args) => log.warn(args.map(String).join(' ')),
    error: (...args) => {
      const err = args.find((a) => a instanceof GraphQLError);
      if (err instanceof GraphQLError) return refusal(err);
      log.error(args.map(String).join(' '));
    },
  };
}
