// Reads the stored values of hashed rows (hashed-rows.ts) for an export, tenant-scoped: the same
// columns verifyLedger compares (row-checks.ts).
import type pg from 'pg';
import type { CheckpointsRow, EpisodesRow } from '../../db/rows.ts';
import { Params, queryRows } from '../../db/sql.ts';
import { EPISODE_RECORD_COLUMNS, type EpisodeRecordColumns, episodeRecord } from '../format/episode-record.ts';
import { type HashedRow, type HashedRowKind, rowKey } from '../format/hashed-rows.ts';

type EpisodeValues = Pick<EpisodesRow, 'id' | 'outcome' | 'critique' | 'reward' | 'reflection'> & EpisodeRecordColumns;

const EPISODE_COLUMNS: Partial<Record<HashedRowKind, 'outcome' | 'critique' | 'reward' | 'reflection'>> = {
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
  const pe = new Params();
  const episodes = await queryRows<EpisodeValues>(
    pool,
    `SELECT id, outcome, critique, reward, reflection, ${EPISODE_RECORD_COLUMNS} FROM episodes
      WHERE tenant_id = ${pe.add(tenantId)} AND id = ANY(${pe.add(ids((k) => k in EPISODE_COLUMNS || k === 'episode.record'))}::uuid[])`,
    pe,
  );
  for (const e of episodes) {
    for (const [kind, column] of Object.entries(EPISODE_COLUMNS)) rows.push({ kind: kind as HashedRowKind, id: e.id, value: e[column] ?? null });
    rows.push({ kind: 'episode.record', id: e.id, value: episodeRecord(e) });
  }
  const ps = new Params();
  const states = await queryRows<Pick<CheckpointsRow, 'id' | 'state'>>(
    pool,
    `SELECT id, state FROM checkpoints WHERE tenant_id = ${ps.add(tenantId)} AND id = ANY(${ps.add(ids((k) => k === 'checkpoint.state'))}::uuid[])`,
    ps,
  );
  for (const s of states) rows.push({ kind: 'checkpoint.state', id: s.id, value: s.state });
  const pr = new Params();
  const retrievals = await queryRows<{ id: string; e: string[]; w: string[]; p: string[] }>(
    pool,
    `SELECT id, episode_ids::text[] AS e, warning_ids::text[] AS w, pattern_ids::text[] AS p
       FROM retrievals WHERE tenant_id = ${pr.add(tenantId)} AND id = ANY(${pr.add(ids((k) => k === 'retrieval.results'))}::uuid[])`,
    pr,
  );
  for (const r of retrievals) rows.push({ kind: 'retrieval.results', id: r.id, value: { episodes: r.e, warnings: r.w, patterns: r.p } });
  return rows.filter((r) => wanted.has(rowKey(r)));
}
