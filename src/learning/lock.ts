// The one lock order of learning writes. A tenant's pattern counts, pattern and episode credit and
// pattern extraction are serialised by one transaction-level advisory lock per tenant, taken before
// any row a learning write locks (the completing episode's own row, locked by the ending before its
// learning starts, is the one row taken first; no learning transaction waits for an episode that is
// still running). So, in every transaction:
//   1. the ending episode's row (and its work item and lease), if the transaction ends one;
//   2. this lock;
//   3. episode rows (extraction's, in id order; credited episodes, in id order);
//   4. pattern, stratum and baseline rows;
//   5. the ledger head (appendEvents, always last).
// Extraction used to lock its episode's row first and its scope's lock after it, while a queued
// batch held the scope's lock and then locked the next episode's row: 40P01 (deadlock detected).
import type pg from 'pg';
import { Params } from '../db/sql.ts';

export async function lockLearning(client: pg.PoolClient, tenantId: string): Promise<void> {
  const p = new Params();
  await client.query(`SELECT pg_advisory_xact_lock(hashtextextended('learning/' || ${p.add(tenantId)}, 0))`, p.values);
}
