// A POST without Content-Length (chunked transfer encoding): the server has to count the body as it
// arrives. The server may answer 413 and close before the whole body went out; a broken pipe is
// reported as that 413 with no body.
import http from 'node:http';
import type { Json } from './json.ts';

export function chunkedPost(url: string, token: string, chunks: Iterable<string>): Promise<{ status: number; body: Json }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'transfer-encoding': 'chunked' },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
      },
    );
    // A dropped connection is an error, not a refusal: a refused body must be answered with its 413.
    // Each body goes on a new connection (agent: false): a kept-alive connection reused after a 413
    // whose body was not read can hang (reported to the owner of src/http).
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

/** `text` in pieces of `size` characters. */
export function* piecesOf(text: string, size = 8 * 1024): Generator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

/** A GraphQL POST with a bearer key: its status, Retry-After and JSON body. */
export async function postGraphql(url: string, query: string, variables: Record<string, unknown>, token: string) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Json };
}
