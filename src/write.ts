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
   * Group-committed per tenant: the writes that arrive while one is in flight go together in the
   * next statement (statementBatches).
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
  const writeStatements = async (tenantId: string, batch: readonly StatementWrite[]) => {
    const events = batch.flatMap((w) => w.events);
    const stored = await appendInOneStatement(
      pool,
      tenantId,
      events,
      batch.map((w) => w.rows),
    );
    if (stored) return committed(tenantId, stored);
    await run(tenantId, async (ctx) => {
      for (const w of batch) {
        const p = new Params();
        await ctx.client.query(w.rows(p, 'true'), p.values);
      }
      ctx.events.push(...events);
    });
  };
  return {
    run,
    runStatement: statementBatches(writeStatements),
    onCommit: (listener) => void listeners.push(listener),
    committed,
  };
}

interface StatementWrite {
  rows: RowsStatement;
  events: NewLedgerEvent[];
}

/**
 * Writes that are one statement each, group-committed per tenant: one statement of a tenant in
 * flight at a time, and those that arrive meanwhile go together in the next, up to BATCH_MAX (their
 * rows and events in arrival order; a batch that fails is retried one write at a time). Concurrent receipts of one tenant otherwise each raced for its
 * ledger head: one moved it, the others found it moved and retried under the head's lock, three
 * round trips each, one after another (docs/BENCHMARKS.md, issue 55).
 */
const BATCH_MAX = 64;

/** undefined when the write succeeded, else its error. */
const settled = (write: Promise<void>): Promise<unknown> =>
  write.then(
    () => undefined,
    (err: unknown) => err ?? new Error('statement write failed'),
  );

function statementBatches(write: (tenantId: string, batch: readonly StatementWrite[]) => Promise<void>): Writer['runStatement'] {
  const waiting = new Map<string, Array<StatementWrite & { settle(err?: unknown): void }>>();
  const drain = async (tenantId: string, queue: Array<StatementWrite & { settle(err?: unknown): void }>) => {
    while (queue.length > 0) {
      const batch = queue.splice(0, BATCH_MAX);
      const failed = await settled(write(tenantId, batch));
      if (failed === undefined || batch.length === 1) for (const w of batch) w.settle(failed);
      // A batch that failed is written again one by one: a write that fails fails alone.
      else for (const w of batch) w.settle(await settled(write(tenantId, [w])));
    }
    waiting.delete(tenantId);
  };
  return (tenantId, rows, events) =>
    new Promise<void>((resolve, reject) => {
      const settle = (err?: unknown) => (err === undefined ? resolve() : reject(err));
      const queue = waiting.get(tenantId);
      if (queue) return void queue.push({ rows, events, settle });
      const started = [{ rows, events, settle }];
      waiting.set(tenantId, started);
      void drain(tenantId, started);
    });
}
