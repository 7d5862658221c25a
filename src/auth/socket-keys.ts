// Streams stay authorised only while their key is. Every few seconds the keys of open streams are
// re-read (in any process, so a revocation elsewhere counts) and every stream whose key was revoked
// or has expired is ended, with one rule for every transport: a graphql-ws socket is closed with
// 4403, an SSE subscription gets a KEY_REVOKED error event and its response ends.
import type pg from 'pg';

export const KEY_REVOKED_CLOSE_CODE = 4403;

/** Something open on behalf of a key: a socket, or one subscription (counted against the key's cap). `end` stops it. */
export interface WatchedStream {
  keyId: string;
  kind: 'socket' | 'stream';
  end(): void;
}

export class KeyWatch {
  private readonly streams = new Set<WatchedStream>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly intervalMs: number,
  ) {}

  /** Watches `stream` until the returned function is called or its key is found invalid. */
  add(stream: WatchedStream): () => void {
    this.streams.add(stream);
    return () => this.streams.delete(stream);
  }

  /** Open subscriptions of `keyId` (the per-key stream cap reads it). */
  countFor(keyId: string): number {
    let n = 0;
    for (const s of this.streams) if (s.keyId === keyId && s.kind === 'stream') n += 1;
    return n;
  }

  start(): void {
    this.timer = setInterval(() => void this.check().catch(() => undefined), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Ends streams whose key is no longer valid; returns how many. */
  async check(now = new Date()): Promise<number> {
    const keyIds = [...new Set([...this.streams].map((s) => s.keyId))];
    if (!keyIds.length) return 0;
    const { rows } = await this.pool.query<{ id: string }>(
      'SELECT id FROM api_keys WHERE id = ANY($1::uuid[]) AND (revoked_at IS NOT NULL OR expires_at <= $2)',
      [keyIds, now],
    );
    const invalid = new Set(rows.map((r) => r.id));
    let ended = 0;
    for (const stream of [...this.streams]) {
      if (!invalid.has(stream.keyId)) continue;
      this.streams.delete(stream);
      stream.end();
      ended += 1;
    }
    return ended;
  }
}
