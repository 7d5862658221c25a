// The monitor's link to the service: GraphQL over HTTP for queries, one graphql-ws socket for
// every subscription. The API key lives in sessionStorage only (gone when the tab closes).
import { type Client, createClient } from 'graphql-ws/client';
import type { TypedDocumentString } from './generated/graphql.ts';

/** A document: generated from schema.graphql (typed result and variables), or a plain string. */
type Doc<R, V> = TypedDocumentString<R, V> | string;

const KEY = 'episodic.apiKey';
export const storedKey = () => sessionStorage.getItem(KEY);
export const storeKey = (key: string) => sessionStorage.setItem(KEY, key);
export const forgetKey = () => sessionStorage.removeItem(KEY);

export type LinkStatus = 'connecting' | 'live' | 'reconnecting' | 'refused';

export interface Api {
  query<R, V = Record<string, unknown>>(query: Doc<R, V>, variables?: V): Promise<R>;
  /**
   * Follows a subscription until the returned function is called. `variables` is sent again as
   * the same object on every resubscribe (graphql-ws does so after a reconnect), so a caller keeps
   * its cursor in it. A stream the server ends (or fails) is resubscribed after a pause.
   */
  follow<R, V extends Record<string, unknown> = Record<string, unknown>>(query: Doc<R, V>, variables: V, onData: (data: R) => void): () => void;
  close(): void;
}

const FORBIDDEN = 4403;
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const backoff = (retries: number) => Math.min(10_000, 500 * 2 ** retries);

/** A query shed for load (a busy server, its database, the key's minute) is asked again after its Retry-After, a few times, instead of the page showing the refusal for good. */
const SHED_CODES: ReadonlySet<unknown> = new Set(['OVERLOADED', 'DATABASE_UNAVAILABLE', 'RATE_LIMITED']);
const SHED_RETRIES = 5;
const retryAfterMs = (res: Response, attempt: number) => {
  const seconds = Number(res.headers.get('retry-after'));
  return seconds > 0 ? Math.min(10_000, seconds * 1000) : backoff(attempt);
};

export function createApi(apiKey: string, onStatus: (status: LinkStatus) => void): Api {
  const authorization = `Bearer ${apiKey}`;
  const ws: Client = createClient({
    url: `${location.origin.replace(/^http/, 'ws')}/graphql`,
    connectionParams: { authorization },
    retryAttempts: Infinity,
    retryWait: (retries) => pause(backoff(retries)),
    shouldRetry: (event) => (event as CloseEvent | null)?.code !== FORBIDDEN,
    on: {
      connecting: (isRetry) => onStatus(isRetry ? 'reconnecting' : 'connecting'),
      connected: () => onStatus('live'),
      closed: (event) => onStatus((event as CloseEvent | null)?.code === FORBIDDEN ? 'refused' : 'reconnecting'),
    },
  });

  return {
    async query<R, V>(doc: Doc<R, V>, variables?: V): Promise<R> {
      const query = String(doc);
      for (let attempt = 0; ; attempt++) {
        const res = await fetch('/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization },
          body: JSON.stringify({ query, variables }),
        });
        const body = (await res.json()) as { data?: R; errors?: Array<{ message: string; extensions?: { code?: unknown } }> };
        if (attempt < SHED_RETRIES && body.errors?.some((e) => SHED_CODES.has(e.extensions?.code))) {
          await pause(retryAfterMs(res, attempt));
          continue;
        }
        if (body.errors?.length) throw new Error(body.errors.map((e) => e.message).join('; '));
        if (!body.data) throw new Error(`HTTP ${res.status}`);
        return body.data;
      }
    },
    follow<R, V extends Record<string, unknown>>(doc: Doc<R, V>, variables: V, onData: (data: R) => void) {
      const query = String(doc);
      let stopped = false;
      let retries = 0;
      let unsubscribe = () => {};
      const restart = () => {
        if (!stopped) void pause(backoff(retries++)).then(start);
      };
      const start = () => {
        if (stopped) return;
        unsubscribe = ws.subscribe<R>(
          { query, variables },
          {
            next: (message) => {
              retries = 0;
              if (message.data) onData(message.data as R);
            },
            error: restart,
            complete: restart,
          },
        );
      };
      start();
      return () => {
        stopped = true;
        unsubscribe();
      };
    },
    close: () => void ws.dispose(),
  };
}
