// Operator commands that work on the server's database directly: creating tenants and keys
// before any key exists, and rotating keys.
import { checkKeyRequest } from '../auth/keys.ts';
import { createApiKeyRecorded, createTenant, revokeApiKeyRecorded } from '../auth/store.ts';
import type { Services } from '../services.ts';
import { CliError } from './errors.ts';

async function findTenant(services: Services, nameOrId: string) {
  const { prisma } = services.db;
  const byName = await prisma.tenant.findUnique({ where: { name: nameOrId } });
  if (byName) return byName;
  const byId = /^[0-9a-f-]{36}$/i.test(nameOrId) ? await prisma.tenant.findUnique({ where: { id: nameOrId } }) : null;
  if (!byId) throw new CliError(`no tenant named or with id "${nameOrId}"`, 2);
  return byId;
}

export async function tenantCreate(services: Services, name: string) {
  if (await services.db.prisma.tenant.findUnique({ where: { name } })) throw new CliError(`tenant "${name}" already exists`, 2);
  const tenant = await createTenant(services.db.prisma, name);
  return { id: tenant.id, name: tenant.name };
}

export async function tenantList(services: Services) {
  const tenants = await services.db.prisma.tenant.findMany({ orderBy: { createdAt: 'asc' } });
  return tenants.map((t) => ({ id: t.id, name: t.name, createdAt: t.createdAt.toISOString() }));
}

export async function keyCreate(services: Services, opts: { tenant: string; name: string; scopes: string; expiresAt?: string }) {
  const tenant = await findTenant(services, opts.tenant);
  const { scopes, violations } = checkKeyRequest(
    opts.name,
    opts.scopes
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  if (violations.length) throw new CliError(`${violations.map((v) => v.message).join('; ')} (scopes: read, write, admin)`, 2);
  const expiresAt = opts.expiresAt ? new Date(opts.expiresAt) : null;
  if (expiresAt && Number.isNaN(expiresAt.getTime())) throw new CliError(`--expires must be an ISO date, got "${opts.expiresAt}"`, 2);
  // Recorded in the tenant's ledger (api_key.created), as the API does.
  const key = await services.writer.run(tenant.id, (w) => createApiKeyRecorded(w, { name: opts.name, scopes, expiresAt }, { operator: 'cli' }));
  return { id: key.id, tenant: tenant.name, scopes: key.scopes, token: key.token };
}

export async function keyList(services: Services, tenantName: string) {
  const tenant = await findTenant(services, tenantName);
  const keys = await services.db.prisma.apiKey.findMany({ where: { tenantId: tenant.id }, orderBy: { createdAt: 'asc' } });
  return keys.map((k) => ({
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
  const revoked = await services.writer.run(tenant.id, (w) => revokeApiKeyRecorded(w, id, { operator: 'cli' }));
  if (!revoked) throw new CliError(`no key ${id} in tenant ${tenant.name}`, 2);
  const key = await services.db.prisma.apiKey.findUniqueOrThrow({ where: { id: revoked.id } });
  return { id: key.id, revokedAt: key.revokedAt?.toISOString() };
}
