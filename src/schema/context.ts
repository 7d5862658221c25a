// What every resolver sees, over HTTP and WebSocket alike.
import type { Logger } from 'pino';
import type { Viewer } from '../auth/store.ts';
import type { AuthFailure } from '../auth/keys.ts';
import type { Services } from '../services.ts';
import type { ScopedPrisma } from '../db/tenant-scope.ts';

export interface Context {
  requestId: string;
  log: Logger;
  viewer: Viewer | null;
  authFailure: AuthFailure | null;
  services: Services;
  /** Prisma confined to the viewer's tenant; resolvers use this, never services.db.prisma. */
  db: ScopedPrisma;
  /** The graphql-ws socket an operation runs on (absent over HTTP and SSE): its send buffer shows a slow consumer. */
  wsSocket?: { readonly bufferedAmount: number };
}

/** Context after scope auth has run: the viewer is known. */
export interface AuthedContext extends Context {
  viewer: Viewer;
}
