// Tenants and API keys in the database.
import type { Db } from '../db/client.ts';
import type pg from 'pg';
import { checkKey, generateApiKey, parseToken, type AuthFailure, type Scope, type StoredKey } from './keys.ts';

export interface Viewer {
  tenantId: string;
  keyId: string;
  scopes: string[];
}

export type AuthResult = { viewer: Viewer } | { failure: AuthFailure };

/** Bounds how often a busy key rewrites its `last_used_at` row. */
const LAST_USED_RESOLUTION_MS = 60_000;

export async function authenticate(pool: pg.Pool, token: string | null, now = new Date()): Promise<AuthResult> {
  if (!token) return { failure: 'missing' };
  const parsed = parseToken(token);
  if (!parsed) return { failure: 'malformed' };
  // Raw SQL: this runs on every request, and Prisma's client-side cost per query dominated it.
  const { rows } = await pool.query(
    `SELECT id, tenant_id AS "tenantId", secret_hash AS "secretHash", scopes, expires_at AS "expiresAt",
            revoked_at AS "revokedAt", last_used_at AS "lastUsedAt" FROM api_keys WHERE prefix = $1`,
    [parsed.prefix],
  );
  const key = (rows[0] as (StoredKey & { lastUsedAt: Date | null }) | undefined) ?? null;
  const failure = checkKey(key, parsed.secret, now);
  if (failure || !key) return { failure: failure ?? 'unknown' };
  if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await pool.query('UPDATE api_keys SET last_used_at = $2 WHERE id = $1', [key.id, now]);
  }
  return { viewer: { tenantId: key.tenantId, keyId: key.id, scopes: key.scopes } };
}

export async function createTenant(db: Db, name: string) {
  return db.tenant.create({ data: { name } });
}

export interface CreatedKey {
  id: string;
  token: string;
  tenantId: string;
  scopes: Scope[];
}

export async function createApiKey(
  db: Db,
  input: { tenantId: string; name: string; scopes: Scope[]; expiresAt?: Date | null },
): Promise<CreatedKey> {
  const generated = generateApiKey();
  const row = await db.apiKey.create({
    data: {
      tenantId: input.tenantId,
      name: input.name,
      prefix: generated.prefix,
      secretHash: generated.secretHash,
      scopes: input.scopes,
      expiresAt: input.expiresAt ?? null,
    },
  });
  return { id: row.id, token: generated.token, tenantId: row.tenantId, scopes: input.scopes };
}

export async function revokeApiKey(db: Db, tenantId: string, id: string, now = new Date()) {
  const key = await db.apiKey.findFirst({ where: { id, tenantId } });
  if (!key) return null;
  if (key.revokedAt) return key;
  return db.apiKey.update({ where: { id }, data: { revokedAt: now } });
}
