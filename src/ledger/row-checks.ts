// verifyLedger's checks of the rows events hash (docs/LEDGER.md §7.5): each payload hash that
// names a stored value is compared with that value as stored now. An event fixes the value at its
// time; where later events replace the value (a new critique, a re-scored experience), only the
// latest event of the episode is compared, and only when the verified range reaches the head.
import type pg from 'pg';
import type { CheckpointsRow, EpisodesRow, RetrievalsRow } from '../db/rows.ts';
import { Params, queryRows } from '../db/sql.ts';
import { contentHash } from './hash.ts';
import type { Claim, RowClaims } from './row-claims.ts';

export interface RowFailure {
  seq: number;
  reason: string;
}

const CHUNK = 1_000;

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

function compare(claim: Claim | undefined, actual: string | null, what: string, failures: RowFailure[]): number {
  if (!claim) return 0;
  if (claim.hash !== actual) failures.push({ seq: claim.seq, reason: `${what} no longer hashes to the value seq ${claim.seq} recorded` });
  return 1;
}

/** Compares every collected claim with the stored rows; returns the count checked and failures, lowest seq first. */
export async function checkRows(pool: pg.Pool, tenantId: string, claims: RowClaims): Promise<{ checked: number; failures: RowFailure[] }> {
  const failures: RowFailure[] = [];
  let checked = 0;
  for (const ids of chunks([...claims.episodes.keys()])) {
    const p = new Params();
    const rows = await queryRows<Pick<EpisodesRow, 'id' | 'input_hash' | 'outcome' | 'critique' | 'reward' | 'reflection'>>(
      pool,
      `SELECT id, input_hash, outcome, critique, reward, reflection FROM episodes WHERE tenant_id = ${p.add(tenantId)} AND id = ANY(${p.add(ids)}::uuid[])`,
      p,
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const id of ids) {
      const c = claims.episodes.get(id) ?? {};
      const row = byId.get(id);
      const hashOf = (v: unknown) => (row && v != null ? contentHash(v) : null);
      checked += compare(c.inputHash, row?.input_hash ?? null, `episode ${id} input_hash`, failures);
      checked += compare(c.outcomeHash, hashOf(row?.outcome), `episode ${id} outcome`, failures);
      checked += compare(c.critiqueHash, hashOf(row?.critique), `episode ${id} critique`, failures);
      checked += compare(c.rewardHash, hashOf(row?.reward), `episode ${id} reward`, failures);
      checked += compare(c.reflectionHash, hashOf(row?.reflection), `episode ${id} reflection`, failures);
    }
  }
  for (const part of chunks(claims.states)) {
    const p = new Params();
    const sql = `SELECT id, state FROM checkpoints WHERE tenant_id = ${p.add(tenantId)} AND id = ANY(${p.add(part.map((s) => s.id))}::uuid[])`;
    const rows = await queryRows<Pick<CheckpointsRow, 'id' | 'state'>>(pool, sql, p);
    const byId = new Map(rows.map((r) => [r.id, r.state]));
    for (const s of part) checked += compare(s, byId.has(s.id) ? contentHash(byId.get(s.id)) : null, `checkpoint ${s.id} state`, failures);
  }
  for (const part of chunks(claims.retrievals)) {
    const p = new Params();
    const rows = await queryRows<Pick<RetrievalsRow, 'id' | 'query_hash' | 'episode_ids' | 'warning_ids' | 'pattern_ids'>>(
      pool,
      `SELECT id, query_hash, episode_ids::text[] AS episode_ids, warning_ids::text[] AS warning_ids, pattern_ids::text[] AS pattern_ids
         FROM retrievals WHERE tenant_id = ${p.add(tenantId)} AND id = ANY(${p.add(part.map((r) => r.id))}::uuid[])`,
      p,
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const r of part) {
      const row = byId.get(r.id);
      checked += compare({ seq: r.seq, hash: r.queryHash }, row?.query_hash ?? null, `retrieval ${r.id} query_hash`, failures);
      const results = row ? contentHash({ episodes: row.episode_ids, warnings: row.warning_ids, patterns: row.pattern_ids }) : null;
      checked += compare({ seq: r.seq, hash: r.resultsHash }, results, `retrieval ${r.id} results`, failures);
    }
  }
  failures.sort((a, b) => a.seq - b.seq);
  return { checked, failures };
}
