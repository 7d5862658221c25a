// What learning keeps of a forgotten episode (docs/LEDGER.md §3.4): its observations of patterns
// go, and a pattern no kept episode was observed in goes with them (its description, cue and
// signature came from the forgotten run alone). Patterns other runs also showed stay, with their
// counts: running aggregates that hold no text of the forgotten run.
import type pg from 'pg';
import { Params } from '../db/sql.ts';

/** Deletes the episodes' pattern observations and the patterns left without any; in the caller's transaction. */
export async function forgetEpisodePatterns(client: pg.PoolClient, tenantId: string, episodeIds: readonly string[]): Promise<void> {
  if (episodeIds.length === 0) return;
  const p = new Params();
  const tenant = p.add(tenantId);
  const ids = p.add(episodeIds);
  await client.query(
    `WITH gone AS (DELETE FROM pattern_episodes WHERE tenant_id = ${tenant} AND episode_id = ANY(${ids}::uuid[]) RETURNING pattern_id)
     DELETE FROM patterns x WHERE x.tenant_id = ${tenant}
       AND (x.id IN (SELECT pattern_id FROM gone) OR x.first_episode_id = ANY(${ids}::uuid[]))
       AND NOT EXISTS (SELECT 1 FROM pattern_episodes pe WHERE pe.pattern_id = x.id AND NOT (pe.episode_id = ANY(${ids}::uuid[])))`,
    p.values,
  );
  const q = new Params();
  await client.query(
    `UPDATE patterns SET first_episode_id = NULL WHERE tenant_id = ${q.add(tenantId)} AND first_episode_id = ANY(${q.add(episodeIds)}::uuid[])`,
    q.values,
  );
}
