// An episode's record for its proof bundle (§6): its events (lease.charged names its episode in the
// payload, §10), its step rows and the blobs its kept steps reference (§3.3).
import type pg from 'pg';
import type { StepsRow } from '../../db/rows.ts';
import { Params, queryRows } from '../../db/sql.ts';
import type { ForgottenStepRow } from '../format/forgotten.ts';
import type { StoredLedgerEvent } from '../format/hash.ts';
import { type StepRow, stepKeptMembers, stepRowFromColumns } from '../format/step-hash.ts';
import { EVENT_COLUMNS, type LedgerEventSqlRow, toEvent } from '../store/read.ts';
import { type BundleBlob, storedBlobRefs } from './bundle-blobs.ts';

export async function episodeExists(pool: pg.Pool, tenantId: string, id: string): Promise<boolean> {
  const p = new Params();
  return (await queryRows(pool, `SELECT 1 FROM episodes WHERE id = ${p.add(id)} AND tenant_id = ${p.add(tenantId)}`, p)).length > 0;
}

/** An episode's events (lease.charged names its episode in the payload, §10) and its step rows. */
export async function episodeRecord(
  pool: pg.Pool,
  tenantId: string,
  episodeId: string,
): Promise<{ events: StoredLedgerEvent[]; steps: Array<StepRow | ForgottenStepRow>; blobs: BundleBlob[] }> {
  const e = new Params();
  const episode = e.add(episodeId);
  const events = await queryRows<LedgerEventSqlRow>(
    pool,
    `SELECT ${EVENT_COLUMNS} FROM ledger_events
      WHERE tenant_id = ${e.add(tenantId)} AND (episode_id = ${episode} OR (type = 'lease.charged' AND payload->>'episodeId' = ${episode}::text)) ORDER BY seq`,
    e,
  );
  const p = new Params();
  const steps = await queryRows<StepsRow>(
    pool,
    `SELECT * FROM steps WHERE tenant_id = ${p.add(tenantId)} AND episode_id = ${p.add(episodeId)} ORDER BY step_number`,
    p,
  );
  // A forgotten step is carried as its number and the members it keeps: its steps.forgotten event, in events, vouches for it (§3.4).
  const rows = steps.map((s) =>
    s.forgotten_at ? { stepNumber: s.step_number, forgotten: true as const, kept: stepKeptMembers(stepRowFromColumns(s)) } : stepRowFromColumns(s),
  );
  return { events: events.map(toEvent), steps: rows, blobs: await blobsOf(pool, tenantId, rows.flatMap(storedBlobRefs)) };
}

/** The stored blobs of these hashes (a v3 bundle carries the blobs its kept steps reference, §3.3). */
async function blobsOf(pool: pg.Pool, tenantId: string, hashes: string[]): Promise<BundleBlob[]> {
  if (!hashes.length) return [];
  const p = new Params();
  const sql = `SELECT hash, content FROM blobs WHERE tenant_id = ${p.add(tenantId)} AND hash = ANY(${p.add([...new Set(hashes)])}::text[]) ORDER BY hash`;
  return queryRows<BundleBlob>(pool, sql, p);
}
