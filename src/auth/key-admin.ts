// Key administration, the use cases the API and the operator CLI both call: a request is checked
// (name, scopes, an expiry in the future) before anything is written, and the key row commits with
// its api_key.created / api_key.revoked ledger event (Writer.run).
import { InputLimitError } from '../core/errors.ts';
import { canonicalId, isUuid } from '../core/ids.ts';
import type { Db } from '../db/client.ts';
import type { Writer } from '../write.ts';
import { checkKeyRequest, pastExpiryViolations } from './keys.ts';
import { type CreatedKey, createApiKeyRecorded, type KeyActor, revokeApiKeyRecorded } from './store.ts';

export interface KeyRequest {
  name: string;
  scopes: readonly string[];
  expiresAt?: Date | null;
}

/** A new key of the tenant, or an InputLimitError naming each bad field (nothing written). */
export async function createKey(writer: Writer, tenantId: string, request: KeyRequest, actor: KeyActor, now = new Date()): Promise<CreatedKey> {
  const { scopes, violations } = checkKeyRequest(request.name, request.scopes);
  violations.push(...pastExpiryViolations('expiresAt', request.expiresAt, now));
  if (violations.length) throw new InputLimitError(violations);
  return writer.run(tenantId, (w) => createApiKeyRecorded(w, { name: request.name, scopes, expiresAt: request.expiresAt ?? null }, actor));
}

/** The revoked key's id, or null when the tenant has no such key (revoking twice records nothing). */
export async function revokeKey(writer: Writer, tenantId: string, id: string, actor: KeyActor): Promise<string | null> {
  const keyId = canonicalId(id);
  if (!isUuid(keyId)) return null;
  return (await writer.run(tenantId, (w) => revokeApiKeyRecorded(w, keyId, actor)))?.id ?? null;
}

/** The tenant of this name, else of this id; null when there is none. */
export async function tenantNamed(db: Db, nameOrId: string) {
  const byName = await db.tenant.findUnique({ where: { name: nameOrId } });
  if (byName) return byName;
  return isUuid(nameOrId) ? db.tenant.findUnique({ where: { id: canonicalId(nameOrId) } }) : null;
}

export const tenantsInOrder = (db: Db) => db.tenant.findMany({ orderBy: { createdAt: 'asc' } });

export const keysOfTenant = (db: Db, tenantId: string) => db.apiKey.findMany({ where: { tenantId }, orderBy: { createdAt: 'asc' } });
