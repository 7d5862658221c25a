// Streams stay authorised only while their key is. A stream (a graphql-ws socket, or one
// subscription over SSE or graphql-ws) ends, with one rule for every transport (a socket is closed
// with 4403, a subscription gets a KEY_REVOKED error and completes):
// - at once when its key is revoked in any process: the revocation's commit is announced through
//   the ledger fan-out (pg NOTIFY or Redis), and `endKey` runs in every process;
// - at the moment its key expires (a timer per stream);
// - and, as a safety net for an announcement lost in an outage, when the periodic re-read of the
//   open streams' keys finds one revoked or expired.
// The stream cap per key (MAX_STREAMS_PER_KEY) is counted here, for SSE and graphql-ws together.
import type pg from 'pg';
import type { ApiKeysRow } from '../db/rows.ts';
import { Params, queryRows } from '../db/sql.ts';

export const KEY_REVOKED_CLOSE_CODE = 4403;

/** setTimeout's longest delay; a later expiry is left to the periodic re-read. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Something open on behalf of a key: a socket, or one subscription (counted against the key's cap). `end` stops it. */
export interface WatchedStream {
  keyId: string;
  kind: 'socket' | 'stream';
  /** The key's expiry: the stream ends then. */
  expiresAt?: Date | null;
  end(): void;
}

export class KeyWatch {
  private readonly streams = new Map<WatchedStream, NodeJS.Timeout | null>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly intervalMs: number,
  ) {}

  /** Watches `stream` until the returned function is called or its key is found invalid. */
  add(stream: WatchedStream, now = Date.now()): () => void {
    const left = stream.expiresAt ? stream.expiresAt.getTime() - now : null;
    const expiry = left !== null && left <= MAX_TIMER_MS ? setTimeout(() => this.endStream(stream), Math.max(0, left)).unref() : null;
    this.streams.set(stream, expiry);
    return () => this.forget(stream);
  }

  /** Open subscriptions of `keyId` (the per-key stream cap reads it). */
  countFor(keyId: string): number {
    let n = 0;
    for (const s of this.streams.keys()) if (s.keyId === keyId && s.kind === 'stream') n += 1;
    return n;
  }

  /** Ends every stream of `keyId` (its revocation was announced); returns how many. */
  endKey(keyId: string): number {
    let ended = 0;
    for (const stream of [...this.streams.keys()]) {
      if (stream.keyId !== keyId) continue;
      this.endStream(stream);
      ended += 1;
    }
    return ended;
  }

  start(): void {
    this.timer = setInterval(() => void this.check().catch(() => undefined), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    for (const stream of [...this.streams.keys()]) this.forget(stream);
  }

  /** Ends streams whose key is no longer valid; returns how many. */
  async check(now = new Date()): Promise<number> {
    const keyIds = [...new Set([...this.streams.keys()].map((s) => s.keyId))];
    if (!keyIds.length) return 0;
    const p = new Params();
    const rows = await queryRows<Pick<ApiKeysRow, 'id'>>(
      this.pool,
      `SELECT id FROM api_keys WHERE id = ANY(${p.add(keyIds)}::uuid[]) AND (revoked_at IS NOT NULL OR expires_at <= ${p.add(now)})`,
      p,
    );
    let ended = 0;
    for (const row of rows) ended += this.endKey(row.id);
    return ended;
  }

  private forget(stream: WatchedStream): void {
    const expiry = this.streams.get(stream);
    if (expiry) clearTimeout(expiry);
    this.streams.delete(stream);
  }

  private endStream(stream: WatchedStream): void {
    if (!this.streams.has(stream)) return;
    this.forget(stream);
    stream.end();
  }
}
