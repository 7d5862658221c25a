// A per-key request limit that holds across server processes: counts live in PostgreSQL, one row
// per key and minute. Each process claims a slice of the allowance at a time, so the database
// sees one write per slice rather than one per request.
import type pg from 'pg';
import { must } from '../core/must.ts';
import type { RateLimitWindowsRow } from '../db/rows.ts';
import { Params, queryRows } from '../db/sql.ts';

const WINDOW_MS = 60_000;

export interface RateDecision {
  ok: boolean;
  /** When refused: how long until the next window opens. */
  retryAfterMs: number;
}

interface LocalSlice {
  window: number;
  remaining: number;
  /** The database refused a slice in this window: the allowance is used up until the next one. */
  exhausted: boolean;
}

export class RateLimiter {
  private readonly slices = new Map<string, LocalSlice>();
  /** The claim in flight per key: concurrent requests wait for it instead of each claiming a slice. */
  private readonly claims = new Map<string, Promise<void>>();
  private readonly sliceSize: number;

  constructor(
    private readonly pool: pg.Pool,
    /** RATE_LIMIT_PER_MINUTE: a refusal names it. */
    readonly perMinute: number,
  ) {
    // Small limits are counted exactly; large ones in slices of 1% (at most 1% over-reservation per process).
    this.sliceSize = Math.max(1, Math.floor(perMinute / 100));
  }

  /**
   * Takes `units` of the key's allowance this minute (a GraphQL operation is 1, an OTLP export one
   * per span, an MCP batch one per call), or refuses without taking any: decided at once when this
   * minute's claimed slice decides it (the usual case: no promise, no statement), else a promise
   * decided once a slice has been claimed.
   */
  take(keyId: string, now = Date.now(), units = 1): RateDecision | Promise<RateDecision> {
    return this.decided(keyId, now, units) ?? this.takeAfterClaims(keyId, now, units);
  }

  /** The decision this minute's slice makes, or null when a slice must be claimed first. */
  private decided(keyId: string, now: number, units: number): RateDecision | null {
    const window = Math.floor(now / WINDOW_MS);
    const slice = this.slices.get(keyId);
    if (slice?.window !== window) return null;
    if (slice.remaining >= units) {
      slice.remaining -= units;
      return { ok: true, retryAfterMs: 0 };
    }
    return slice.exhausted ? { ok: false, retryAfterMs: (window + 1) * WINDOW_MS - now } : null;
  }

  private async takeAfterClaims(keyId: string, now: number, units: number): Promise<RateDecision> {
    const window = Math.floor(now / WINDOW_MS);
    for (;;) {
      // One claim per key at a time. Were every request of a burst to claim its own slice, 100
      // concurrent requests would reserve 100 slices (the whole minute's allowance) and the key
      // would be refused for the rest of the minute, having used a hundredth of it.
      let claim = this.claims.get(keyId);
      if (!claim) {
        const slice = this.slices.get(keyId);
        const size = Math.max(this.sliceSize, units - (slice?.window === window ? slice.remaining : 0));
        claim = this.claim(keyId, window, size)
          .then((granted) => {
            const current = this.slices.get(keyId);
            const carried = current?.window === window ? current.remaining : 0;
            this.slices.set(keyId, { window, remaining: carried + Math.max(0, granted), exhausted: granted < size });
          })
          .finally(() => this.claims.delete(keyId));
        this.claims.set(keyId, claim);
      }
      await claim;
      const decision = this.decided(keyId, now, units);
      if (decision) return decision;
    }
  }

  private async claim(keyId: string, window: number, size: number): Promise<number> {
    const p = new Params();
    const rows = await queryRows<Pick<RateLimitWindowsRow, 'used'>>(
      this.pool,
      `INSERT INTO rate_limit_windows (key_id, window_start, used) VALUES (${p.add(keyId)}, to_timestamp(${p.add((window * WINDOW_MS) / 1000)}), ${p.add(size)})
       ON CONFLICT (key_id, window_start) DO UPDATE SET used = rate_limit_windows.used + EXCLUDED.used RETURNING used`,
      p,
    );
    const before = must(rows[0]).used - size;
    return Math.min(size, this.perMinute - before);
  }

  /** Drops windows older than an hour. */
  async prune(): Promise<void> {
    await this.pool.query(`DELETE FROM rate_limit_windows WHERE window_start < now() - interval '1 hour'`);
  }
}
