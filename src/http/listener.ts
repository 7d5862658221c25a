// What stands between node:http and the routes: each request in the scope of its id, tracked until
// its response closes, and a failure outside GraphQL (which masks its own) answered and logged
// instead of ending the process: a rejected route is an unhandled rejection, and Node exits on one.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { requestScope } from '../log.ts';
import { requestIdFrom } from './request-id.ts';

/** A route answers synchronously or with a promise (GraphQL's usual path makes none of its own). */
export type Route = (req: IncomingMessage, res: ServerResponse) => unknown;

/** Runs `handle` in the scope of one request, named by the client's x-request-id when usable (else a new id). */
export function inRequestScope<T>(header: string | string[] | undefined, handle: (requestId: string) => T): T {
  const requestId = requestIdFrom(header) ?? randomUUID();
  return requestScope.run({ requestId }, () => handle(requestId));
}

/** Each request in the scope of its id (echoed in x-request-id), tracked until its response closes. */
export function requestListener(route: Route, unfinished: Set<ServerResponse>, stopping: () => boolean, log: Logger) {
  return (req: IncomingMessage, res: ServerResponse) =>
    inRequestScope(req.headers['x-request-id'], (requestId) => {
      res.setHeader('x-request-id', requestId);
      // A request read on a kept-alive connection after shutdown began is still answered, but it
      // is the connection's last: otherwise busy clients would keep the server alive until the timeout.
      if (stopping()) res.setHeader('connection', 'close');
      unfinished.add(res);
      res.once('close', () => unfinished.delete(res));
      let answered: unknown;
      try {
        answered = route(req, res);
      } catch (err) {
        answerUnexpected(res, err, requestId, log);
        return;
      }
      if (typeof (answered as PromiseLike<unknown> | undefined)?.then === 'function') {
        Promise.resolve(answered).catch((err: unknown) => answerUnexpected(res, err, requestId, log));
      }
    });
}

/** 500 with the request id when nothing was sent yet; else the response cannot be finished, so its socket is closed. */
function answerUnexpected(res: ServerResponse, err: unknown, requestId: string, log: Logger): void {
  log.error({ err, requestId }, 'unexpected error outside GraphQL (masked for the client)');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(500, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: 'internal error', requestId }));
}
