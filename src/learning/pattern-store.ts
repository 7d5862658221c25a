// SQL for pattern statistics. Rows are created and locked in key order, so concurrent extractions
// touching the same patterns queue on their rows instead of deadlocking or merging twice.
import type pg from 'pg';
import type { ContextFacts } from './facts.ts';
import type { PatternCandidate, PatternObservation, PatternStats } from './patterns.ts';

export type PatternStatus = 'candidate' | 'active' | 'superseded';

export interface StoredPattern {
  id: string;
  key: string;
  status: PatternStatus;
  supersededAt: Date | null;
  /** null when the row was only just created (no observation yet). */
  stats: PatternStats | null;
}

/** Creates missing rows (with the first episode's context), then locks and reads every candidate's row. */
export async function lockPatterns(
  client: pg.PoolClient,
  tenantId: string,
  candidates: readonly PatternCandidate[],
  origin: { episodeId: string; context: ContextFacts; now: Date },
): Promise<Map<string, StoredPattern>> {
  const sorted = [...candidates].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const { context: c } = origin;
  await client.query(
    `INSERT INTO patterns (tenant_id, key, kind, signature, description, domain, language, framework, tags, first_episode_id, created_at, updated_at)
     SELECT $1, u.key, u.kind, ARRAY(SELECT jsonb_array_elements_text(u.signature)), u.description, $6, $7, $8, $9, $10, $11, $11
       FROM unnest($2::text[], $3::text[], $4::jsonb[], $5::text[]) WITH ORDINALITY AS u(key, kind, signature, description, n)
      ORDER BY u.n
     ON CONFLICT (tenant_id, key) DO NOTHING`,
    [
      tenantId,
      sorted.map((p) => p.key),
      sorted.map((p) => p.kind),
      sorted.map((p) => JSON.stringify(p.signature)),
      sorted.map((p) => p.description),
      c.domain,
      c.language,
      c.framework,
      c.tags,
      origin.episodeId,
      origin.now,
    ],
  );
  const { rows } = await client.query(
    `SELECT id, key, status, superseded_at, occurrences, successes, success_rate, mean_reward, effectiveness
       FROM patterns WHERE tenant_id = $1 AND key = ANY($2::text[]) ORDER BY key FOR UPDATE`,
    [tenantId, sorted.map((p) => p.key)],
  );
  return new Map(
    rows.map((r) => [
      r.key as string,
      {
        id: r.id,
        key: r.key,
        status: r.status,
        supersededAt: r.superseded_at,
        stats:
          r.occurrences === 0
            ? null
            : { occurrences: r.occurrences, successes: r.successes, successRate: r.success_rate, meanReward: r.mean_reward, effectiveness: r.effectiveness },
      },
    ]),
  );
}

/** The latest `limit` observations of each pattern, oldest first. */
export async function recentObservations(client: pg.PoolClient, patternIds: readonly string[], limit: number): Promise<Map<string, PatternObservation[]>> {
  const result = new Map<string, PatternObservation[]>(patternIds.map((id) => [id, []]));
  if (patternIds.length === 0 || limit <= 0) return result;
  const { rows } = await client.query(
    `SELECT p.id AS pattern_id, r.success, r.reward
       FROM unnest($1::uuid[]) AS p(id)
       CROSS JOIN LATERAL (
         SELECT success, reward, observed_at, episode_id FROM pattern_episodes
          WHERE pattern_id = p.id ORDER BY observed_at DESC, episode_id DESC LIMIT $2
       ) r
      ORDER BY p.id, r.observed_at, r.episode_id`,
    [patternIds, limit],
  );
  for (const r of rows) result.get(r.pattern_id)!.push({ success: r.success, episodeReward: r.reward });
  return result;
}

export interface PatternUpdate {
  id: string;
  stats: PatternStats;
  status: PatternStatus;
  supersededAt: Date | null;
  kept: boolean;
}

/** Writes the merged statistics and statuses, and links every pattern to the episode it was observed in. */
export async function savePatternUpdates(
  client: pg.PoolClient,
  tenantId: string,
  episodeId: string,
  observation: PatternObservation,
  updates: readonly PatternUpdate[],
  now: Date,
): Promise<void> {
  if (updates.length === 0) return;
  await client.query(
    `UPDATE patterns p SET occurrences = u.occurrences, successes = u.successes, success_rate = u.success_rate,
            mean_reward = u.mean_reward, effectiveness = u.effectiveness, status = u.status, superseded_at = u.superseded_at, updated_at = $9
       FROM unnest($1::uuid[], $2::int[], $3::int[], $4::float8[], $5::float8[], $6::float8[], $7::text[], $8::timestamptz[])
            AS u(id, occurrences, successes, success_rate, mean_reward, effectiveness, status, superseded_at)
      WHERE p.id = u.id`,
    [
      updates.map((u) => u.id),
      updates.map((u) => u.stats.occurrences),
      updates.map((u) => u.stats.successes),
      updates.map((u) => u.stats.successRate),
      updates.map((u) => u.stats.meanReward),
      updates.map((u) => u.stats.effectiveness),
      updates.map((u) => u.status),
      updates.map((u) => u.supersededAt),
      now,
    ],
  );
  await client.query(
    `INSERT INTO pattern_episodes (pattern_id, episode_id, tenant_id, success, reward, kept, observed_at)
     SELECT u.id, $3, $4, $5, $6, u.kept, $7 FROM unnest($1::uuid[], $2::bool[]) AS u(id, kept)
     ON CONFLICT (pattern_id, episode_id) DO NOTHING`,
    [updates.map((u) => u.id), updates.map((u) => u.kept), episodeId, tenantId, observation.success, observation.episodeReward, now],
  );
}
