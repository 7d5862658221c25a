// relevantEpisodes in SQL: a three-field BM25 over the retrieval index (term-index.ts), then
// relevanceScore (score.ts) over a capped candidate set, with the tenant's learned model as the
// evidence when it has one (ranker.ts, ranker-store.ts). Never a scan of the tenant's episodes.
//
// 1-3 are one statement (one round trip, which also reads the tenant's learned model):
// 1. The query's terms (terms.ts), their document frequencies (episode_term_df) and the field
//    totals give each of the QUERY_TERMS rarest terms its idf (the choice of chooseQueryTerms, bm25.ts).
// 2. Per query term and field, the POSTINGS_PER_TERM best postings by impact, read from the index
//    (tenant, field, term, impact desc, episode) alone; summed per episode and field: BM25 of the
//    task description, of what the episode did and of the change it left (each with its field weight).
// 3. Candidates: the best LEXICAL_CANDIDATES by that sum, and as many of the query's domain.
//    When the words found (almost) nothing: the context's best-reward episodes and trigram
//    similarity (text without spaces, typos).
// Every cut keeps its ties (FETCH FIRST ... WITH TIES) and every sum adds in term order: which
// episodes a cut keeps and the bits of a sum never depend on the order rows were written in (the
// episode ids, random, broke ties before), so the same history gives the same answer.
// 4. relevanceScore in TypeScript, with similarity = BM25 / the best candidate's BM25, the learned
//    model's evidence (when the tenant has a model), and the feedback of each candidate's reported
//    uses by queries resembling this one (feedback.ts).
import type pg from 'pg';
import { must } from '../core/must.ts';
import { Params, queryPrepared } from '../db/sql.ts';
import { type ContextFacts, compareText } from '../learning/facts.ts';
import { BM25, chooseQueryTerms, type TermStat, weightedTerms } from './bm25.ts';
import { calibratedStrength, DEFAULT_CALIBRATION, type StrengthCalibration, type StrengthInputs } from './calibration.ts';
import { changedFileSignals, queryMentions } from './changed-files.ts';
import { EPISODE_FEEDBACK, type FeedbackUse, queryFeedback, type WeightedTerms } from './feedback.ts';
import { inferredDomain } from './inferred-domain.ts';
import { type CandidateEvidence, contributionSum, contributions, type FeatureVector, features, fieldMaxima, type RankingModel } from './ranker.ts';
import { loadTenantRanking, rankingModelSql, type TenantRanking, toTenantRanking } from './ranker-store.ts';
import { type ContextSide, contextMatch, RECENCY_HALF_LIFE_DAYS, type RelevanceBreakdown, type RetrievalQuery, relevanceScore } from './score.ts';
import { dropKept, generationSql, type KeptRanking, keptRanking, keptUsable, SUM_UNITS, type SummedEpisode } from './term-cache.ts';
import { mentionTerms, taskTerms } from './terms.ts';

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
const FALLBACK_BELOW = 3;
/** similarity() reads at most this many characters of each description. */
const TRIGRAM_CHARS = 1000;

export interface EpisodeRetrievalFilter {
  minReward?: number | null;
  endedAfter?: Date | null;
  agent?: string | null;
}

export interface EpisodeRetrieval {
  tenantId: string;
  query: RetrievalQuery;
  /** completed only, or completed and failed ranked together. */
  statuses: ReadonlyArray<'completed' | 'failed'>;
  limit: number;
  filter?: EpisodeRetrievalFilter;
  now: Date;
  /** Filled in when given: how many candidates were scored, and whether the fallback ran. */
  stats?: { candidates: number; fallback: boolean };
  /** Never a candidate (a training query's own episode). */
  excludeId?: string;
  /**
   * The model to rank by: undefined loads the tenant's (ranker-store.ts), null ranks by the fixed
   * formula (what the model is trained on, so training never depends on a previous model).
   */
  model?: RankingModel | null;
  /** The strength's calibration when the model is given (else the tenant's, loaded with its model). */
  calibration?: StrengthCalibration;
}

export interface ScoredEpisode {
  id: string;
  score: RelevanceBreakdown;
  /** BM25 of the task description, and the field weight × BM25 of what the episode did and of its change. */
  taskText: number;
  work: number;
  change: number;
  /** The learned model's features and each one's contribution to its score (null without a model). */
  features: FeatureVector;
  contributions: FeatureVector | null;
  /** taskText + work relative to the best candidate's, in [0, 1]. */
  textRank: number;
  trigramSimilarity: number;
  failed: boolean;
  /** A failed episode's reason and details; null for a completed one. */
  whatWentWrong: string | null;
  /** Reported uses of this episode by queries resembling this one (those that moved score.feedback). */
  feedbackUses: number;
  /** The largest resemblance of any reported use's query to this one, in [0, 1]. */
  feedbackResemblance: number;
  /** The calibrated chance that the run is useful to the task (calibration.ts), non-increasing down the ranking. */
  strength: number;
  /** What the strength was computed from (the query's level with the run's total): what a calibration is fitted on. */
  strengthInputs: StrengthInputs;
}

/** The largest number of distinct query terms looked up (a 10 KB description holds fewer words). */
const LOOKUP_TERMS = 4000;

/** Ranks the candidates; all of them, best first (callers take what they show). */
export async function rankEpisodes(pool: pg.Pool, r: EpisodeRetrieval): Promise<ScoredEpisode[]> {
  return (await rankEpisodesWithTerms(pool, r)).episodes;
}

export interface RankedEpisodes {
  episodes: ScoredEpisode[];
  /** The query's terms as the ranking used them, with their idf (what a receipt stores for feedback). */
  terms: WeightedTerms;
}

/** rankEpisodes, and the terms it ranked by. */
export async function rankEpisodesWithTerms(pool: pg.Pool, r: EpisodeRetrieval): Promise<RankedEpisodes> {
  const counts = taskTerms(r.query.description);
  const words = [...counts.keys()].slice(0, LOOKUP_TERMS);
  const repeated = words
    .filter((w) => (counts.get(w) ?? 0) >= BM25.REPEATED_MIN)
    .sort((a, b) => (counts.get(b) ?? 0) - (counts.get(a) ?? 0) || compareText(a, b))
    .slice(0, BM25.REPEATED_TERMS);
  const mentioned = mentionTerms(r.query.description);
  const mentions = [...mentioned.keys()].slice(0, LOOKUP_TERMS);
  const lookup = [...words, ...mentions];
  // The tenant's model is read by the ranking's own statement (one round trip), or alone without words.
  const found =
    lookup.length > 0
      ? await lexicalCandidates(pool, r, lookup, repeated)
      : { rows: [], stats: [], ranking: r.model === undefined ? await loadTenantRanking(pool, r.tenantId) : null };
  const model = r.model !== undefined ? r.model : (found.ranking?.model ?? null);
  const calibration = r.model !== undefined ? (r.calibration ?? DEFAULT_CALIBRATION) : (found.ranking?.calibration ?? DEFAULT_CALIBRATION);
  // The statement chose the terms as chooseQueryTerms does; over the chosen ones' stats it gives them back with their idf.
  const chosen = chooseQueryTerms(
    found.stats.filter((s) => s.field !== BM25.TRACE_FIELD),
    repeated,
  );
  const lexical = found.rows;
  const fallback = lexical.length < FALLBACK_BELOW;
  const rows = (fallback ? await withFallback(pool, r, lexical) : lexical).filter((row) => row.id !== r.excludeId);
  if (r.stats) Object.assign(r.stats, { candidates: rows.length, fallback });
  const best = Math.max(1e-9, ...rows.map((row) => row.task + row.work + row.change));
  const queryWords = new Set(counts.keys());
  const query: ContextSide = { taskType: r.query.taskType, context: r.query.context };
  // The fixed formula's totals first: the best of them vote for the files the model's fileVote reads.
  const feedback = rows.map((row) => queryFeedback(queryWords, row.feedback_uses ?? []));
  const fixed = rows.map((row, i) => fixedScore(row, query, (row.task + row.work + row.change) / best, must(feedback[i]).credit));
  const tieKeys = new Map<string, string>();
  const keyOf = (id: string) => tieKeys.get(id) ?? '';
  const readTied = (totals: Array<{ id: string; total: number }>, top: number) => readTieKeys(pool, r.tenantId, tiedIds(totals, top), tieKeys);
  await readTied(
    rows.map((row, i) => ({ id: row.id, total: must(fixed[i]).total })),
    VOTERS,
  );
  const fileSignals = changedFileSignals(
    queryMentions(r.query.description, { words: counts, modules: mentioned }),
    rows.map((row, i) => ({ files: row.files ?? [], total: must(fixed[i]).total, key: keyOf(row.id) })),
  );
  const domain = inferredDomain(
    r.query.context.domain,
    rows.map((row, i) => ({ domain: row.domain, total: must(fixed[i]).total, key: keyOf(row.id) })),
  );
  const evidence = rows.map((row, i) => ({ ...evidenceOf(domain, row), ...must(fileSignals[i]) }));
  const maxima = fieldMaxima(evidence);
  // Each candidate's features and the model's contributions, once: the best score scales them all.
  const learned = rows.map((row, i) => {
    const x = features({ ...must(evidence[i]), contextMatch: contextMatch(query, sideOf(row)) }, maxima);
    const parts = model ? contributions(model, x) : null;
    return { x, parts, score: parts ? contributionSum(parts) : 0 };
  });
  const bestScore = model ? Math.max(...learned.map((l) => l.score)) : 0;
  const scored = rows.map((row, i) => {
    const { x, parts, score } = must(learned[i]);
    const ranking = { textRank: (row.task + row.work + row.change) / best, x, parts, score, bestScore };
    return toScored(row, query, ranking, must(feedback[i]), parts ? null : must(fixed[i]));
  });
  // Equal totals (runs of the query's domain with no text in common) are ordered by their content, not by their random ids.
  await readTied(
    scored.map((e) => ({ id: e.id, total: e.score.total })),
    r.limit,
  );
  const episodes = scored.sort((a, b) => b.score.total - a.score.total || compareText(keyOf(a.id), keyOf(b.id)) || compareText(a.id, b.id)).slice(0, r.limit);
  // The strength after the order: monotone in the total within a query, so it follows the order.
  for (const e of episodes) {
    e.strengthInputs = { total: e.score.total, bestText: rows.length > 0 ? best : 0, bestScore };
    e.strength = calibratedStrength(calibration, e.strengthInputs);
  }
  return { episodes, terms: weightedTerms(chosen) };
}

/** The voters of changedFileSignals: the best candidates by the fixed formula. */
const VOTERS = 10;

/**
 * The candidates a sort by total, best first, cut to the `top` best, compares by their tie keys:
 * those whose total another one shares, at or above the `top`-th best total (all of them when a
 * total is NaN). The others' order never reaches a comparison of keys, or lies below the cut.
 */
export function tiedIds(candidates: ReadonlyArray<{ id: string; total: number }>, top: number): string[] {
  const count = new Map<number, number>();
  for (const c of candidates) count.set(c.total, (count.get(c.total) ?? 0) + 1);
  // A NaN total compares as a tie with every other: then every candidate is compared by key.
  if (count.has(Number.NaN)) return candidates.map((c) => c.id);
  if (count.size === candidates.length) return [];
  const cut = candidates.map((c) => c.total).sort((a, b) => b - a)[Math.max(0, Math.min(top, candidates.length) - 1)] ?? Number.NEGATIVE_INFINITY;
  return candidates.filter((c) => (count.get(c.total) ?? 0) > 1 && c.total >= cut).map((c) => c.id);
}

/**
 * Adds to `keys` the tie key of each episode not yet in it: a hash of its task and outcome, which
 * orders equal totals the same way in every tenant with this history. Read only for the tied
 * candidates (tiedIds): hashing every candidate's description was a fifth of the ranking
 * statement's CPU (docs/BENCHMARKS.md, issue 55).
 */
async function readTieKeys(pool: pg.Pool, tenantId: string, ids: readonly string[], keys: Map<string, string>): Promise<void> {
  const missing = ids.filter((id) => !keys.has(id));
  if (missing.length === 0) return;
  const p = new Params();
  const rows = await queryPrepared<TieKeyRow>(
    pool,
    `SELECT e.id, md5(e.task_description || coalesce(e.outcome::text, '')) AS tie_key FROM episodes e
      WHERE e.tenant_id = ${p.add(tenantId)} AND e.id = ANY(${p.add(missing)}::uuid[])`,
    p,
  );
  for (const row of rows) keys.set(row.id, row.tie_key);
}

/** A candidate's evidence for the learned model's features, without the changed files' signals and the context match. */
function evidenceOf(domain: string | null, row: CandidateRow): Omit<CandidateEvidence, 'namesChangedModule' | 'namesChangedFile' | 'fileVote'> {
  return {
    task: row.task,
    work: row.work,
    change: row.change,
    trace: row.trace,
    sameDomain: domain !== null && row.domain === domain ? 1 : 0,
    contextMatch: 0,
    trigram: row.trigram,
  };
}

/** The fixed formula's breakdown of a candidate (relevanceScore without a learned model). */
function fixedScore(row: CandidateRow, query: ContextSide, textRank: number, feedbackCredit: number): RelevanceBreakdown {
  const side = sideOf(row);
  return relevanceScore(query, {
    taskType: side.taskType,
    context: side.context,
    rewardNormalized: row.reward_score,
    textRank,
    trigramSimilarity: row.trigram,
    ageDays: row.age_days,
    feedbackCredit,
    learnedEvidence: null,
  });
}

/** The candidate's task type and context, as relevanceScore and contextMatch compare them. */
function sideOf(row: CandidateRow): ContextSide {
  return { taskType: row.task_type, context: { domain: row.domain, language: row.language, framework: row.framework, tags: row.tags ?? [] } };
}

interface Ranking {
  textRank: number;
  /** The candidate's features, and their contributions under the tenant's model (null without one). */
  x: FeatureVector;
  parts: FeatureVector | null;
  /** The model's score of this candidate and of the best one: evidence is relative to the best. */
  score: number;
  bestScore: number;
}

/**
 * A candidate as relevantEpisodes answers it; `fixed` is its fixed-formula breakdown when there is
 * no model (computed once, for the file votes), else its breakdown is computed with the model's evidence.
 */
function toScored(
  row: CandidateRow,
  query: ContextSide,
  ranking: Ranking,
  feedback: ReturnType<typeof queryFeedback>,
  fixed: RelevanceBreakdown | null,
): ScoredEpisode {
  const side = sideOf(row);
  const { x, parts } = ranking;
  // exp(score − best): 1 for the best candidate, and a model-score gap of g leaves e^−g of its evidence,
  // so the priors (a factor within 0.90 to 1.17) reorder only candidates within 0.26 of each other.
  const learnedEvidence = parts ? Math.exp(ranking.score - ranking.bestScore) : null;
  return {
    id: row.id,
    taskText: row.task,
    work: row.work,
    change: row.change,
    features: x,
    contributions: parts,
    textRank: ranking.textRank,
    trigramSimilarity: row.trigram,
    failed: row.status === 'failed',
    whatWentWrong: row.status === 'failed' ? row.what_went_wrong : null,
    feedbackUses: feedback.uses,
    feedbackResemblance: feedback.resemblance,
    strength: 0,
    strengthInputs: { total: 0, bestText: 0, bestScore: 0 },
    // Each member named, not spread (relevanceScore's comment says why).
    score:
      fixed ??
      relevanceScore(query, {
        taskType: side.taskType,
        context: side.context,
        rewardNormalized: row.reward_score,
        textRank: ranking.textRank,
        trigramSimilarity: row.trigram,
        ageDays: row.age_days,
        feedbackCredit: feedback.credit,
        learnedEvidence,
      }),
  };
}

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

interface CandidateRow {
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

/** A hash of an episode's task and outcome (readTieKeys): orders equal totals the same way in every tenant with this history. */
interface TieKeyRow {
  id: string;
  tie_key: string;
}

/** What relevanceScore needs of each candidate episode (e), with its BM25 parts. */
function candidateColumns(p: Params, r: EpisodeRetrieval, trigram: boolean): string {
  const similarity = trigram ? `similarity(left(e.task_description, ${TRIGRAM_CHARS}), ${p.add(r.query.description.slice(0, TRIGRAM_CHARS))})` : '0';
  return `e.id, e.task_type, e.domain, e.language, e.framework, e.tags, e.status, e.reward_score,
          ARRAY(SELECT f.path FROM episode_files f WHERE f.episode_id = e.id ORDER BY f.path COLLATE "C") AS files,
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
async function lexicalCandidates(
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
    `WITH best AS (SELECT * FROM unnest(${p.add(arrayLiteral(best.map((b) => b.id)))}::uuid[], ${p.add(arrayLiteral(places(best)))}::int[]) AS s(episode_id, rank)),
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
  // The sums are the kept ones (the statement read only each candidate's place).
  const sums = new Map(best.map((b) => [b.id, b]));
  const candidates = rows.flatMap((row) => {
    const summed = row.id ? sums.get(row.id) : undefined;
    return summed
      ? [{ candidate: Object.assign(row as CandidateRow, { task: summed.task, work: summed.work, change: summed.change, trace: summed.trace }) }]
      : [];
  });
  return {
    rows: distinctCandidates(candidates),
    stats: kept.stats,
    ranking: r.model === undefined ? toTenantRanking(rows.find((row) => row.model !== null)?.model) : null,
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

/**
 * An array parameter's text for uuids and finite numbers, which need no quoting: pg's own array
 * serialization escaped each of the 1,000 elements one by one (2 % of the server's CPU under load).
 * String(x) of a number is the shortest text that reads back as the same float8.
 */
function arrayLiteral(values: ReadonlyArray<string | number>): string {
  return `{${values.join(',')}}`;
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
  const columns = candidateColumns(p, r, false);
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
async function withFallback(pool: pg.Pool, r: EpisodeRetrieval, lexical: CandidateRow[]): Promise<CandidateRow[]> {
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
