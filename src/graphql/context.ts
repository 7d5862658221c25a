// What every resolver sees, over HTTP and WebSocket alike.
import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import type { AuthFailure } from '../auth/keys.ts';
import type { Viewer } from '../auth/store.ts';
import type { PacedWork } from '../core/paced-work.ts';
import type { WritesBeforeAnswer } from '../core/writes-before-answer.ts';
import type { ScopedPrisma } from '../db/tenant-scope.ts';
import type { Services } from '../services.ts';
import type { ResponseBudget } from '../steps/read-budget.ts';

export interface Context {
  requestId: string;
  log: Logger;
  viewer: Viewer | null;
  authFailure: AuthFailure | null;
  services: Services;
  /** Prisma confined to the viewer's tenant; resolvers use this, never services.db.prisma. */
  db: ScopedPrisma;
  /** Bytes of large stored content this request may still read (MAX_RESPONSE_BYTES). */
  budget: ResponseBudget;
  /** Writes a resolver started and did not await: the answer leaves once they have committed. */
  writesBeforeAnswer: WritesBeforeAnswer;
  /** The server's schedule of retrievals per key while other keys are active (PACED_RETRIEVALS_PER_SECOND). */
  pacedRetrievals: PacedWork;
  /** The graphql-ws socket an operation runs on (absent over HTTP and SSE): its send buffer shows a slow consumer. */
  wsSocket?: { readonly bufferedAmount: number };
}

/** Context after scope auth has run: the viewer is known. */
export interface AuthedContext extends Context {
  viewer: Viewer;
}

/**
 * The viewer of a context scope auth has admitted. Root fields get it typed through
 * `t.withAuth(...)`; fields of object types (reached only through an admitted root field) read it
 * here, and a context without one is refused as unauthenticated.
 */
export function viewerOf(ctx: Context): Viewer {
  if (!ctx.viewer) throw new GraphQLError('Authentication required.', { extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } } });
  return ctx.viewer;
}
