// Operator commands that work on the server's database directly: creating tenants and keys
// before any key exists, and rotating keys. The rules are auth's (key-admin.ts); this translates
// its answers into one-line failures with exit codes.
import { createKey, keysOfTenant, revokeKey, tenantNamed, tenantsInOrder } from '../auth/key-admin.ts';
import { createTenant } from '../auth/store.ts';
import { InputLimitError } from '../core/errors.ts';
import type { Services } from '../services.ts';
import { CliError, EXIT } from './errors.ts';

async function findTenant(services: Services, nameOrId: string) {
  const tenant = await tenantNamed(services.db.prisma, nameOrId);
  if (!tenant) throw new CliError(`no tenant named or with id "${nameOrId}"`, EXIT.usage);
  return tenant;
}

export async function tenantCreate(services: Services, name: string) {
  if (await tenantNamed(services.db.prisma, name)) throw new CliError(`tenant "${name}" already exists`, EXIT.usage);
  const tenant = await createTenant(services.db.prisma, name);
  return { id: tenant.id, name: tenant.name };
}

export async function tenantList(services: Services) {
  return (await tenantsInOrder(services.db.prisma)).map((t) => ({ id: t.id, name: t.name, createdAt: t.createdAt.toISOString() }));
}

export async function keyCreate(services: Services, opts: { tenant: string; name: string; scopes: string; expiresAt?: string }) {
  const tenant = await findTenant(services, opts.tenant);
  const expiresAt = opts.expiresAt ? new Date(opts.expiresAt) : null;
  if (expiresAt && Number.isNaN(expiresAt.getTime())) throw new CliError(`--expires must be an ISO date, got "${opts.expiresAt}"`, EXIT.usage);
  const scopes = opts.scopes
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  try {
    // Recorded in the tenant's ledger (api_key.created), as the API does.
    const key = await createKey(services.writer, tenant.id, { name: opts.name, scopes, expiresAt }, { operator: 'cli' });
    return { id: key.id, tenant: tenant.name, scopes: key.scopes, token: key.token };
  } catch (e) {
    if (e instanceof InputLimitError) throw new CliError(`${e.violations.map((v) => v.message).join('; ')} (scopes: read, write, admin)`, EXIT.usage);
    throw e;
  }
}

export async function keyList(services: Services, tenantName: string) {
  const tenant = await findTenant(services, tenantName);
  return (await keysOfTenant(services.db.prisma, tenant.id)).map((k) => ({
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    expiresAt: k.expiresAt?.toISOString() ?? null,
    revokedAt: k.revokedAt?.toISOString() ?? null,
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
  }));
}

export async function keyRevoke(services: Services, tenantName: string, id: string) {
  const tenant = await findTenant(services, tenantName);
  const revoked = await revokeKey(services.writer, tenant.id, id, { operator: 'cli' });
  if (!revoked) throw new CliError(`no key ${id} in tenant ${tenant.name}`, EXIT.usage);
  const key = await services.db.prisma.apiKey.findUniqueOrThrow({ where: { id: revoked } });
  return { id: key.id, revokedAt: key.revokedAt?.toISOString() };
}
