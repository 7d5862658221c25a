// Open WebSockets stay authorised only while their key is: every few seconds the keys of open
// sockets are re-read (in any process, so a revocation elsewhere counts) and sockets whose key was
// revoked or has expired are closed with 4403.
import type pg from 'pg';
import type { WebSocket } from 'ws';

export const KEY_REVOKED_CLOSE_CODE = 4403;

export class SocketKeyWatch {
  private readonly sockets = new Map<WebSocket, string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly pool: pg.Pool, private readonly intervalMs: number) {}

  add(socket: WebSocket, keyId: string): void {
    this.sockets.set(socket, keyId);
    socket.once('close', () => this.sockets.delete(socket));
  }

  start(): void {
    this.timer = setInterval(() => void this.check().catch(() => undefined), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Closes sockets whose key is no longer valid; returns how many. */
  async check(now = new Date()): Promise<number> {
    const keyIds = [...new Set(this.sockets.values())];
    if (!keyIds.length) return 0;
    const { rows } = await this.pool.query<{ id: string }>(
      'SELECT id FROM api_keys WHERE id = ANY($1::uuid[]) AND (revoked_at IS NOT NULL OR expires_at <= $2)',
      [keyIds, now],
    );
    const invalid = new Set(rows.map((r) => r.id));
    let closed = 0;
    for (const [socket, keyId] of this.sockets) {
      if (!invalid.has(keyId)) continue;
      socket.close(KEY_REVOKED_CLOSE_CODE, 'API key revoked or expired');
      this.sockets.delete(socket);
      closed += 1;
    }
    return closed;
  }
}
