// Tenants and API keys in the database.

import { isUuid } from '../core/ids.ts';
import { must } from '../core/must.ts';
import type { WriteContext } from '../core/write-context.ts';
import type { Db } from '../db/client.ts';
import type { ApiKeysRow } from '../db/rows.ts';
import { insertInto, Params, queryRows } from '../db/sql.ts';
import { type AuthFailure, generateApiKey, type Scope } from './keys.ts';

export interface Viewer {
  tenantId: string;
  keyId: string;
  scopes: string[];
  /** When the key expires (null: never): its streams end at that moment. */
  expiresAt?: Date | null;
}

export type AuthResult = { viewer: Viewer } | { failure: AuthFailure };

export async function createTenant(db: Db, name: string) {
  return db.tenant.create({ data: { name } });
}

export interface CreatedKey {
  id: string;
  token: string;
  tenantId: string;
  scopes: Scope[];
}

/** Creates a key without a ledger event: first-start bootstrap (before the tenant has a chain) and test fixtures. */
export async function createApiKey(db: Db, input: { tenantId: string; name: string; scopes: Scope[]; expiresAt?: Date | null }): Promise<CreatedKey> {
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

// ---- key administration as ledger events ----
// Creating and revoking a key through the API (or the operator CLI) is an admin action: the row
// and an `api_key.created` / `api_key.revoked` event commit in one transaction (Writer.run). The
// payload names the key (id, prefix, name, scopes) and who acted, never the secret or its hash.

/** Who performed an admin action: the API key of the request, or the operator CLI. */
export type KeyActor = { keyId: string } | { operator: 'cli' };

function actorPayload(actor: KeyActor) {
  return 'keyId' in actor ? { byKeyId: actor.keyId } : { byOperator: actor.operator };
}

export async function createApiKeyRecorded(
  w: WriteContext,
  input: { name: string; scopes: Scope[]; expiresAt?: Date | null },
  actor: KeyActor,
): Promise<CreatedKey> {
  const generated = generateApiKey();
  const expiresAt = input.expiresAt ?? null;
  const p = new Params();
  const insert = insertInto(p, 'api_keys', {
    tenant_id: w.tenantId,
    name: input.name,
    prefix: generated.prefix,
    secret_hash: generated.secretHash,
    scopes: input.scopes,
    created_at: w.now,
    expires_at: expiresAt,
  });
  const id = must((await queryRows<Pick<ApiKeysRow, 'id'>>(w.client, `${insert} RETURNING id`, p))[0]).id;
  w.events.push({
    type: 'api_key.created',
    payload: {
      keyId: id,
      name: input.name,
      prefix: generated.prefix,
      scopes: input.scopes,
      expiresAt: expiresAt?.toISOString() ?? null,
      ...actorPayload(actor),
    },
  });
  return { id, token: generated.token, tenantId: w.tenantId, scopes: input.scopes };
}

/** Revokes a key of the writer's tenant; null when it has no such key. Revoking twice changes (and records) nothing. */
export async function revokeApiKeyRecorded(w: WriteContext, id: string, actor: KeyActor): Promise<{ id: string; revoked: boolean } | null> {
  if (!isUuid(id)) return null;
  const p = new Params();
  const [key] = await queryRows<Pick<ApiKeysRow, 'id' | 'prefix' | 'revoked_at'>>(
    w.client,
    `SELECT id, prefix, revoked_at FROM api_keys WHERE tenant_id = ${p.add(w.tenantId)} AND id = ${p.add(id)} FOR UPDATE`,
    p,
  );
  if (!key) return null;
  if (key.revoked_at) return { id: key.id, revoked: false };
  const u = new Params();
  await w.client.query(`UPDATE api_keys SET revoked_at = ${u.add(w.now)} WHERE tenant_id = ${u.add(w.tenantId)} AND id = ${u.add(key.id)}`, u.values);
  w.events.push({ type: 'api_key.revoked', payload: { keyId: key.id, prefix: key.prefix, ...actorPayload(actor) } });
  return { id: key.id, revoked: true };
}
