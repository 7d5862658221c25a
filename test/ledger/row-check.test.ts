// The check of hashed rows verifyLedger makes (src/ledger/verification/row-checks.ts RowCheck) against a real
// database, with chunks small enough that it checks ahead during the walk: an edited row of an
// episode checked ahead is caught at its event, an episode whose claim changed after its check
// ahead (a later critique) is judged by its latest claim only (the row that matches it passes, the
// row that matches the old one fails), and checkpoint states checked ahead are caught as well.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant } from '../../src/auth/store.ts';
import { contentHash, type StoredLedgerEvent } from '../../src/ledger/format/hash.ts';
import { RowClaims } from '../../src/ledger/format/row-claims.ts';
import { OneQueryAtATime } from '../../src/ledger/verification/one-query.ts';
import { RowCheck } from '../../src/ledger/verification/row-checks.ts';
import { createMigratedDatabase, type MigratedDatabase } from '../support/db.ts';

let m: MigratedDatabase;
let tenantId: string;
const EPISODES = 12;
const ids = Array.from({ length: EPISODES }, () => randomUUID());
const states = Array.from({ length: EPISODES }, () => randomUUID());
const critique = (k: number, round = 0) => ({ verdict: 'pass', score: k / 10, round });

beforeAll(async () => {
  m = await createMigratedDatabase();
  tenantId = (await createTenant(m.db.prisma, `row-check-${randomUUID()}`)).id;
  await m.db.pool.query(
    `INSERT INTO episodes (id, tenant_id, task_description, task_type, status, critique)
     SELECT id, $1, 'fix the failing test', 'coding', 'completed', c FROM unnest($2::uuid[], $3::jsonb[]) AS u(id, c)`,
    [tenantId, ids, ids.map((_, k) => JSON.stringify(critique(k)))],
  );
  await m.db.pool.query(
    `INSERT INTO checkpoints (id, tenant_id, episode_id, step_number, state)
     SELECT id, $1, e, 1, jsonb_build_object('cursor', n) FROM unnest($2::uuid[], $3::uuid[]) WITH ORDINALITY AS u(id, e, n)`,
    [tenantId, states, ids],
  );
});
afterAll(() => m.drop());

/** Events as the walk meets them: per episode a checkpoint.saved and a critique.recorded, then `later`. */
function events(later: Partial<StoredLedgerEvent>[] = []): Partial<StoredLedgerEvent>[] {
  const first = ids.flatMap((episodeId, k) => [
    { type: 'checkpoint.saved', episodeId, payload: { checkpointId: states[k], stateHash: contentHash({ cursor: k + 1 }) } },
    { type: 'critique.recorded', episodeId, payload: { critiqueHash: contentHash(critique(k)) } },
  ]);
  return [...first, ...later].map((e, i) => ({ ...e, seq: i + 1 }));
}

/** The walk: each event claimed, a check ahead started every two events; then the verdict. */
async function walk(list: Partial<StoredLedgerEvent>[]) {
  const claims = new RowClaims();
  const queries = new OneQueryAtATime();
  const check = new RowCheck(m.db.pool, tenantId, claims, (q) => queries.run(q), new Map(), { chunk: 3, newestLeft: 2 });
  for (const [i, e] of list.entries()) {
    claims.add(e as StoredLedgerEvent);
    if (i % 2) {
      check.checkAhead();
      await new Promise((resolve) => setTimeout(resolve, 5)); // the walk goes on while a check runs
    }
  }
  return check.finish();
}

describe('RowCheck with checks ahead', () => {
  it('checks every claim once, untouched rows passing', async () => {
    const verdict = await walk(events());
    expect(verdict.failures).toEqual([]);
    expect(verdict.checked).toBe(2 * EPISODES);
    expect(verdict.checkedAhead).toBeGreaterThanOrEqual(EPISODES / 2); // most were checked during the walk
  });

  it('catches an edited critique and an edited checkpoint state of early episodes at their events', async () => {
    // Edited in the test's transaction; the check reads committed rows, so edit for real and restore.
    await m.db.pool.query(`UPDATE episodes SET critique = '{"verdict":"forged"}' WHERE id = $1`, [ids[1]]);
    await m.db.pool.query(`UPDATE checkpoints SET state = '{"cursor":99}' WHERE id = $1`, [states[0]]);
    try {
      const verdict = await walk(events());
      expect(verdict.failures.map((f) => f.seq)).toEqual([1, 4]);
      expect(verdict.failures[1]?.reason).toContain(`episode ${ids[1]} critique`);
    } finally {
      await m.db.pool.query(`UPDATE episodes SET critique = $2 WHERE id = $1`, [ids[1], JSON.stringify(critique(1))]);
      await m.db.pool.query(`UPDATE checkpoints SET state = '{"cursor":1}' WHERE id = $1`, [states[0]]);
    }
  });

  it('judges an episode re-critiqued after its check ahead by its latest claim only', async () => {
    const recritique = { type: 'critique.recorded', episodeId: ids[0], payload: { critiqueHash: contentHash(critique(0, 1)) } };
    const list = events([recritique]);
    // The row still holds the first critique: the latest claim (the last event) fails, the first is not judged.
    const stale = await walk(list);
    expect(stale.failures.map((f) => f.seq)).toEqual([list.length]);
    expect(stale.checkedAhead).toBeGreaterThan(0); // the first episode was among them, before its second critique
    await m.db.pool.query(`UPDATE episodes SET critique = $2 WHERE id = $1`, [ids[0], JSON.stringify(critique(0, 1))]);
    try {
      const current = await walk(list);
      expect(current.failures).toEqual([]);
      expect(current.checked).toBe(2 * EPISODES);
    } finally {
      await m.db.pool.query(`UPDATE episodes SET critique = $2 WHERE id = $1`, [ids[0], JSON.stringify(critique(0))]);
    }
  });
});
