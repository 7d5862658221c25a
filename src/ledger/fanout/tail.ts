// One subscriber's view of a tenant's ledger: replay after a cursor, then follow it live.
// No gap and no duplicate: events are read from the ledger by seq (> the last one seen), and seq
// follows commit order (the chain head stays locked until commit), so every read returns a
// contiguous continuation. Notifications only say when to read.

import { must } from '../../core/must.ts';
import { isPoolSaturated, isUnavailable } from '../../db/errors.ts';
import type { StoredLedgerEvent } from '../format/hash.ts';
import type { LedgerFilter } from '../store/read.ts';
import type { LedgerBus } from './bus.ts';
import { type LedgerReads, LIVE_PAGE_SIZE } from './live-reads.ts';

/** What the tail reads through (LedgerReads in the server). */
export type TailReads = Pick<LedgerReads, 'now' | 'head' | 'range' | 'after'>;

export interface TailOptions {
  reads: TailReads;
  bus: LedgerBus;
  tenantId: string;
  /** Where to start (see cursorAfter); the tail advances it as it goes. */
  cursor: LedgerCursor;
  filter: LedgerFilter | null;
  /** Ends the tail, also while it waits for a wake-up (an async generator's return() would wait). */
  signal: AbortSignal;
  /** The subscriber's API key: the tail ends (KeyRevokedEnd) at its revocation's event or its expiry. */
  key?: { id: string; expiresAt?: Date | null };
}

/**
 * Thrown by the tail when its key's revocation is the next event, or its key has expired. The
 * revocation is an event of the same chain, so nothing committed after it is ever delivered, in
 * whichever process the tail runs and however late the revocation's announcement arrives.
 */
export class KeyRevokedEnd extends Error {
  override name = 'KeyRevokedEnd';
}

function checkKey(o: TailOptions, e: StoredLedgerEvent, now = Date.now()): void {
  if (!o.key) return;
  const expired = !!o.key.expiresAt && o.key.expiresAt.getTime() <= now;
  const revoked = e.type === 'api_key.revoked' && (e.payload as { keyId?: unknown } | null)?.keyId === o.key.id;
  if (expired || revoked) throw new KeyRevokedEnd();
}

/** Wake-ups coalesce into one flag, remembering when the latest one happened. */
class Wakeup {
  /** Starts set: the first read runs at once. */
  private pending = true;
  private resolveWait: (() => void) | null = null;
  wokenAt: number;

  constructor(private readonly reads: TailReads) {
    this.wokenAt = reads.now();
  }

  readonly set = (): void => {
    this.pending = true;
    this.wokenAt = this.reads.now();
    this.resolveWait?.();
    this.resolveWait = null;
  };

  /** Waits for a wake-up and consumes it; returns when it happened. */
  async take(): Promise<number> {
    if (!this.pending) await new Promise<void>((resolve) => (this.resolveWait = resolve));
    this.pending = false;
    return this.wokenAt;
  }
}

export function matchesFilter(e: StoredLedgerEvent, filter: LedgerFilter | null): boolean {
  if (!filter) return true;
  if (filter.episodeId && e.episodeId !== filter.episodeId) return false;
  if (filter.workItemId && e.workItemId !== filter.workItemId) return false;
  return !filter.types?.length || filter.types.includes(e.type);
}

/**
 * The last seq a subscriber has covered: every event up to it was delivered or did not match the
 * filter, so it is where the subscriber resumes. Null until the replay knows the head.
 */
export interface LedgerCursor {
  seen: number | null;
  /** Replay done: the tail now reads unfiltered pages that it can share. */
  live: boolean;
}

/** Events after `afterSeq`; null: only events committed from now on. */
export function cursorAfter(afterSeq: number | null): LedgerCursor {
  return { seen: afterSeq, live: false };
}

export async function* tailLedger(o: TailOptions): AsyncGenerator<StoredLedgerEvent> {
  const wakeup = new Wakeup(o.reads);
  // Subscribed before the first read: a commit landing between that read and a later subscription
  // would wake nobody.
  const unsubscribe = o.bus.subscribe(o.tenantId, wakeup.set);
  o.signal.addEventListener('abort', wakeup.set);
  const { cursor } = o;
  try {
    for (;;) {
      const wokenAt = await wakeup.take();
      if (o.signal.aborted) return;
      try {
        if (!cursor.live) yield* replay(o, cursor);
        yield* readNew(o, cursor, wokenAt);
      } catch (err) {
        // The database is away (or no connection is free): the cursor holds, and the bus wakes everyone
        // once it is back (or the next safety tick does), so the subscription survives without a gap.
        if (!isUnavailable(err) && !isPoolSaturated(err)) throw err;
      }
    }
  } finally {
    unsubscribe();
    o.signal.removeEventListener('abort', wakeup.set);
  }
}

/** Everything up to the head committed now, filtered in SQL. */
async function* replay(o: TailOptions, cursor: LedgerCursor): AsyncGenerator<StoredLedgerEvent> {
  const head = await o.reads.head(o.tenantId);
  let after = cursor.seen ?? head;
  while (after < head && !o.signal.aborted) {
    const page = await o.reads.range(o.tenantId, after, head, o.filter);
    for (const e of page) {
      checkKey(o, e);
      cursor.seen = after = e.seq;
      yield e;
    }
    if (page.length < LIVE_PAGE_SIZE) break;
  }
  cursor.seen = Math.max(after, head);
  cursor.live = true;
}

/** Pages after the cursor until a short one; the filter is applied here so reads can be shared. */
async function* readNew(o: TailOptions, cursor: LedgerCursor, wokenAt: number): AsyncGenerator<StoredLedgerEvent> {
  for (;;) {
    const page = await o.reads.after(o.tenantId, must(cursor.seen), wokenAt);
    for (const e of page) {
      // Before the filter: the revocation ends the tail even when the subscriber does not see its type.
      checkKey(o, e);
      cursor.seen = e.seq;
      if (matchesFilter(e, o.filter)) yield e;
    }
    if (page.length < LIVE_PAGE_SIZE || o.signal.aborted) return;
  }
}
