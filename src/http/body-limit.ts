// The request body limit (413). yoga's own limiter streams every body through a counting
// TransformStream and a new Request; on a one-step logStep that cost about a fifth of the whole
// call. A declared Content-Length is checked up front instead (node's HTTP parser never reads past
// it), and only a body without one (chunked) is counted as it streams.
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { must } from '../core/must.ts';

function tooLarge(limit: number) {
  return new GraphQLError(`Request body too large: at most ${limit} bytes`, {
    extensions: { code: 'REQUEST_ENTITY_TOO_LARGE', limit, http: { status: 413 } },
  });
}

/** The request with its body passed through a byte counter that fails the read past `limit`. */
function counted(request: Request, limit: number, fetchAPI: { Request: typeof Request; TransformStream: typeof TransformStream }): Request {
  // A native ReadableStream body needs the native TransformStream (graphql-yoga issue 4583).
  const Transform = request.body instanceof ReadableStream ? globalThis.TransformStream : fetchAPI.TransformStream;
  let bytes = 0;
  const body = must(request.body).pipeThrough(
    new Transform<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength;
        if (bytes > limit) controller.error(tooLarge(limit));
        else controller.enqueue(chunk);
      },
    }),
  );
  return new fetchAPI.Request(request.url, { method: request.method, headers: request.headers, signal: request.signal, body, duplex: 'half' } as RequestInit);
}

/** Use with yoga's `maxRequestBodySize: false`. */
export function useBodyLimit(limit: number): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      const declared = request.headers.get('content-length');
      // node's HTTP parser has already refused a malformed Content-Length (400).
      if (declared !== null) {
        if (Number(declared) > limit) throw tooLarge(limit);
        return;
      }
      if (!requestParser || !request.body) return;
      setRequestParser((req) => requestParser(counted(req, limit, fetchAPI as unknown as Parameters<typeof counted>[2])));
    },
  };
}
