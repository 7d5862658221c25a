// JSON request bodies must be UTF-8. The Fetch API decodes a body with replacement, so invalid
// bytes used to be stored as U+FFFD without a word; they are refused instead (400 BAD_REQUEST),
// before anything runs. The check (node's isUtf8, simdutf) reads the bytes the parser reads anyway.
import { isUtf8 } from 'node:buffer';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

function notUtf8(): GraphQLError {
  return new GraphQLError('Request body is not valid UTF-8; send JSON encoded as UTF-8.', {
    extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
  });
}

type JsonBody = { arrayBuffer(): Promise<ArrayBuffer>; json(): Promise<unknown> };

/** Before the body limit in the plugin list, so it also checks the body the limit streams through. */
export function useUtf8Bodies(): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser }) {
      if (request.method !== 'POST' || !requestParser) return;
      setRequestParser((req) => {
        const body = req as unknown as JsonBody;
        body.json = async () => {
          const bytes = Buffer.from(await body.arrayBuffer());
          if (!isUtf8(bytes)) throw notUtf8();
          return JSON.parse(bytes.toString('utf8'));
        };
        return requestParser(req);
      });
    },
  };
}
