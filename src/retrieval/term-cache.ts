// What the ranking reads of a tenant's term index, kept in the server between relevantEpisodes
// calls (issue 55): each word's document frequency per field with its weight, the best postings of
// the terms a query chose, and the candidates' changed files. They change only when the index is
// written, and every index write raises the tenant's generation in its own transaction
// (term-index.ts addTotals/removeTotals), so what is kept is tagged with the generation it was read
// at, and the candidates' statement (candidates.ts keptCandidates) reads the generation in its own snapshot: a call whose kept data is of another generation is
// ranked again from fresh reads, never served. Every read here is of one tenant (tenant_id in each
// statement) and is kept under that tenant only.
//
// The postings summed here are summed as the ranking statement summed them (fixed point, rounded as
// PostgreSQL's round() rounds, exact integer sums): the same candidates and the same totals, bit for bit.
import type pg from 'pg';
import { nextTurn } from '../core/delay.ts';
import { Params, queryPrepared } from '../db/sql.ts';
import { BM25, chooseQueryTerms, type TermStat } from './bm25.ts';

/**
 * Tenants kept per database (the least recently used goes), and the postings and words kept per
 * tenant before it starts over: at most about 8 MB a tenant (12 bytes a posting, a few hundred a word).
 */
const MAX_TENANTS = 8;
const MAX_POSTINGS = 400_000;
const MAX_WORDS = 20_000;
/** Fresh reads before a call gives up on the kept data (the index is being written meanwhile). */
const ATTEMPTS = 2;
/**
 * After the index moved under a call, the tenant's calls take the one-statement path for this long:
 * while an import writes a batch every few hundred ms, a kept copy would be read and thrown away
 * on most calls, three statements where one does.
 */
const SETTLE_MS = 1000;

/** Fixed-point units per unit of BM25 score in the summed postings (as the ranking statement summed them). */
export const SUM_UNITS = 1e9;

/** A word's statistics in one field: what the ranking statement's `stats` and `q` held. */
interface FieldStat extends TermStat {
  /** idf × the field's weight, as PostgreSQL computed it (ln there, so the bits are the statement's). */
  weight: number;
}

/** One (field, term)'s best postings by impact (ties kept): episode numbers (into TenantTerms.ids) and impacts. */
interface Postings {
  episodes: Int32Array;
  impacts: Float64Array;
}

interface WordEntry {
  stats: FieldStat[];
  /** By field, once the word was chosen by a query. */
  postings: Map<number, Postings> | null;
}

class TenantTerms {
  readonly words = new Map<string, WordEntry>();
  readonly ids: string[] = [];
  /** Each candidate's changed files (episode_files: written and deleted with its postings, so of this generation too), sorted. */
  readonly files = new Map<string, string[]>();
  private readonly numbers = new Map<string, number>();
  postings = 0;
  constructor(readonly generation: string) {}

  numberOf(id: string): number {
    let n = this.numbers.get(id);
    if (n === undefined) {
      n = this.ids.push(id) - 1;
      this.numbers.set(id, n);
    }
    return n;
  }

  full(): boolean {
    return this.postings > MAX_POSTINGS || this.words.size > MAX_WORDS || this.files.size > MAX_WORDS;
  }
}

/** Per database (its pool: two databases may hold one tenant id at equal generations), per tenant. */
const keptByPool = new WeakMap<pg.Pool, Map<string, TenantTerms>>();

function keptOf(pool: pg.Pool, tenantId: string): TenantTerms | undefined {
  const kept = keptByPool.get(pool);
  const entry = kept?.get(tenantId);
  if (kept && entry) {
    // Most recently used last: the first is the one dropped.
    kept.delete(tenantId);
    kept.set(tenantId, entry);
  }
  return entry;
}

function keep(pool: pg.Pool, tenantId: string, entry: TenantTerms): void {
  let kept = keptByPool.get(pool);
  if (!kept) keptByPool.set(pool, (kept = new Map()));
  kept.delete(tenantId);
  kept.set(tenantId, entry);
  while (kept.size > MAX_TENANTS) kept.delete(kept.keys().next().value as string);
}

/** When the index last moved under a call of the tenant (per database). */
const movedByPool = new WeakMap<pg.Pool, Map<string, number>>();

/** Forgets what is kept of a tenant at this generation (a statement found another), and keeps the tenant off the kept path for SETTLE_MS. */
export function dropKept(pool: pg.Pool, tenantId: string, generation: string): void {
  const kept = keptByPool.get(pool);
  if (kept?.get(tenantId)?.generation === generation) kept.delete(tenantId);
  let moved = movedByPool.get(pool);
  if (!moved) movedByPool.set(pool, (moved = new Map()));
  moved.set(tenantId, Date.now());
  if (moved.size > MAX_TENANTS * 4) for (const [tenant, at] of moved) if (Date.now() - at > SETTLE_MS) moved.delete(tenant);
}

/** Whether the tenant's index has been still for SETTLE_MS (as far as this process saw). */
export function keptUsable(pool: pg.Pool, tenantId: string): boolean {
  const at = movedByPool.get(pool)?.get(tenantId);
  return at === undefined || Date.now() - at > SETTLE_MS;
}

/** The tenant's generation in a statement's snapshot: the sum over its totals rows, -1 without any. */
export function generationSql(tenant: string): string {
  return `(SELECT coalesce(sum(generation), -1)::text FROM episode_term_totals WHERE tenant_id = ${tenant})`;
}

/** A candidate's BM25 sums per field, as the ranking statement's `summed` gave them. */
export interface SummedEpisode {
  id: string;
  task: number;
  work: number;
  change: number;
  trace: number;
}

export interface KeptRanking {
  generation: string;
  /** The chosen terms' statistics in every field that holds them (the statement's `q`). */
  stats: TermStat[];
  /** The best JOINED candidates by task + work + change (ties kept), best first. */
  best: SummedEpisode[];
}

/**
 * The query's chosen terms and its best candidates by BM25 from the kept index, reading what is
 * missing (two statements at most); null when the index changed under every attempt.
 */
export async function keptRanking(
  pool: pg.Pool,
  tenantId: string,
  words: readonly string[],
  repeated: readonly string[],
  joined: number,
): Promise<KeptRanking | null> {
  const unique = [...new Set(words)];
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const found = keptOf(pool, tenantId);
    const current = found && !found.full() ? found : undefined;
    const unknown = current ? unique.filter((w) => !current.words.has(w)) : unique;
    let entry = current ?? new TenantTerms('');
    if (unknown.length > 0) {
      const read = await readStats(pool, tenantId, unknown);
      if (!current || current.generation !== read.generation) {
        entry = new TenantTerms(read.generation);
        keep(pool, tenantId, entry);
        addStats(entry, unknown, read.stats);
        // Words kept from another generation are read again at this one.
        if (unknown.length < unique.length) continue;
      } else addStats(entry, unknown, read.stats);
    }
    const ranking = await rankKept(pool, tenantId, entry, unique, repeated, joined);
    if (ranking) return ranking;
  }
  return null;
}

/** The chosen terms and the best sums from an entry holding every word's statistics (reading the chosen terms' postings it lacks); null when the index moved on. */
async function rankKept(
  pool: pg.Pool,
  tenantId: string,
  entry: TenantTerms,
  words: readonly string[],
  repeated: readonly string[],
  joined: number,
): Promise<KeptRanking | null> {
  const stats = words.flatMap((w) => entry.words.get(w)?.stats ?? []);
  const chosen = chosenTerms(stats, repeated);
  const q = stats.filter((s) => chosen.has(s.term));
  const unread = new Set([...chosen].filter((t) => !entry.words.get(t)?.postings));
  if (unread.size > 0) {
    const read = await readPostings(
      pool,
      tenantId,
      q.filter((s) => unread.has(s.term)),
    );
    if (read.generation !== entry.generation) {
      dropKept(pool, tenantId, entry.generation);
      return null;
    }
    addPostings(entry, [...unread], read.rows);
  }
  // The sums are the call's longest stretch of CPU: begun on a turn of their own, after the I/O that came meanwhile (another tenant's request is read first).
  await nextTurn();
  const best = summed(entry, q, joined);
  if (!best) return null;
  return { generation: entry.generation, stats: q.map(({ field, term, df, documents }) => ({ field, term, df, documents })), best };
}

/** The QUERY_TERMS rarest terms (by their smaller share of documents outside the trace) and the repeated ones, as the statement's `chosen`. */
function chosenTerms(stats: readonly FieldStat[], repeated: readonly string[]): Set<string> {
  const rarest = chooseQueryTerms(
    stats.filter((s) => s.field !== BM25.TRACE_FIELD),
    [],
  ).map((t) => t.term);
  return new Set([...rarest, ...repeated]);
}

function addStats(entry: TenantTerms, words: readonly string[], stats: readonly FieldStat[]): void {
  const byWord = new Map<string, FieldStat[]>();
  for (const s of stats) byWord.set(s.term, [...(byWord.get(s.term) ?? []), s]);
  // A word the index does not hold is kept too (no statistics): it is looked up once per generation.
  for (const w of words) if (!entry.words.has(w)) entry.words.set(w, { stats: (byWord.get(w) ?? []).sort((a, b) => a.field - b.field), postings: null });
}

function addPostings(entry: TenantTerms, terms: readonly string[], rows: readonly PostingsRow[]): void {
  const byTerm = new Map<string, Map<number, Postings>>();
  for (const row of rows) {
    const fields = byTerm.get(row.term) ?? new Map<number, Postings>();
    fields.set(row.field, { episodes: Int32Array.from(row.episodes, (id) => entry.numberOf(id)), impacts: Float64Array.from(row.impacts) });
    byTerm.set(row.term, fields);
    entry.postings += row.episodes.length;
  }
  for (const t of terms) {
    const word = entry.words.get(t);
    if (word) word.postings = byTerm.get(t) ?? new Map();
  }
}

/** PostgreSQL's round() of a float8 (rint: halves to even). */
function rint(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/**
 * The statement's `hits`, `summed` and `best`: weight × impact in fixed point per posting, summed
 * per episode and field in integers (exact in any order while below 2^53; null past it), then the
 * best `joined` by task + work + change with their ties.
 */
function summed(entry: TenantTerms, q: readonly FieldStat[], joined: number): SummedEpisode[] | null {
  // One row of four sums per episode number, and the episodes touched in first-seen order (no Map per posting).
  const sums = new Float64Array(entry.ids.length * 4);
  const seen = new Uint8Array(entry.ids.length);
  const touched: number[] = [];
  for (const s of q) {
    const postings = entry.words.get(s.term)?.postings?.get(s.field);
    if (!postings) continue;
    const { episodes, impacts } = postings;
    for (let k = 0; k < episodes.length; k++) {
      const episode = episodes[k] as number;
      if (seen[episode] === 0) {
        seen[episode] = 1;
        touched.push(episode);
      }
      const at = episode * 4 + s.field;
      sums[at] = (sums[at] as number) + rint(s.weight * (impacts[k] as number) * SUM_UNITS);
    }
  }
  const all: Array<SummedEpisode & { total: number }> = [];
  for (const episode of touched) {
    const at = episode * 4;
    const [task, work, change, trace] = [sums[at] as number, sums[at + 1] as number, sums[at + 2] as number, sums[at + 3] as number];
    if (!(Number.isSafeInteger(task) && Number.isSafeInteger(work) && Number.isSafeInteger(change) && Number.isSafeInteger(trace))) return null;
    const row = {
      id: entry.ids[episode] as string,
      task: task / SUM_UNITS,
      work: work / SUM_UNITS,
      change: change / SUM_UNITS,
      trace: trace / SUM_UNITS,
      total: 0,
    };
    row.total = row.task + row.work + row.change;
    if (row.total > 0) all.push(row);
  }
  all.sort((a, b) => b.total - a.total);
  const cut = all[joined - 1];
  if (!cut) return all;
  let end = joined;
  while (end < all.length && (all[end] as SummedEpisode & { total: number }).total === cut.total) end++;
  return all.slice(0, end);
}

/** The words' statistics in each field of the tenant's totals, with the statement's weight, and the generation they are of. */
async function readStats(pool: pg.Pool, tenantId: string, words: readonly string[]): Promise<{ generation: string; stats: FieldStat[] }> {
  const p = new Params();
  const tenant = p.add(tenantId);
  const rows = await queryPrepared<{ stats: FieldStat[] | null; generation: string }>(
    pool,
    `WITH w AS MATERIALIZED (SELECT DISTINCT term FROM unnest(${p.add(words)}::text[]) AS w(term)),
     stats AS MATERIALIZED (
       -- OFFSET 0 keeps the probe a probe: one index lookup per field and word.
       SELECT t.field, w.term, d.df, t.documents,
              ln(1 + (t.documents - d.df + 0.5::float8) / (d.df + 0.5::float8)) * (CASE t.field WHEN 0 THEN 1 WHEN ${BM25.TRACE_FIELD} THEN 1 WHEN 1 THEN ${p.add(BM25.WORK_WEIGHT)}::float8 ELSE ${p.add(BM25.CHANGE_WEIGHT)}::float8 END) AS weight
         FROM episode_term_totals t CROSS JOIN w
        CROSS JOIN LATERAL (SELECT d.df FROM episode_term_df d WHERE d.tenant_id = ${tenant} AND d.field = t.field AND d.term = w.term OFFSET 0) d
        WHERE t.tenant_id = ${tenant} AND t.field IN (0, 1, 2, ${BM25.TRACE_FIELD}) AND d.df > 0)
     SELECT (SELECT jsonb_agg(jsonb_build_object('field', field, 'term', term, 'df', df, 'documents', documents, 'weight', weight)) FROM stats) AS stats,
            ${generationSql(tenant)} AS generation`,
    p,
  );
  const row = rows[0];
  return { generation: row?.generation ?? '-1', stats: row?.stats ?? [] };
}

interface PostingsRow {
  field: number;
  term: string;
  episodes: string[];
  impacts: number[];
}

/** Each (field, term)'s best POSTINGS_PER_TERM postings by impact with their ties (the statement's `hits`), and the generation. */
async function readPostings(pool: pg.Pool, tenantId: string, terms: readonly TermStat[]): Promise<{ generation: string; rows: PostingsRow[] }> {
  const p = new Params();
  const tenant = p.add(tenantId);
  const rows = await queryPrepared<PostingsRow & { generation: string | null }>(
    pool,
    `SELECT q.field, q.term, p.episodes, p.impacts, NULL AS generation
       FROM unnest(${p.add(terms.map((t) => t.field))}::int[], ${p.add(terms.map((t) => t.term))}::text[]) AS q(field, term)
      CROSS JOIN LATERAL (SELECT coalesce(array_agg(t.episode_id::text), '{}') AS episodes, coalesce(array_agg(t.impact), '{}') AS impacts FROM (
         SELECT t.episode_id, t.impact FROM episode_terms t
          WHERE t.tenant_id = ${tenant} AND t.field = q.field AND t.term = q.term
          ORDER BY t.impact DESC FETCH FIRST ${BM25.POSTINGS_PER_TERM} ROWS WITH TIES) t) p
     UNION ALL SELECT NULL, NULL, NULL, NULL, ${generationSql(tenant)}`,
    p,
  );
  return { generation: rows.find((r) => r.generation !== null)?.generation ?? '-1', rows: rows.filter((r) => r.generation === null) };
}

/**
 * The changed files of these episodes (of the tenant) from the kept copy at `generation`, reading
 * those it lacks (one statement); null when the copy is gone or the index has moved on since.
 */
export async function keptFiles(pool: pg.Pool, tenantId: string, generation: string, ids: readonly string[]): Promise<Map<string, string[]> | null> {
  const entry = keptOf(pool, tenantId);
  if (!entry || entry.generation !== generation) return null;
  const missing = ids.filter((id) => !entry.files.has(id));
  if (missing.length > 0) {
    const p = new Params();
    const tenant = p.add(tenantId);
    const rows = await queryPrepared<{ id: string | null; paths: string[] | null; generation: string | null }>(
      pool,
      `SELECT f.episode_id::text AS id, array_agg(f.path ORDER BY f.path COLLATE "C") AS paths, NULL AS generation FROM episode_files f
        WHERE f.tenant_id = ${tenant} AND f.episode_id = ANY(${p.add(missing)}::uuid[]) GROUP BY f.episode_id
       UNION ALL SELECT NULL, NULL, ${generationSql(tenant)}`,
      p,
    );
    if (rows.find((row) => row.generation !== null)?.generation !== generation) {
      dropKept(pool, tenantId, generation);
      return null;
    }
    const byId = new Map(rows.flatMap((row) => (row.id ? [[row.id, row.paths ?? []] as const] : [])));
    for (const id of missing) entry.files.set(id, byId.get(id) ?? []);
  }
  return new Map(ids.map((id) => [id, entry.files.get(id) ?? []]));
}
