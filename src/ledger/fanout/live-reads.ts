// Ledger reads for live subscribers. When one commit wakes a thousand subscribers of a tenant,
// they all ask for "events after seq S": the first asks the database and the others share its
// answer, also those that ask after it arrived (a busy server reaches the last of them many
// milliseconds later). A read is shared only with subscribers woken before it started, so a shared
// answer always contains every commit that woke them.
import type pg from 'pg';
import type { StoredLedgerEvent } from '../format/hash.ts';
import { type LedgerFilter, readEvents, readHead } from '../store/read.ts';

/** Events per read: the most a subscriber holds in memory at once. */
export const LIVE_PAGE_SIZE = 500;

/** How long an answer stays shareable after it arrived; bounds the memory that sharing holds. */
const SHARE_FOR_MS = 1_000;

interface Flight {
  startedAt: number;
  events: Promise<readonly StoredLedgerEvent[]>;
}

export class LedgerReads {
  /** A logical clock: comparing two of its readings orders two moments in this process. */
  private clock = 0;
  private readonly flights = new Map<string, Flight>();

  constructor(private readonly pool: pg.Pool) {}

  /** Taken when a subscriber is woken: reads started after this moment see what woke it. */
  now(): number {
    return ++this.clock;
  }

  async head(tenantId: string): Promise<number> {
    return (await readHead(this.pool, tenantId)).seq;
  }

  /** A subscriber's own catch-up read, filtered in SQL (replays differ per subscriber). */
  range(tenantId: string, afterSeq: number, toSeq: number, filter: LedgerFilter | null): Promise<StoredLedgerEvent[]> {
    return readEvents(this.pool, tenantId, { afterSeq, toSeq, filter, limit: LIVE_PAGE_SIZE });
  }

  /** The next unfiltered page after `afterSeq`, from a read that started after `wokenAt`. Shared: do not mutate. */
  after(tenantId: string, afterSeq: number, wokenAt: number): Promise<readonly StoredLedgerEvent[]> {
    const key = `${tenantId}:${afterSeq}`;
    const flight = this.flights.get(key);
    if (flight && flight.startedAt > wokenAt) return flight.events;
    const events = readEvents(this.pool, tenantId, { afterSeq, limit: LIVE_PAGE_SIZE });
    const started: Flight = { startedAt: this.now(), events };
    this.flights.set(key, started);
    const forget = () => {
      if (this.flights.get(key) === started) this.flights.delete(key);
    };
    // A failed read is not shared after the fact: the next wake-up tries again.
    events.then(() => setTimeout(forget, SHARE_FOR_MS).unref(), forget);
    return events;
  }
}
