// The monitor's link to the service: GraphQL over HTTP for queries, one graphql-ws socket for
// every subscription. The API key lives in sessionStorage only (gone when the tab closes).
import { type Client, createClient } from 'graphql-ws/client';
import { backoff, type Doc, graphqlQuery, pause } from './query.ts';

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
    query: graphqlQuery('/graphql', authorization),
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
