// The candidates of a ranking (store.ts) in SQL: the best episodes by BM25 with the columns
// relevanceScore reads, from the kept term index (term-cache.ts: one statement from the kept best
// sums) or in one statement from the index itself (a training query, or when the index is moving),
// and the context and trigram fallbacks when the words found (almost) nothing.
import type pg from 'pg';
import { arrayLiteral, Params, queryPrepared } from '../db/sql.ts';
import type { ContextFacts } from '../learning/facts.ts';
import { BM25, type TermStat } from './bm25.ts';
import { EPISODE_FEEDBACK, type FeedbackUse } from './feedback.ts';
import { rankingModelSql, type TenantRanking, toTenantRanking } from './ranker-store.ts';
import { RECENCY_HALF_LIFE_DAYS } from './score.ts';
import type { EpisodeRetrieval } from './store.ts';
import { dropKept, generationSql, type KeptRanking, keptFiles, keptRanking, keptUsable, SUM_UNITS, type SummedEpisode } from './term-cache.ts';

export const LEXICAL_CANDIDATES = 100;
export const CONTEXT_CANDIDATES = 50;
/**
 * Episodes read (for filters, domain and scoring columns) per query: the best by BM25 alone (1,000
 * took 20 of 46 ms at 100,000 episodes; 200 keep the held-out quality). The
 * filters and the domain apply within them, so a filter that rejects nearly all of them returns
 * fewer results rather than reading every matching episode.
 */
const JOINED_CANDIDATES = 200;
/** Below this many lexical matches the context and trigram fallbacks run. */
export const FALLBACK_BELOW = 3;
/** similarity() reads at most this many characters of each description. */
const TRIGRAM_CHARS = 1000;

/** The columns of e that baseWhere reads, and the candidates' id and domain. */
const EPISODE_FILTER_COLUMNS = 'e.id, e.domain, e.tenant_id, e.status, e.forgotten_at, e.reward_score, e.ended_at, e.agent';

function baseWhere(p: Params, r: EpisodeRetrieval): string {
  const f = r.filter ?? {};
  return [
    `e.tenant_id = ${p.add(r.tenantId)}`,
    `e.status = ANY(${p.add(r.statuses)}::text[])`,
    // A forgotten run is never served (docs/LEDGER.md §3.4), whatever index entry is left of it.
    'e.forgotten_at IS NULL',
    ...(f.minReward != null ? [`e.reward_score >= ${p.add(f.minReward)}`] : []),
    ...(f.endedAfter ? [`e.ended_at >= ${p.add(f.endedAfter)}`] : []),
    ...(f.agent ? [`e.agent = ${p.add(f.agent)}`] : []),
  ].join(' AND ');
}

export interface CandidateRow {
  id: string;
  task: number;
  work: number;
  change: number;
  /** BM25 of the trace field (scored for the candidates, never in their sum). */
  trace: number;
  /** Paths its last diff changed (episode_files), sorted. */
  files: string[] | null;
  task_type: string;
  domain: string | null;
  language: string | null;
  framework: string | null;
  tags: string[] | null;
  status: string;
  what_went_wrong: string | null;
  reward_score: number | null;
  /** The newest reported uses (feedback.ts), oldest first. */
  feedback_uses: FeedbackUse[] | null;
  /** null when the episode's end time is unknown. */
  age_days: number | null;
  trigram: number;
}

/** What relevanceScore needs of each candidate episode (e), with its BM25 parts. */
function candidateColumns(p: Params, r: EpisodeRetrieval, trigram: boolean, files = true): string {
  const similarity = trigram ? `similarity(left(e.task_description, ${TRIGRAM_CHARS}), ${p.add(r.query.description.slice(0, TRIGRAM_CHARS))})` : '0';
  // Without files: the kept copy has them (term-cache.ts keptFiles).
  const paths = files ? `ARRAY(SELECT f.path FROM episode_files f WHERE f.episode_id = e.id ORDER BY f.path COLLATE "C")` : 'NULL::text[]';
  return `e.id, e.task_type, e.domain, e.language, e.framework, e.tags, e.status, e.reward_score,
          ${paths} AS files,
          (SELECT jsonb_agg(jsonb_build_object('terms', u.query_terms, 'weights', u.query_weights, 'target', u.target) ORDER BY u.created_at, u.id)
             FROM (SELECT r.query_terms, r.query_weights, f.target, f.created_at, f.id FROM episode_feedback f JOIN retrievals r ON r.id = f.retrieval_id
                    WHERE f.episode_id = e.id ORDER BY f.created_at DESC, f.id DESC LIMIT ${EPISODE_FEEDBACK.MAX_USES}) u) AS feedback_uses,
          nullif(concat_ws(': ', e.outcome->>'reason', e.outcome->>'details'), '') AS what_went_wrong,
          -- Times unknown (an imported run without them): one half-life, so recency is a neutral 0.5.
          (CASE WHEN e.times_known THEN EXTRACT(EPOCH FROM (${p.add(r.now)}::timestamptz - COALESCE(e.ended_at, e.updated_at))) / 86400
                ELSE ${p.add(RECENCY_HALF_LIFE_DAYS)} END)::float8 AS age_days,
          (${similarity})::float8 AS trigram`;
}

/**
 * One statement, one round trip: the query words' document frequencies per field (an index probe
 * per field and word), the terms chooseQueryTerms (bm25.ts) would choose (the QUERY_TERMS rarest by
 * their smaller share of documents, ties by term, and the repeated ones), each chosen (field, term)'s
 * best postings weighted by idf × field weight and summed per episode; then the best
 * LEXICAL_CANDIDATES and as many of the query's domain, with their columns. Returns the candidates
 * and the chosen terms' frequencies.
 */
export async function lexicalCandidates(
  pool: pg.Pool,
  r: EpisodeRetrieval,
  words: string[],
  repeated: string[],
): Promise<{ rows: CandidateRow[]; stats: TermStat[]; ranking: TenantRanking | null }> {
  // A training query (excludeId) corrects the frequencies for its own episode: it reads them fresh.
  // While its index is being written (an import), a tenant's calls read it fresh too (term-cache.ts SETTLE_MS).
  if (r.excludeId === undefined && keptUsable(pool, r.tenantId)) {
    const kept = await keptRanking(pool, r.tenantId, words, repeated, JOINED_CANDIDATES);
    const found = kept && (await keptCandidates(pool, r, kept));
    if (found) return found;
  }
  return rankedCandidates(pool, r, words, repeated);
}

/** The candidates' rows of a BM25 ranking from the kept index (term-cache.ts); null when the index has moved on since. */
async function keptCandidates(
  pool: pg.Pool,
  r: EpisodeRetrieval,
  kept: KeptRanking,
): Promise<{ rows: CandidateRow[]; stats: TermStat[]; ranking: TenantRanking | null } | null> {
  const p = new Params();
  const tenant = p.add(r.tenantId);
  const { best } = kept;
  const model = r.model === undefined ? `(SELECT to_jsonb(m) FROM (${rankingModelSql(p, r.tenantId)}) m)` : 'NULL::jsonb';
  type Row = Partial<CandidateRow> & { model: Parameters<typeof toTenantRanking>[0]; generation: string | null };
  // The candidates as plain columns (to_jsonb of each was a third of the statement's CPU), the first
  // also carrying the model and the index's generation in this statement's snapshot (the kept postings
  // are what the index holds only if the generation is theirs); one row of those alone without candidates.
  const rows = await queryPrepared<Row>(
    pool,
    `WITH best AS (SELECT * FROM unnest(${p.add(
      arrayLiteral(
        best.map((b) => b.id),
        'uuid',
      ),
    )}::uuid[], ${p.add(arrayLiteral(places(best), 'int'))}::int[]) AS s(episode_id, rank)),
     ${candidatesSql(p, r, 'rank')}
     SELECT x.model, x.generation, f.* FROM (SELECT 1::bigint AS k, ${model} AS model, ${generationSql(tenant)} AS generation) x
       FULL JOIN (SELECT row_number() OVER () AS k, found_rows.* FROM found_rows) f ON f.k = x.k
      ORDER BY f.k NULLS FIRST`,
    p,
  );
  const generation = rows.find((row) => row.generation !== null)?.generation;
  if (generation !== kept.generation) {
    dropKept(pool, r.tenantId, kept.generation);
    return null;
  }
  const files = await keptFiles(
    pool,
    r.tenantId,
    kept.generation,
    rows.flatMap((row) => (row.id ? [row.id] : [])),
  );
  if (!files) return null;
  // The sums and the files are the kept ones (the statement read each candidate's place, not its sums or files).
  const sums = new Map(best.map((b) => [b.id, b]));
  const candidates: Array<{ candidate: CandidateRow }> = [];
  for (const row of rows) {
    const summed = row.id ? sums.get(row.id) : undefined;
    if (row.id && summed) candidates.push({ candidate: keptCandidate(row as CandidateRow, summed, files.get(row.id) ?? []) });
  }
  return {
    rows: distinctCandidates(candidates),
    stats: kept.stats,
    ranking: r.model === undefined ? toTenantRanking(rows.find((row) => row.model !== null)?.model) : null,
  };
}

/**
 * A candidate of the kept path: the statement's columns with the kept sums and files, built whole
 * (one shape for every candidate). Adding the sums to pg's row objects made each a slow object
 * that every later read of the scoring went through (the largest self time of the ranking's code).
 */
function keptCandidate(row: CandidateRow, summed: SummedEpisode, files: string[]): CandidateRow {
  return {
    id: row.id,
    task: summed.task,
    work: summed.work,
    change: summed.change,
    trace: summed.trace,
    files,
    task_type: row.task_type,
    domain: row.domain,
    language: row.language,
    framework: row.framework,
    tags: row.tags,
    status: row.status,
    what_went_wrong: row.what_went_wrong,
    reward_score: row.reward_score,
    feedback_uses: row.feedback_uses,
    age_days: row.age_days,
    trigram: row.trigram,
  };
}

/** Each of the best (sorted by task + work + change, best first) its place: equal sums share one. */
function places(best: readonly SummedEpisode[]): number[] {
  let place = 0;
  let last = Number.NaN;
  return best.map((b) => {
    const total = b.task + b.work + b.change;
    if (total !== last) place++;
    last = total;
    return place;
  });
}

/** Each candidate once (a run of the query's domain among the best by BM25 comes twice). */
function distinctCandidates(rows: ReadonlyArray<{ candidate: CandidateRow | null }>): CandidateRow[] {
  const seen = new Set<string>();
  return rows.flatMap((row) => (row.candidate && !seen.has(row.candidate.id) && seen.add(row.candidate.id) ? [row.candidate] : []));
}

/**
 * From `best` (the best sums, episode_id and the four fields' BM25) to `found_rows`: each best one's
 * row by its key, then the filters (OFFSET 0 keeps them out of the probe). With the episodes not
 * analyzed yet (a tenant's first runs), a join rescanned best once per episode of the tenant (263 x
 * 126 rows at 350 runs), and the filters in the probe read it by (tenant, status), every episode per
 * candidate. Then the best LEXICAL_CANDIDATES and as many of the query's domain, with the columns of
 * the candidates kept only (not of every one joined), in found's order (OFFSET 0: a nested loop over it).
 */
function candidatesSql(p: Params, r: EpisodeRetrieval, by: 'sum' | 'rank' = 'sum'): string {
  const base = baseWhere(p, r);
  const columns = candidateColumns(p, r, false, by === 'sum');
  const domain = r.query.context.domain;
  // The kept ranking sends each best one's place by its sum (equal sums, equal places) instead of the sums (term-cache.ts).
  const order = by === 'sum' ? 'task + work + change DESC' : 'rank';
  const byDomain =
    domain === null
      ? ''
      : `UNION ALL (SELECT * FROM scored WHERE domain = ${p.add(domain)} ORDER BY ${order} FETCH FIRST ${CONTEXT_CANDIDATES} ROWS WITH TIES)`;
  const sums = by === 'sum' ? 's.task, s.work, s.change, s.trace' : 's.rank';
  return `scored AS MATERIALIZED (SELECT ${sums}, e.id, e.domain FROM best s
       CROSS JOIN LATERAL (SELECT ${EPISODE_FILTER_COLUMNS} FROM episodes e WHERE e.id = s.episode_id OFFSET 0) e WHERE ${base}),
     found AS ((SELECT * FROM scored ORDER BY ${order} FETCH FIRST ${LEXICAL_CANDIDATES} ROWS WITH TIES) ${byDomain}),
     found_rows AS (SELECT ${by === 'sum' ? 'f.task, f.work, f.change, f.trace, ' : ''}c.* FROM found f CROSS JOIN LATERAL (SELECT ${columns} FROM episodes e WHERE e.id = f.id OFFSET 0) c)`;
}

/**
 * One statement, one round trip: the query words' document frequencies per field (an index probe
 * per field and word), the terms chooseQueryTerms (bm25.ts) would choose (the QUERY_TERMS rarest by
 * their smaller share of documents, ties by term, and the repeated ones), each chosen (field, term)'s
 * best postings weighted by idf × field weight and summed per episode; then the best
 * LEXICAL_CANDIDATES and as many of the query's domain, with their columns. Returns the candidates
 * and the chosen terms' frequencies. What a training query ranks by, and any query when the kept
 * index (term-cache.ts) could not be used.
 */
async function rankedCandidates(
  pool: pg.Pool,
  r: EpisodeRetrieval,
  words: string[],
  repeated: string[],
): Promise<{ rows: CandidateRow[]; stats: TermStat[]; ranking: TenantRanking | null }> {
  const p = new Params();
  const tenant = p.add(r.tenantId);
  const modelRow = r.model === undefined ? `UNION ALL SELECT NULL, NULL, to_jsonb(m) FROM (${rankingModelSql(p, r.tenantId)}) m` : '';
  const rows = await queryPrepared<{ candidate: CandidateRow | null; terms: TermStat[] | null; model: Parameters<typeof toTenantRanking>[0] }>(
    pool,
    `WITH w AS MATERIALIZED (SELECT DISTINCT term FROM unnest(${p.add(words)}::text[]) AS w(term)),
     ${ownTerms(p, r)}
     stats AS MATERIALIZED (
       -- OFFSET 0 keeps the probe a probe: one index lookup per field and word, never a scan of the tenant's frequencies.
       SELECT t.field, w.term, d.df - o.n AS df, t.documents - o.documents AS documents FROM episode_term_totals t CROSS JOIN w
        CROSS JOIN LATERAL (SELECT d.df FROM episode_term_df d WHERE d.tenant_id = ${tenant} AND d.field = t.field AND d.term = w.term OFFSET 0) d
        CROSS JOIN LATERAL (SELECT ${r.excludeId ? '1' : '0'} AS documents, count(*)::int AS n FROM own WHERE own.field = t.field AND own.term = w.term) o
        WHERE t.tenant_id = ${tenant} AND t.field IN (0, 1, 2, ${BM25.TRACE_FIELD}) AND d.df - o.n > 0),
     chosen AS (
       (SELECT term FROM stats WHERE field <> ${BM25.TRACE_FIELD} GROUP BY term ORDER BY min(df::float8 / greatest(documents, 1)), term COLLATE "C" LIMIT ${BM25.QUERY_TERMS})
       UNION SELECT unnest(${p.add(repeated)}::text[])),
     q AS MATERIALIZED (
       SELECT s.field, s.term, s.df, s.documents,
              ln(1 + (s.documents - s.df + 0.5::float8) / (s.df + 0.5::float8)) * (CASE s.field WHEN 0 THEN 1 WHEN ${BM25.TRACE_FIELD} THEN 1 WHEN 1 THEN ${p.add(BM25.WORK_WEIGHT)}::float8 ELSE ${p.add(BM25.CHANGE_WEIGHT)}::float8 END) AS weight
         FROM stats s WHERE s.term IN (SELECT term FROM chosen)),
     hits AS (
       SELECT p.episode_id, q.field, q.term, q.weight * p.impact AS s FROM q CROSS JOIN LATERAL (
         SELECT t.episode_id, t.impact FROM episode_terms t
          WHERE t.tenant_id = ${tenant} AND t.field = q.field AND t.term = q.term
          ORDER BY t.impact DESC FETCH FIRST ${BM25.POSTINGS_PER_TERM} ROWS WITH TIES) p),
     -- Summed in fixed point (units of 1e-9): integer sums are exact in any order, so the same postings give
     -- the same totals however the index returns them, without an ordered aggregate's sort per episode and field.
     summed AS (
       SELECT episode_id, coalesce(sum(s) FILTER (WHERE field = 0), 0) / ${SUM_UNITS}::float8 AS task,
              coalesce(sum(s) FILTER (WHERE field = 1), 0) / ${SUM_UNITS}::float8 AS work,
              coalesce(sum(s) FILTER (WHERE field = 2), 0) / ${SUM_UNITS}::float8 AS change,
              coalesce(sum(s) FILTER (WHERE field = ${BM25.TRACE_FIELD}), 0) / ${SUM_UNITS}::float8 AS trace
         FROM (SELECT episode_id, field, round(s * ${SUM_UNITS})::bigint AS s FROM hits) h GROUP BY episode_id),
     best AS (SELECT * FROM summed WHERE task + work + change > 0 ORDER BY task + work + change DESC FETCH FIRST ${JOINED_CANDIDATES} ROWS WITH TIES),
     ${candidatesSql(p, r)}
     SELECT to_jsonb(f) AS candidate, NULL::jsonb AS terms, NULL::jsonb AS model FROM found_rows f
     UNION ALL SELECT NULL, coalesce(jsonb_agg(jsonb_build_object('field', field, 'term', term, 'df', df, 'documents', documents)), '[]'), NULL FROM q
     ${modelRow}`,
    p,
  );
  return {
    rows: distinctCandidates(rows),
    stats: rows.find((row) => row.terms !== null)?.terms ?? [],
    ranking: r.model === undefined ? toTenantRanking(rows.find((row) => row.model !== null)?.model) : null,
  };
}

/**
 * The excluded episode's own terms (its postings), left out of the frequencies with the episode
 * itself: a training query is a run of the history asked as if it were new, and a new task is in no
 * frequency. Counted, its own rare terms looked commoner, its matches weaker than a new task's, and
 * the strength fitted on them promised new tasks too much (docs/LEARNING.md). Postings hold a field's
 * 512 largest impacts, so a term below them still counts: the correction is exact for the task field.
 */
function ownTerms(p: Params, r: EpisodeRetrieval): string {
  const own = r.excludeId
    ? `SELECT field, term FROM episode_terms WHERE episode_id = ${p.add(r.excludeId)}::uuid`
    : 'SELECT 0 AS field, NULL::text AS term WHERE false';
  return `own AS MATERIALIZED (${own}),`;
}

/** Adds the fallback candidates (context, trigram) to the few lexical ones. */
export async function withFallback(pool: pg.Pool, r: EpisodeRetrieval, lexical: CandidateRow[]): Promise<CandidateRow[]> {
  const ids = await fallbackCandidates(pool, r);
  const known = new Map(lexical.map((row) => [row.id, row]));
  const p = new Params();
  const list = p.add([...new Set([...ids, ...known.keys()])]);
  const columns = candidateColumns(p, r, true);
  const { rows } = await pool.query<CandidateRow>(
    `SELECT 0::float8 AS task, 0::float8 AS work, 0::float8 AS change, 0::float8 AS trace, ${columns} FROM episodes e WHERE e.id = ANY(${list}::uuid[])`,
    p.values,
  );
  return rows.map((row) => {
    const lexicalRow = known.get(row.id);
    return { ...row, task: lexicalRow?.task ?? 0, work: lexicalRow?.work ?? 0, change: lexicalRow?.change ?? 0, trace: lexicalRow?.trace ?? 0 };
  });
}

/** The query's context clauses: domain, then language (and framework). */
function contextClauses(context: ContextFacts): Array<(p: Params) => string> {
  const clauses: Array<(p: Params) => string> = [];
  const { domain, language, framework } = context;
  if (domain !== null) clauses.push((p) => `e.domain = ${p.add(domain)}`);
  if (language !== null) clauses.push((p) => `e.language = ${p.add(language)}${framework !== null ? ` AND e.framework = ${p.add(framework)}` : ''}`);
  if (context.tags.length > 0) clauses.push((p) => `e.tags && ${p.add(context.tags)}::text[]`);
  return clauses;
}

/** Best-reward episodes of the query's context, and trigram matches of its description. */
async function fallbackCandidates(pool: pg.Pool, r: EpisodeRetrieval): Promise<string[]> {
  const p = new Params();
  const base = baseWhere(p, r);
  const branches = contextClauses(r.query.context).map(
    (clause) => `(SELECT e.id FROM episodes e WHERE ${base} AND ${clause(p)} ORDER BY e.reward_score DESC NULLS LAST LIMIT ${CONTEXT_CANDIDATES})`,
  );
  const text = r.query.description.slice(0, TRIGRAM_CHARS);
  if (text.trim() !== '') branches.push(`(SELECT e.id FROM episodes e WHERE ${base} AND e.task_description % ${p.add(text)} LIMIT ${CONTEXT_CANDIDATES})`);
  if (branches.length === 0) return [];
  const { rows } = await pool.query<{ id: string }>(`SELECT DISTINCT id FROM (${branches.join(' UNION ALL ')}) c`, p.values);
  return rows.map((row) => row.id);
}
