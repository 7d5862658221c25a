// The one way domain writes happen: a transaction whose ledger events are appended before commit,
// and whose commit is announced to subscribers only afterwards.
import type pg from 'pg';
import type { NewLedgerEvent, WriteContext } from './core/write-context.ts';
import { withTransaction } from './db/tx.ts';
import type { StoredLedgerEvent } from './ledger/hash.ts';
import { appendEvents } from './ledger/store.ts';

export type CommitListener = (tenantId: string, events: StoredLedgerEvent[]) => void;

export interface Writer {
  run<T>(tenantId: string, fn: (ctx: WriteContext) => Promise<T>): Promise<T>;
  onCommit(listener: CommitListener): void;
  /** For writers that manage their own transaction (group commit). */
  committed(tenantId: string, events: StoredLedgerEvent[]): void;
}

export function createWriter(pool: pg.Pool, redactKeys: readonly string[]): Writer {
  const listeners: CommitListener[] = [];
  const committed = (tenantId: string, events: StoredLedgerEvent[]) => {
    if (!events.length) return;
    for (const l of listeners) l(tenantId, events);
  };
  return {
    async run(tenantId, fn) {
      const events: NewLedgerEvent[] = [];
      let stored: StoredLedgerEvent[] = [];
      const result = await withTransaction(pool, async (client) => {
        const r = await fn({ client, tenantId, now: new Date(), events, redactKeys });
        stored = await appendEvents(client, tenantId, events);
        return r;
      });
      committed(tenantId, stored);
      return result;
    },
    onCommit: (listener) => void listeners.push(listener),
    committed,
  };
}
