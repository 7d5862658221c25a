// The one way domain writes happen: a transaction whose ledger events are appended before commit,
// and whose commit is announced to subscribers only afterwards.
import type pg from 'pg';
import type { NewLedgerEvent, WriteContext } from './core/write-context.ts';
import { Params } from './db/sql.ts';
import { withTransaction } from './db/tx.ts';
import type { StoredLedgerEvent } from './ledger/format/hash.ts';
import { appendEvents, appendInOneStatement, type RowsStatement } from './ledger/store/store.ts';

export type CommitListener = (tenantId: string, events: StoredLedgerEvent[]) => void;

export interface Writer {
  run<T>(tenantId: string, fn: (ctx: WriteContext) => Promise<T>): Promise<T>;
  /**
   * A write that is one statement's rows and their events: one autocommit statement with the ledger
   * append when this process knows the tenant's tail (a receipt costs one round trip), else `run`.
   */
  runStatement(tenantId: string, rows: RowsStatement, events: NewLedgerEvent[]): Promise<void>;
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
  const run = async <T>(tenantId: string, fn: (ctx: WriteContext) => Promise<T>): Promise<T> => {
    const events: NewLedgerEvent[] = [];
    let stored: StoredLedgerEvent[] = [];
    const result = await withTransaction(pool, async (client) => {
      const r = await fn({ client, tenantId, now: new Date(), events, redactKeys });
      stored = await appendEvents(client, tenantId, events);
      return r;
    });
    committed(tenantId, stored);
    return result;
  };
  return {
    run,
    async runStatement(tenantId, rows, events) {
      const stored = await appendInOneStatement(pool, tenantId, events, rows);
      if (stored) return committed(tenantId, stored);
      await run(tenantId, async (ctx) => {
        const p = new Params();
        await ctx.client.query(rows(p, 'true'), p.values);
        ctx.events.push(...events);
      });
    },
    onCommit: (listener) => void listeners.push(listener),
    committed,
  };
}
