// Reads the stored values of hashed rows (hashed-rows.ts) for an export, tenant-scoped: the same
// columns verifyLedger compares (row-checks.ts).
import type pg from 'pg';
import type { CheckpointsRow, EpisodesRow } from '../../db/rows.ts';
import { Params, queryRows } from '../../db/sql.ts';
import { EPISODE_RECORD_COLUMNS, type EpisodeRecordColumns, episodeRecord } from '../format/episode-record.ts';
import { type HashedRow, type HashedRowKind, rowKey } from '../format/hashed-rows.ts';

type EpisodeValues = Pick<EpisodesRow, 'id' | 'outcome' | 'critique' | 'reward' | 'reflection' | 'reward_score' | 'context_pack_hash' | 'manifest_hash'> &
  EpisodeRecordColumns;

const EPISODE_COLUMNS: Partial<Record<HashedRowKind, 'outcome' | 'critique' | 'reward' | 'reflection' | 'reward_score'>> = {
  'episode.outcome': 'outcome',
  'episode.critique': 'critique',
  'episode.reward': 'reward',
  'episode.reflection': 'reflection',
  'episode.reward_score': 'reward_score',
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
    `SELECT id, outcome, critique, reward, reflection, reward_score, context_pack_hash, manifest_hash, ${EPISODE_RECORD_COLUMNS} FROM episodes
      WHERE tenant_id = ${pe.add(tenantId)} AND id = ANY(${pe.add(ids((k) => k.startsWith('episode.')))}::uuid[])`,
    pe,
  );
  for (const e of episodes) {
    for (const [kind, column] of Object.entries(EPISODE_COLUMNS)) rows.push({ kind: kind as HashedRowKind, id: e.id, value: e[column] ?? null });
    rows.push({ kind: 'episode.record', id: e.id, value: episodeRecord(e) });
    rows.push({ kind: 'episode.context_pack', id: e.id, value: { packHash: e.context_pack_hash, manifestHash: e.manifest_hash } });
  }
  const ps = new Params();
  const states = await queryRows<Pick<CheckpointsRow, 'id' | 'state'>>(
    pool,
    `SELECT id, state FROM checkpoints WHERE tenant_id = ${ps.add(tenantId)} AND id = ANY(${ps.add(ids((k) => k === 'checkpoint.state'))}::uuid[])`,
    ps,
  );
  for (const s of states) rows.push({ kind: 'checkpoint.state', id: s.id, value: s.state });
  const pr = new Params();
  const retrievals = await queryRows<{ id: string; e: string[]; w: string[]; p: string[]; results_hash: string }>(
    pool,
    `SELECT id, episode_ids::text[] AS e, warning_ids::text[] AS w, pattern_ids::text[] AS p, results_hash
       FROM retrievals WHERE tenant_id = ${pr.add(tenantId)} AND id = ANY(${pr.add(ids((k) => k.startsWith('retrieval.')))}::uuid[])`,
    pr,
  );
  for (const r of retrievals) {
    rows.push({ kind: 'retrieval.results', id: r.id, value: { episodes: r.e, warnings: r.w, patterns: r.p } });
    rows.push({ kind: 'retrieval.results_hash', id: r.id, value: r.results_hash });
  }
  return rows.filter((r) => wanted.has(rowKey(r)));
}
