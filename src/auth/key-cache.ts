// API keys read on a request are kept for a moment: reading api_keys on every request was a
// database round trip per call, the largest single cost of a small mutation. The secret, expiry
// and revocation are still checked on every request against the kept row. A revocation committed
// by this process forgets the key at once; one made elsewhere (another server, the operator CLI)
// takes effect within ttlMs. When the database cannot answer a reload in time (saturated or away),
// the row read at most STALE_FOR_MS ago still authenticates: a request that needs no database (one
// refused for its shape, a cached read) is not failed for the key's bookkeeping, and the database
// is not asked again by every request of a busy key while it is struggling. A reload is read once
// for all the requests that need it (600 clients of one key once queued 600 reads every second, in
// front of another key's one) and takes its database turn as that key's own caller (fair-pool.ts).
import type pg from 'pg';
import { databaseTrouble } from '../db/errors.ts';
import { Params, queryRows } from '../db/sql.ts';
import { requestScope } from '../log.ts';
import { checkKey, parseToken, type StoredKey } from './keys.ts';
import type { AuthResult } from './store.ts';

/** Bounds how often a busy key rewrites its `last_used_at` row. */
const LAST_USED_RESOLUTION_MS = 60_000;
/** How old a kept row may be and still authenticate while the database cannot answer its reload. */
const STALE_FOR_MS = 60_000;

type KeyRow = StoredKey & { lastUsedAt: Date | null };

export class KeyCache {
  private readonly byPrefix = new Map<string, { row: KeyRow; loadedAt: number }>();
  /** The reload in flight per prefix: concurrent requests of one key wait for it instead of each reading the row. */
  private readonly reloads = new Map<string, Promise<KeyRow[]>>();
  /** Bumped by forget: a reload begun before a revocation does not keep the row it read. */
  private forgotten = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly ttlMs: number,
  ) {}

  /** Synchronous while the key's row is kept (the usual case: no promise); a promise when the row must be read. */
  authenticate(token: string | null, now = new Date()): AuthResult | Promise<AuthResult> {
    if (!token) return { failure: 'missing' };
    const parsed = parseToken(token);
    if (!parsed) return { failure: 'malformed' };
    const cached = this.byPrefix.get(parsed.prefix);
    const age = cached ? now.getTime() - cached.loadedAt : Number.POSITIVE_INFINITY;
    if (cached && age < this.ttlMs) {
      // Past half its time the row is read again in the background, so a busy key's requests do
      // not all wait for the reload once a second; the row they are checked against is still at most ttlMs old.
      if (age >= this.ttlMs / 2) this.refresh(parsed.prefix, now.getTime());
      return this.decide(cached.row, parsed.secret, now);
    }
    return this.row(parsed.prefix, now.getTime(), cached).then((key) => this.decide(key, parsed.secret, now));
  }

  private decide(key: KeyRow | null, secret: string, now: Date): AuthResult {
    const failure = checkKey(key, secret, now);
    if (failure || !key) return { failure: failure ?? 'unknown' };
    if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
      key.lastUsedAt = now;
      const p = new Params();
      // Bookkeeping, not a check: the request does not wait for it, nor fail with it (the next minute writes it again).
      this.pool.query(`UPDATE api_keys SET last_used_at = ${p.add(now)} WHERE id = ${p.add(key.id)}`, p.values).catch(() => {
        key.lastUsedAt = null;
      });
    }
    return { viewer: { tenantId: key.tenantId, keyId: key.id, scopes: key.scopes, expiresAt: key.expiresAt } };
  }

  /** Drops a key (revoked by this process) so its next request reads the row again. */
  forget(keyId: string): void {
    this.forgotten += 1;
    for (const [prefix, entry] of this.byPrefix) if (entry.row.id === keyId) this.byPrefix.delete(prefix);
  }

  /** Reads the row again without anyone waiting for it (a failure leaves the kept row to age out). */
  private refresh(prefix: string, nowMs: number): void {
    if (this.reloads.has(prefix)) return;
    const forgotten = this.forgotten;
    this.reload(prefix).then(
      (rows) => {
        if (forgotten === this.forgotten) this.keep(prefix, rows, nowMs);
      },
      () => undefined,
    );
  }

  private keep(prefix: string, rows: KeyRow[], nowMs: number): KeyRow | null {
    const row = rows[0] ?? null;
    // Unknown prefixes are not kept: a flood of made-up keys must not grow this map.
    if (row) this.byPrefix.set(prefix, { row, loadedAt: nowMs });
    else this.byPrefix.delete(prefix);
    return row;
  }

  /** The row read again (authenticate found it missing or past ttlMs; `cached`, if any, may still answer while the database cannot). */
  private async row(prefix: string, nowMs: number, cached: { row: KeyRow; loadedAt: number } | undefined): Promise<KeyRow | null> {
    const forgotten = this.forgotten;
    const rows = await this.reload(prefix).catch((err: unknown) => {
      const stale = cached && nowMs - cached.loadedAt < STALE_FOR_MS && databaseTrouble(err, true) !== null;
      if (stale) return [cached.row];
      throw err;
    });
    if (cached && rows[0] === cached.row) return cached.row;
    // A row read before a revocation of this process forgot its key is used for this request, not kept.
    return forgotten === this.forgotten ? this.keep(prefix, rows, nowMs) : (rows[0] ?? null);
  }

  private reload(prefix: string): Promise<KeyRow[]> {
    let reload = this.reloads.get(prefix);
    if (!reload) {
      // The key's own turn in the fair pool: a reload is not queued behind other callers' work (the request's caller is not known yet).
      const requestId = requestScope.getStore()?.requestId ?? 'api-key reload';
      reload = requestScope
        .run({ requestId, tenantId: `api-key ${prefix}`, keyId: prefix }, () => this.read(prefix))
        .finally(() => this.reloads.delete(prefix));
      this.reloads.set(prefix, reload);
    }
    return reload;
  }

  private read(prefix: string): Promise<KeyRow[]> {
    const p = new Params();
    return queryRows<KeyRow>(
      this.pool,
      `SELECT id, tenant_id AS "tenantId", secret_hash AS "secretHash", scopes, expires_at AS "expiresAt",
              revoked_at AS "revokedAt", last_used_at AS "lastUsedAt" FROM api_keys WHERE prefix = ${p.add(prefix)}`,
      p,
    );
  }
}
