// The tenant's learned ranker in PostgreSQL (ranking_models): loaded by every relevantEpisodes,
// fitted by ranker-training.ts when the learning queue finds a refit due.
import type pg from 'pg';
import type { EpisodeTermTotalsRow, RankingModelsRow } from '../db/rows.ts';
import { Params, queryPrepared, queryRows } from '../db/sql.ts';
import { DEFAULT_CALIBRATION, type StrengthCalibration } from './calibration.ts';
import type { RankingModel } from './ranker.ts';

export const RANKER_TRAINING = {
  /** The newest episodes with changed files used as training queries. */
  queries: 300,
  /** Below this many queries with a relevant candidate the tenant keeps the fixed formula. */
  minQueries: 20,
  /** A model is refitted once this many more episodes are indexed than it was fitted on. */
  refitEvery: 50,
} as const;

type ModelColumns = Pick<RankingModelsRow, 'features' | 'weights' | 'means' | 'scales' | 'calibration'>;

/**
 * The statement reading the tenant's model row (a part of the ranking's own statement, store.ts):
 * a row without features (the fit kept the fixed formula) still carries its calibration.
 */
export function rankingModelSql(p: Params, tenantId: string): string {
  return `SELECT features, weights, means, scales, calibration FROM ranking_models WHERE tenant_id = ${p.add(tenantId)}`;
}

/** The tenant's ranking: its model (null for the fixed formula) and the calibration of its strength. */
export interface TenantRanking {
  model: RankingModel | null;
  calibration: StrengthCalibration;
}

/** The ranking of a row that statement read; the fixed formula and the default calibration without one. */
export function toTenantRanking(row: ModelColumns | null | undefined): TenantRanking {
  const calibration = row?.calibration?.length === 4 ? (row.calibration as unknown as StrengthCalibration) : DEFAULT_CALIBRATION;
  // List columns may hold NULL (Prisma's migrations make them nullable); a row missing one is no model.
  if (!row?.features?.length || !row.weights || !row.means || !row.scales) return { model: null, calibration };
  return { model: { features: row.features, weights: row.weights, means: row.means, scales: row.scales }, calibration };
}

/** The tenant's model (null when it has none or its last fit kept the fixed formula) and calibration. */
export async function loadTenantRanking(pool: pg.Pool, tenantId: string): Promise<TenantRanking> {
  const p = new Params();
  return toTenantRanking((await queryPrepared<ModelColumns>(pool, rankingModelSql(p, tenantId), p))[0]);
}

export interface StoredRankerInfo {
  episodes: number;
  queries: number;
  pairs: number;
  trainedAt: Date;
}

export async function rankingModelInfo(pool: pg.Pool, tenantId: string): Promise<StoredRankerInfo | null> {
  const p = new Params();
  const [row] = await queryRows<Pick<RankingModelsRow, 'episodes' | 'queries' | 'pairs' | 'trained_at'>>(
    pool,
    `SELECT episodes, queries, pairs, trained_at FROM ranking_models WHERE tenant_id = ${p.add(tenantId)}`,
    p,
  );
  return row ? { episodes: row.episodes, queries: row.queries, pairs: row.pairs, trainedAt: row.trained_at } : null;
}

/** Episodes indexed for retrieval (the task field's document count). */
export async function indexedEpisodes(pool: pg.Pool, tenantId: string): Promise<number> {
  const p = new Params();
  const [row] = await queryRows<Pick<EpisodeTermTotalsRow, 'documents'>>(
    pool,
    `SELECT documents FROM episode_term_totals WHERE tenant_id = ${p.add(tenantId)} AND field = 0`,
    p,
  );
  return row?.documents ?? 0;
}

/**
 * Whether the tenant's history has grown enough since its last fit (or to have a first one). A fit
 * that kept the fixed formula is a fit too: its row (no features) records the history it saw, so a
 * tenant whose history cannot beat the formula is tried again after refitEvery more episodes, not
 * after every extraction batch.
 */
export async function refitDue(pool: pg.Pool, tenantId: string): Promise<boolean> {
  const [indexed, info] = await Promise.all([indexedEpisodes(pool, tenantId), rankingModelInfo(pool, tenantId)]);
  if (!info) return indexed >= RANKER_TRAINING.minQueries;
  return indexed >= info.episodes + RANKER_TRAINING.refitEvery;
}
