// Reads the stored values of hashed rows (hashed-rows.ts) for an export, tenant-scoped: the same
// columns verifyLedger compares (row-checks.ts).
import type pg from 'pg';
import { type HashedRow, type HashedRowKind, rowKey } from './hashed-rows.ts';

const EPISODE_COLUMNS: Partial<Record<HashedRowKind, string>> = {
  'episode.outcome': 'outcome',
  'episode.critique': 'critique',
  'episode.reward': 'reward',
  'episode.reflection': 'reflection',
};

interface Ref {
  kind: HashedRowKind;
  id: string;
}

export async function readHashedRows(pool: pg.Pool, tenantId: string, refs: Ref[]): Promise<HashedRow[]> {
  const ids = (kinds: (k: HashedRowKind) => boolean) => [...new Set(refs.filter((r) => kinds(r.kind)).map((r) => r.id))];
  const wanted = new Set(refs.map(rowKey));
  const rows: HashedRow[] = [];
  const episodes = await pool.query('SELECT id, outcome, critique, reward, reflection FROM episodes WHERE tenant_id = $1 AND id = ANY($2::uuid[])', [
    tenantId,
    ids((k) => k in EPISODE_COLUMNS),
  ]);
  for (const e of episodes.rows)
    for (const [kind, column] of Object.entries(EPISODE_COLUMNS)) rows.push({ kind: kind as HashedRowKind, id: e.id, value: e[column as string] ?? null });
  const states = await pool.query('SELECT id, state FROM checkpoints WHERE tenant_id = $1 AND id = ANY($2::uuid[])', [
    tenantId,
    ids((k) => k === 'checkpoint.state'),
  ]);
  for (const s of states.rows) rows.push({ kind: 'checkpoint.state', id: s.id, value: s.state });
  const retrievals = await pool.query(
    'SELECT id, episode_ids::text[] AS e, warning_ids::text[] AS w, pattern_ids::text[] AS p FROM retrievals WHERE tenant_id = $1 AND id = ANY($2::uuid[])',
    [tenantId, ids((k) => k === 'retrieval.results')],
  );
  for (const r of retrievals.rows) rows.push({ kind: 'retrieval.results', id: r.id, value: { episodes: r.e, warnings: r.w, patterns: r.p } });
  return rows.filter((r) => wanted.has(rowKey(r)));
}
