// First start: a database without tenants gets a default tenant and an admin key, written to a
// file only the current user can read. Several processes may start at once, hence the lock.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from '../db/client.ts';
import { Params } from '../db/sql.ts';
import { createApiKey } from './store.ts';

const BOOTSTRAP_LOCK_KEY = 72_707_369_002;

export interface BootstrapResult {
  tenantId: string;
  keyFile: string;
}

export async function bootstrapDefaultTenant(db: Database, dataDir: string): Promise<BootstrapResult | null> {
  const client = await db.pool.connect();
  try {
    const lock = new Params();
    await client.query(`SELECT pg_advisory_lock(${lock.add(BOOTSTRAP_LOCK_KEY)})`, lock.values);
    const { rowCount } = await client.query('SELECT 1 FROM tenants LIMIT 1');
    if (rowCount) return null;
    const tenant = await db.prisma.tenant.create({ data: { name: 'default' } });
    const key = await createApiKey(db.prisma, { tenantId: tenant.id, name: 'bootstrap admin', scopes: ['admin'] });
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const keyFile = join(dataDir, 'admin-key');
    await writeFile(keyFile, `${key.token}\n`, { mode: 0o600 });
    return { tenantId: tenant.id, keyFile };
  } finally {
    const unlock = new Params();
    await client.query(`SELECT pg_advisory_unlock(${unlock.add(BOOTSTRAP_LOCK_KEY)})`, unlock.values).catch(() => undefined);
    client.release();
  }
}
