// The write path's context: every domain write runs inside one tenant transaction (src/write.ts)
// and queues the ledger events that commit with it.
import type pg from 'pg';

/** A ledger event to append in the writer's transaction (src/ledger/store/store.ts assigns seq and hash). */
export interface NewLedgerEvent {
  type: string;
  episodeId?: string | null;
  workItemId?: string | null;
  /** A value, or a function of the chain head just before this event (run receipts name it). */
  payload: unknown | ((head: { seq: number; hash: string }) => unknown);
}

/** What a write sees: its transaction's client, its tenant and clock, and the events it queues. */
export interface WriteContext {
  client: pg.PoolClient;
  tenantId: string;
  now: Date;
  events: NewLedgerEvent[];
  redactKeys: readonly string[];
}
