// The term index's planner statistics, refreshed after an import instead of at autovacuum's next
// round. The ranking statement's plan depends on them: on the development set, right after an
// import into an empty database, it ran 24 ms at p50 with the statistics of empty tables and 6.5 ms
// once the three tables were analyzed (169 ms of ANALYZE; docs/BENCHMARKS.md, tenth session).
import type pg from 'pg';
import { Params, queryRows } from '../db/sql.ts';

/** The tables the ranking statement reads (store.ts lexicalCandidates). */
const TERM_TABLES = ['episode_terms', 'episode_term_df', 'episode_term_totals'] as const;

/**
 * A table is analyzed again when it has grown by this share of the pages its statistics counted
 * (autovacuum's analyze_scale_factor), and past a floor so that small tenants' bursts analyze
 * nothing. Pages, not PostgreSQL's change counters: a backend reports those up to seconds late.
 */
const GROWTH_SHARE = 0.1;
const PAGES_FLOOR = 8;

/**
 * Analyzes each term table grown by more than GROWTH_SHARE (and past PAGES_FLOOR pages) since its
 * last analysis; returns the tables analyzed. One run at a time per process: a burst that
 * ends while one runs leaves the next burst to catch up.
 */
export function indexStatisticsRefresher(pool: pg.Pool): () => Promise<string[]> {
  let running: Promise<string[]> | null = null;
  return () => {
    running ??= analyzeChanged(pool).finally(() => {
      running = null;
    });
    return running;
  };
}

async function analyzeChanged(pool: pg.Pool): Promise<string[]> {
  const p = new Params();
  const stale = await queryRows<{ table: (typeof TERM_TABLES)[number] }>(
    pool,
    `SELECT c.relname AS table FROM pg_class c
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND c.relname = ANY(${p.add(TERM_TABLES)}::text[])
        AND pg_relation_size(c.oid) / current_setting('block_size')::int > greatest(${p.add(PAGES_FLOOR)}, (1 + ${p.add(GROWTH_SHARE)}::float8) * c.relpages)
      ORDER BY c.relname`,
    p,
  );
  // Names from the fixed list above, not from input.
  for (const { table } of stale) await pool.query(`ANALYZE ${table}`);
  return stale.map((s) => s.table);
}
