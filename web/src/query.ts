// The monitor's GraphQL queries over HTTP. A query shed for load (a busy server, its database, the
// key's minute) is asked again after its Retry-After (at most 10 s), a few times, instead of the
// page showing the refusal for good. No DOM here: test/web/query-retry.test.ts runs it in Node
// against a real HTTP server.
import type { TypedDocumentString } from './generated/graphql.ts';

/** A document: generated from schema.graphql (typed result and variables), or a plain string. */
export type Doc<R, V> = TypedDocumentString<R, V> | string;

export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
export const backoff = (retries: number) => Math.min(10_000, 500 * 2 ** retries);

const SHED_CODES: ReadonlySet<unknown> = new Set(['OVERLOADED', 'DATABASE_UNAVAILABLE', 'RATE_LIMITED']);
const SHED_RETRIES = 5;
const retryAfterMs = (res: Response, attempt: number) => {
  const seconds = Number(res.headers.get('retry-after'));
  return seconds > 0 ? Math.min(10_000, seconds * 1000) : backoff(attempt);
};

/** A query function for the GraphQL endpoint at `url`, sent with `authorization`; `wait` sleeps before a retry (a test's clock). */
export function graphqlQuery(url: string, authorization: string, wait = pause) {
  return async function query<R, V>(doc: Doc<R, V>, variables?: V): Promise<R> {
    const text = String(doc);
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization },
        body: JSON.stringify({ query: text, variables }),
      });
      const body = (await res.json()) as { data?: R; errors?: Array<{ message: string; extensions?: { code?: unknown } }> };
      if (attempt < SHED_RETRIES && body.errors?.some((e) => SHED_CODES.has(e.extensions?.code))) {
        await wait(retryAfterMs(res, attempt));
        continue;
      }
      if (body.errors?.length) throw new Error(body.errors.map((e) => e.message).join('; '));
      if (!body.data) throw new Error(`HTTP ${res.status}`);
      return body.data;
    }
  };
}
