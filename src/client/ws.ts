// graphql-ws clients for subscriptions. Node 20 has no global WebSocket: `ws` is used then.
// graphql-ws (and graphql, which it loads) is imported on the first subscription only: the CLI's
// other commands, an import among them, start without parsing it (about 0.3 s of a CLI's start).
import type { Client } from 'graphql-ws';

export type WebSocketImpl = unknown;

export interface WsOptions {
  url: string;
  apiKey?: string;
  webSocketImpl?: WebSocketImpl;
  retryAttempts?: number;
  retryWait?: (retries: number) => Promise<void>;
  onConnected?: (reconnect: boolean) => void;
  /** A connected socket closed (it is retried unless the key was refused). */
  onDisconnected?: (reason: string) => void;
}

/** ws://... for http://..., wss://... for https://... */
export function toWsUrl(url: string): string {
  return url.replace(/^http(s?):/i, 'ws$1:');
}

async function resolveWebSocketImpl(impl?: WebSocketImpl): Promise<WebSocketImpl> {
  if (impl) return impl;
  if (typeof (globalThis as { WebSocket?: unknown }).WebSocket === 'function') return (globalThis as { WebSocket?: unknown }).WebSocket;
  return (await import('ws')).default;
}

export async function createWsClient(options: WsOptions): Promise<Client> {
  let connectedBefore = false;
  const { createClient } = await import('graphql-ws');
  return createClient({
    url: toWsUrl(options.url),
    webSocketImpl: await resolveWebSocketImpl(options.webSocketImpl),
    connectionParams: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
    retryAttempts: options.retryAttempts ?? Infinity,
    // Once connected, any close but a refused key (4403) is worth a retry: the socket was dropped,
    // the server restarted. A server never reached is reported at once instead.
    shouldRetry: (e) => connectedBefore && !(typeof e === 'object' && e !== null && (e as { code?: unknown }).code === 4403),
    ...(options.retryWait ? { retryWait: options.retryWait } : {}),
    on: {
      connected: () => {
        options.onConnected?.(connectedBefore);
        connectedBefore = true;
      },
      closed: (event) => {
        if (!connectedBefore) return;
        const close = event as { code?: number; reason?: string };
        options.onDisconnected?.(close.code ? `${close.code}${close.reason ? `: ${close.reason}` : ''}` : String(event));
      },
    },
  });
}
