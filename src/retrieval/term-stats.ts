// How common each description word and each tag is, from PostgreSQL's own statistics: ANALYZE
// keeps the most common elements of a tsvector or array column with their frequencies
// (pg_stats.most_common_elems). A word or tag listed above the threshold matches too many episodes
// to select candidates by ("the", "fix", "der", "и", a tag on every other episode); anything else
// (a service, an identifier, an error code, a customer tag) is selective. This works in every
// language and costs one small query per process every few minutes. The numbers are a cache of
// what the database already keeps; only speed and which candidates are looked at depend on them.
import type pg from 'pg';
import { LONG_WORD_CHARS } from './words.ts';

/**
 * Words in more than this share of episodes, and in more than MIN_SELECTIVE_ROWS of them, do not
 * select candidates (they still count in scoring). The absolute floor matters in small tables,
 * where one row is already a large share: reading a few thousand index entries is cheap.
 */
export const RARE_WORD_FREQUENCY = 0.003;
/** The same for tags. */
export const RARE_TAG_FREQUENCY = 0.01;
export const MIN_SELECTIVE_ROWS = 2000;
const REFRESH_MS = 5 * 60_000;

export interface TermStats {
  loadedAt: number;
  /** The planner's estimate of the episodes table's rows (pg_class.reltuples; 0 before ANALYZE). */
  rows: number;
  /** Word → share of episodes containing it, for the common words; absent words are rare. */
  words: Map<string, number>;
  /** Tag → share of episodes carrying it, for the common tags. */
  tags: Map<string, number>;
}

const caches = new WeakMap<pg.Pool, Promise<TermStats>>();

async function load(pool: pg.Pool): Promise<TermStats> {
  const { rows } = await pool.query<{ column: string; elems: string[] | null; freqs: number[] | null }>(
    `SELECT attname AS column, most_common_elems::text::text[] AS elems, most_common_elem_freqs AS freqs
       FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'episodes' AND attname IN ('task_document', 'tags')`,
  );
  const frequencies = (column: string) => {
    const row = rows.find((r) => r.column === column);
    return new Map((row?.elems ?? []).map((elem, i): [string, number] => [elem, row?.freqs?.[i] ?? 0]));
  };
  const { rows: table } = await pool.query<{ rows: number }>(`SELECT GREATEST(reltuples, 0)::float8 AS rows FROM pg_class WHERE oid = 'episodes'::regclass`);
  return { loadedAt: Date.now(), rows: table[0]?.rows ?? 0, words: frequencies('task_document'), tags: frequencies('tags') };
}

/** Drops the cached statistics of a pool (after ANALYZE, in tests). */
export function forgetTermStats(pool: pg.Pool): void {
  caches.delete(pool);
}

export async function termStats(pool: pg.Pool): Promise<TermStats> {
  const cached = caches.get(pool);
  const current = cached ? await cached.catch(() => null) : null;
  if (current && Date.now() - current.loadedAt <= REFRESH_MS) return current;
  const loading = load(pool);
  caches.set(pool, loading);
  return loading;
}

/**
 * The words that select few enough episodes, rarest first. Before ANALYZE has seen the table
 * (a new or small database) there are no statistics; then only long words count as selective.
 */
export function selectiveWords(words: readonly string[], stats: TermStats): string[] {
  if (stats.words.size === 0) return words.filter((word) => Array.from(word).length >= LONG_WORD_CHARS);
  return rarest(words.filter((word) => Array.from(word).length >= 2), stats.words, threshold(RARE_WORD_FREQUENCY, stats.rows));
}

/** The query's tags that few enough episodes carry (all of them before ANALYZE). */
export function selectiveTags(tags: readonly string[], stats: TermStats): string[] {
  return rarest(tags, stats.tags, threshold(RARE_TAG_FREQUENCY, stats.rows));
}

function threshold(frequency: number, rows: number): number {
  return rows > 0 ? Math.max(frequency, MIN_SELECTIVE_ROWS / rows) : frequency;
}

function rarest(values: readonly string[], frequencies: ReadonlyMap<string, number>, threshold: number): string[] {
  return values
    .map((value) => ({ value, frequency: frequencies.get(value) ?? 0 }))
    .filter((v) => v.frequency <= threshold)
    .sort((a, b) => a.frequency - b.frequency)
    .map((v) => v.value);
}

/** The n least common of the words (by the statistics; unlisted words first). */
export function leastCommon(words: readonly string[], stats: TermStats, n: number): string[] {
  return rarest(words, stats.words, Infinity).slice(0, n);
}
