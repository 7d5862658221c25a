// A GraphQL POST of a key whose admission queue is already full is refused before its body is read:
// admission would refuse it anyway, and reading, parsing, validating and answering each refusal
// of a flood (600 clients of one key, retrying at once) took the CPU another tenant's query waited
// for (issue 50: the victim's p99 at 101x its baseline). The key comes from the bearer token alone,
// through the key cache every request reads anyway.
//
// This bends the rule that shape checks run before admission (a bad request is always its 400) in
// one case only: a key already over its queue gets its OVERLOADED answer whatever its body holds.
// Another key's requests, and this key's once its queue has room, are checked for shape first.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLError } from 'graphql';
import type { KeyCache } from '../auth/key-cache.ts';
import { tokenFromHeader } from '../auth/keys.ts';
import type { AuthResult } from '../auth/store.ts';
import type { Admission } from './admission.ts';

/** The answers sent, by message (one per refusal reason): built once, sent as they are. */
const answers = new Map<string, Buffer>();

function answerOf(refusal: GraphQLError): Buffer {
  let body = answers.get(refusal.message);
  if (!body) {
    const { http: _http, ...extensions } = refusal.extensions as Record<string, unknown>;
    body = Buffer.from(JSON.stringify({ errors: [{ message: refusal.message, extensions }] }));
    answers.set(refusal.message, body);
  }
  return body;
}

/**
 * Answers `req` with its key's OVERLOADED refusal (503, Retry-After) without reading its body when
 * its key's queue is full; false (nothing sent) otherwise. node discards the unread body.
 */
export function refusedBeforeBody(
  req: IncomingMessage,
  res: ServerResponse,
  keys: KeyCache,
  admission: Admission,
  maxBodyBytes: number,
): boolean | Promise<boolean> {
  // Nobody waits (the usual case): no queue is full, and the request pays nothing more (not even a promise).
  if (req.method !== 'POST' || !admission.queuing) return false;
  const token = tokenFromHeader(req.headers.authorization);
  if (!token) return false;
  const auth = keys.authenticate(token);
  return auth instanceof Promise ? auth.then((a) => refused(req, res, a, admission, maxBodyBytes)) : refused(req, res, auth, admission, maxBodyBytes);
}

function refused(req: IncomingMessage, res: ServerResponse, auth: AuthResult, admission: Admission, maxBodyBytes: number): boolean {
  if (!('viewer' in auth)) return false;
  const declared = req.headers['content-length'];
  const refusal = admission.refusalNow(auth.viewer, declared === undefined ? maxBodyBytes : Number(declared));
  if (!refusal) return false;
  const body = answerOf(refusal);
  const http = refusal.extensions.http as { status: number; headers: Record<string, string> };
  res.writeHead(http.status, { ...http.headers, 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) });
  res.end(body);
  return true;
}
