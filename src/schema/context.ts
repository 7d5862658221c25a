// What every resolver sees, over HTTP and WebSocket alike.
import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import type { KeyCache } from '../auth/key-cache.ts';
import type { AuthFailure } from '../auth/keys.ts';
import type { Viewer } from '../auth/store.ts';
import type { Config } from '../config.ts';
import type { WritesBeforeAnswer } from '../core/writes-before-answer.ts';
import type { Database } from '../db/client.ts';
import type { ScopedPrisma } from '../db/tenant-scope.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { LearningJobs } from '../learning/jobs.ts';
import type { LedgerBus } from '../ledger/bus.ts';
import type { CheckpointPublisher } from '../ledger/checkpoints.ts';
import type { LedgerReads } from '../ledger/live-reads.ts';
import type { ImportBatcher } from '../lifecycle/import-batch.ts';
import type { StepIngestor } from '../steps/ingest.ts';
import type { ResponseBudget } from '../steps/read-budget.ts';
import type { Writer } from '../write.ts';

/** The long-lived parts a request needs; src/services.ts builds them once per process. */
export interface Services {
  config: Config;
  db: Database;
  log: Logger;
  writer: Writer;
  ingest: StepIngestor;
  /** importRun's group commit. */
  imports: ImportBatcher;
  jobs: JobQueue;
  /** Pattern extraction on the job queue. */
  learning: LearningJobs;
  redactKeys: readonly string[];
  checkpoints: CheckpointPublisher;
  /** Announces ledger growth to subscribers in every process. */
  ledgerBus: LedgerBus;
  /** Ledger reads of live subscribers (shared between subscribers woken by the same commit). */
  ledgerReads: LedgerReads;
  /** API keys of recent requests (revocations by this process forget them at commit). */
  keys: KeyCache;
}

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
