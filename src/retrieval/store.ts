// relevantEpisodes in SQL: a capped candidate set from indexed matches, then relevanceScore
// (score.ts) over just those candidates. Never a scan of the tenant's episodes.
//
// 1. Candidates: a UNION ALL of branches, each bounded by LIMIT and served by an index (DESIGN.md
//    measured that ranking every match of a common term, or trigram-matching, a million rows is
//    too slow). PostgreSQL's statistics say which words and tags are selective (term-stats.ts):
//    - full text, each of the rarest selective words, and the rest together  (GIN, stored 'simple' tsvector)
//    - full text, all long words together
//    - same domain / domain and language / language (and framework), best reward first
//                                                   (btree (tenant, status, domain|language, reward))
//    - a shared selective tag                       (GIN on tags)
//    - a broad query (no selective word): any of its least common words among the best-reward
//      episodes of its context; also the fallback when selective words found (almost) nothing
//    - trigram similarity, the last fallback, only for words the statistics do not know
//      (GIN pg_trgm): text without spaces (Japanese, Chinese), inflected words, typos.
// 2. Scoring inputs for the candidates only: ts_rank_cd(…, 32), similarity(), age, reward, credit.
// 3. relevanceScore in TypeScript, so the SQL path and the formula cannot drift apart.
// docs/LEARNING.md, section 8, has the numbers.
import type pg from 'pg';
import { compareText, type ContextFacts } from '../learning/facts.ts';
import { relevanceScore, type RelevanceBreakdown, type RetrievalQuery } from './score.ts';
import { leastCommon, selectiveTags, selectiveWords, termStats, type TermStats } from './term-stats.ts';
import { allWordsQuery, anyWordQuery, queryWords } from './words.ts';

export const CANDIDATE_CAPS = { selective: 100, allWords: 100, context: 50, tags: 100, trigram: 100 } as const;
/** The rarest selective words that each select on their own. */
export const SELECTIVE_ALONE = 3;
/** A broad query's words filter at most this many best-reward episodes of each context branch. */
export const BROAD_SCAN = 2000;
/** A broad query selects by any of its this many least common long words. */
export const BROAD_WORDS = 3;
/** The trigram branch runs when full text found fewer candidates than this (its GIN scan is the costly one). */
export const TRIGRAM_FALLBACK_BELOW = 3;
/** similarity() reads at most this many characters of each description. */
export const TRIGRAM_CHARS = 1000;

export interface EpisodeRetrievalFilter {
  minReward?: number | null;
  endedAfter?: Date | null;
  agent?: string | null;
}

export interface EpisodeRetrieval {
  tenantId: string;
  query: RetrievalQuery;
  /** completed (results) or failed (warnings). */
  status: 'completed' | 'failed';
  limit: number;
  filter?: EpisodeRetrievalFilter;
  now: Date;
  /** Filled in when given: how many candidates were scored, and whether the trigram branch ran. */
  stats?: { candidates: number; trigram: boolean };
}

export interface ScoredEpisode {
  id: string;
  score: RelevanceBreakdown;
  textRank: number;
  trigramSimilarity: number;
}

class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** stats: the word and tag statistics to use (tests); by default PostgreSQL's, cached. */
export async function rankEpisodes(pool: pg.Pool, r: EpisodeRetrieval, stats?: TermStats): Promise<ScoredEpisode[]> {
  const words = queryWords(r.query.description);
  stats ??= await termStats(pool);
  const selective = selectiveWords(words.all, stats);
  const common = words.long.filter((word) => !selective.includes(word));
  const broad = selective.length === 0;
  const found = await candidates(pool, r, [...mainBranches(r, words, selective, stats), ...(broad ? broadBranches(r, common, stats) : [])]);
  const textMatches = () => [...found.values()].filter(Boolean).length;
  // Fallbacks, each only when full text found (almost) nothing so far: first the query's common
  // words, then trigrams, which only words the statistics do not know can gain from (known words
  // are matched by full text already, and common trigrams are the slowest ones to look up).
  if (!broad && common.length > 0 && textMatches() < TRIGRAM_FALLBACK_BELOW) {
    for (const [id, text] of await candidates(pool, r, broadBranches(r, common, stats))) found.set(id, text || (found.get(id) ?? false));
  }
  const trigram = !broad && textMatches() < TRIGRAM_FALLBACK_BELOW;
  if (trigram) {
    for (const id of await trigramCandidates(pool, r)) if (!found.has(id)) found.set(id, false);
  }
  if (r.stats) Object.assign(r.stats, { candidates: found.size, trigram });
  if (found.size === 0) return [];
  const rows = await scoringInputs(pool, r, [...found.keys()], anyWordQuery(words.all));
  return rows
    .map((row) => ({
      id: row.id,
      textRank: row.text_rank,
      trigramSimilarity: row.trigram,
      score: relevanceScore(
        { taskType: r.query.taskType, context: r.query.context },
        {
          taskType: row.task_type,
          context: contextOf(row),
          rewardNormalized: row.reward_score,
          textRank: row.text_rank,
          trigramSimilarity: row.trigram,
          ageDays: row.age_days,
          feedbackCredit: row.feedback_credit,
        },
      ),
    }))
    .sort((a, b) => b.score.total - a.score.total || compareText(a.id, b.id))
    .slice(0, r.limit);
}

function contextOf(row: { domain: string | null; language: string | null; framework: string | null; tags: string[] | null }): ContextFacts {
  return { domain: row.domain, language: row.language, framework: row.framework, tags: row.tags ?? [] };
}

/** tenant, status and the hard filters: the prefix of every branch. */
function baseWhere(p: Params, r: EpisodeRetrieval): string {
  const f = r.filter ?? {};
  return [
    `e.tenant_id = ${p.add(r.tenantId)}`,
    `e.status = ${p.add(r.status)}`,
    ...(f.minReward != null ? [`e.reward_score >= ${p.add(f.minReward)}`] : []),
    ...(f.endedAfter ? [`e.ended_at >= ${p.add(f.endedAfter)}`] : []),
    ...(f.agent ? [`e.agent = ${p.add(f.agent)}`] : []),
  ].join(' AND ');
}

/** One bounded branch of the candidate query: (params, WHERE prefix) → SQL selecting (id, text). */
type Branch = (p: Params, base: string) => string;

const simple = (text: boolean, where: (p: Params) => string, tail: string): Branch => (p, base) =>
  `(SELECT e.id, ${text} AS text FROM episodes e WHERE ${base} AND ${where(p)} ${tail})`;

const fullText = (query: string) => (p: Params) => `e.task_document @@ to_tsquery('simple', ${p.add(query)})`;

/** The query's context as WHERE clauses: domain, domain and language, language (and framework). */
function contextClauses(context: ContextFacts): Array<(p: Params) => string> {
  const clauses: Array<(p: Params) => string> = [];
  const { domain, language, framework } = context;
  if (domain !== null) clauses.push((p) => `e.domain = ${p.add(domain)}`);
  if (domain !== null && language !== null) clauses.push((p) => `e.domain = ${p.add(domain)} AND e.language = ${p.add(language)}`);
  if (language !== null) clauses.push((p) => `e.language = ${p.add(language)}${framework !== null ? ` AND e.framework = ${p.add(framework)}` : ''}`);
  return clauses;
}

function mainBranches(r: EpisodeRetrieval, words: { long: string[] }, selective: string[], stats: TermStats): Branch[] {
  const branches: Branch[] = [];
  if (selective.length > 0) {
    // The rarest words each get a branch of their own, so a somewhat common one cannot crowd a
    // rare name out of the cap; the rest share one.
    for (const word of selective.slice(0, SELECTIVE_ALONE)) branches.push(simple(true, fullText(anyWordQuery([word])!), `LIMIT ${CANDIDATE_CAPS.selective}`));
    const rest = anyWordQuery(selective.slice(SELECTIVE_ALONE));
    if (rest) branches.push(simple(true, fullText(rest), `LIMIT ${CANDIDATE_CAPS.selective}`));
    if (words.long.length > 1) branches.push(simple(true, fullText(allWordsQuery(words.long)!), `LIMIT ${CANDIDATE_CAPS.allWords}`));
  }
  const byReward = `ORDER BY e.reward_score DESC LIMIT ${CANDIDATE_CAPS.context}`;
  for (const clause of contextClauses(r.query.context)) branches.push(simple(false, clause, byReward));
  const tags = selectiveTags(r.query.context.tags, stats);
  if (tags.length > 0) branches.push(simple(false, (p) => `e.tags && ${p.add(tags)}::text[]`, `LIMIT ${CANDIDATE_CAPS.tags}`));
  return branches;
}

/**
 * Common words select by any of the least common few. With a context they filter its BROAD_SCAN
 * best-reward episodes (ts_match_vq is @@ as a function call, which the GIN index does not serve,
 * so no long posting list is read); without one the text index serves them, capped.
 */
function broadBranches(r: EpisodeRetrieval, common: string[], stats: TermStats): Branch[] {
  const any = anyWordQuery(leastCommon(common, stats, BROAD_WORDS));
  if (!any) return [];
  const clauses = contextClauses(r.query.context).slice(0, 2);
  if (clauses.length === 0) return [simple(true, fullText(any), `LIMIT ${CANDIDATE_CAPS.allWords}`)];
  return clauses.map((clause): Branch => (p, base) =>
    `(SELECT s.id, true AS text FROM (SELECT e.id, e.task_document FROM episodes e WHERE ${base} AND ${clause(p)} ORDER BY e.reward_score DESC LIMIT ${BROAD_SCAN}) s
       WHERE ts_match_vq(s.task_document, to_tsquery('simple', ${p.add(any)})) LIMIT ${CANDIDATE_CAPS.context})`,
  );
}

/** Candidate ids, each marked true when it came from a full-text branch. */
async function candidates(pool: pg.Pool, r: EpisodeRetrieval, branches: Branch[]): Promise<Map<string, boolean>> {
  if (branches.length === 0) return new Map();
  const p = new Params();
  const base = baseWhere(p, r);
  const { rows } = await pool.query<{ id: string; text: boolean }>(
    `SELECT id, bool_or(text) AS text FROM (${branches.map((b) => b(p, base)).join('\nUNION ALL\n')}) c GROUP BY id`,
    p.values,
  );
  return new Map(rows.map((row) => [row.id, row.text]));
}

async function trigramCandidates(pool: pg.Pool, r: EpisodeRetrieval): Promise<string[]> {
  const p = new Params();
  const base = baseWhere(p, r);
  const { rows } = await pool.query<{ id: string }>(
    `SELECT e.id FROM episodes e WHERE ${base} AND e.task_description % ${p.add(r.query.description.slice(0, TRIGRAM_CHARS))} LIMIT ${CANDIDATE_CAPS.trigram}`,
    p.values,
  );
  return rows.map((row) => row.id);
}

interface ScoringRow {
  id: string;
  task_type: string;
  domain: string | null;
  language: string | null;
  framework: string | null;
  tags: string[] | null;
  reward_score: number | null;
  feedback_credit: number;
  age_days: number;
  text_rank: number;
  trigram: number;
}

async function scoringInputs(pool: pg.Pool, r: EpisodeRetrieval, ids: string[], rankQuery: string | null): Promise<ScoringRow[]> {
  const p = new Params();
  const idList = p.add(ids);
  const now = p.add(r.now);
  const description = p.add(r.query.description.slice(0, TRIGRAM_CHARS));
  const textRank = rankQuery ? `ts_rank_cd(e.task_document, to_tsquery('simple', ${p.add(rankQuery)}), 32)` : '0';
  const { rows } = await pool.query<ScoringRow>(
    `SELECT e.id, e.task_type, e.domain, e.language, e.framework, e.tags, e.reward_score, e.feedback_credit,
            (EXTRACT(EPOCH FROM (${now}::timestamptz - COALESCE(e.ended_at, e.updated_at))) / 86400)::float8 AS age_days,
            (${textRank})::float8 AS text_rank,
            similarity(left(e.task_description, ${TRIGRAM_CHARS}), ${description})::float8 AS trigram
       FROM episodes e WHERE e.id = ANY(${idList}::uuid[])`,
    p.values,
  );
  return rows;
}
