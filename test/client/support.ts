// Helpers for the client tests: a typed client on the test server, a lease to run loops under,
// and a TCP proxy that can drop every connection (a server-side socket drop, as the client sees it).

import type { AddressInfo } from 'node:net';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { createEpisodicClient, type EpisodicClient, unwrap } from '../../src/client/index.ts';
import type { TestApp } from '../support/app.ts';

/** A client of the app as its gql posts (in process unless the app was started overSocket); given a url, over HTTP to it. */
export function clientFor(t: TestApp, key: string = t.keys.admin, url?: string): EpisodicClient {
  return createEpisodicClient({ url: url ?? t.url, apiKey: key, fetch: url ? undefined : t.fetch });
}

export async function leaseFor(client: EpisodicClient, budget: { episodes?: number; toolCalls?: number; tokens?: number; wallMs?: number } = {}) {
  const workItem = unwrap(await client.createWorkItem({ title: 'loop work' })).workItem;
  const lease = unwrap(
    await client.issueLease({ workItemId: workItem.id, issuer: 'test', holder: 'holon', expiresAt: new Date(Date.now() + 3_600_000), budget }),
  ).lease;
  return { workItem, lease };
}

export interface Proxy {
  url: string;
  /** Destroys every open connection (the client sees its socket closed abruptly). */
  dropAll(): number;
  connections(): number;
  /** New connections go to this server from now on (a restarted server on another port). */
  retarget(url: string): void;
  close(): Promise<void>;
}

/** Forwards TCP connections to the app's port; the returned url is the app's, on the proxy's port. */
export async function startProxy(targetUrl: string): Promise<Proxy> {
  let target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    const outbound = connect(Number(target.port), target.hostname);
    sockets.add(inbound).add(outbound);
    const cleanup = () => {
      inbound.destroy();
      outbound.destroy();
      sockets.delete(inbound);
      sockets.delete(outbound);
    };
    inbound.on('error', cleanup).on('close', cleanup);
    outbound.on('error', cleanup).on('close', cleanup);
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    dropAll() {
      const n = sockets.size;
      for (const s of sockets) s.destroy();
      return n;
    },
    connections: () => sockets.size,
    retarget(url) {
      target = new URL(url);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitFor(check: () => boolean, timeoutMs = 15_000, what = 'condition'): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
