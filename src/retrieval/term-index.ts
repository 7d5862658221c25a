// The retrieval index, written when an episode ends (finishEpisode, in its transaction): the terms
// of its task description, of what it did and of the change it left (terms.ts), each stored with its BM25 weight in the
// document (impact, without idf), plus the term's document frequency and the field's totals.
//
// Impacts use the field's average length at write time (including this document). Lucene
// recomputes length norms at query time; here the average moves slowly once a tenant has a few
// hundred episodes, and a precomputed impact is what lets a query read only each term's best
// postings from the index (store.ts). Document frequencies are upserted in term order, so two
// endings that share terms wait for each other instead of deadlocking. Every term counts in the
// frequencies and the length; postings are written for the INDEXED_TERMS terms of largest
// impact × idf per field only (static pruning, bm25.ts topTerms).
import type pg from 'pg';
import type { EpisodeTermDfRow, EpisodeTermTotalsRow } from '../db/rows.ts';
import { insertInto, Params, queryRows, unnestAs } from '../db/sql.ts';
import { BM25, topTerms } from './bm25.ts';
import { changeTerms, DIFF_CHARS, documentLength, lastDiff, STEP_TEXT_CHARS, type TermCounts, taskTerms, type WorkStep, workTerms } from './terms.ts';

export const FIELD = { task: 0, work: 1, change: 2 } as const;

/** Steps read for the work field: the first ones and the last ones (where the change is submitted). */
const INDEXED_STEPS = 400;

interface EpisodeSource {
  task_description: string;
  artifacts: string[] | null;
  failure: string | null;
}

interface StepSource {
  tool: string | null;
  action: string | null;
  parameters: string | null;
  error_class: string | null;
  error_message: string | null;
  output: string | null;
}

/** Indexes an ended episode (idempotent: an episode already indexed is left alone). */
export async function indexEpisodeTerms(client: pg.PoolClient, tenantId: string, episodeId: string): Promise<void> {
  const p = new Params();
  const already = await client.query(`SELECT 1 FROM episode_terms WHERE episode_id = ${p.add(episodeId)} LIMIT 1`, p.values);
  if (already.rowCount) return;
  const episode = await episodeSource(client, episodeId);
  if (!episode) return;
  const steps = await indexedSteps(client, episodeId);
  const work = workTerms({ artifacts: episode.artifacts ?? [], failure: episode.failure, steps: steps.map(toWorkStep) });
  await writeField(client, tenantId, episodeId, FIELD.task, taskTerms(episode.task_description));
  await writeField(client, tenantId, episodeId, FIELD.work, work);
  const change = changeTerms({ artifacts: episode.artifacts ?? [], diff: lastDiff(steps.map((s) => s.output)) });
  await writeField(client, tenantId, episodeId, FIELD.change, change);
}

async function episodeSource(client: pg.PoolClient, episodeId: string): Promise<EpisodeSource | undefined> {
  const p = new Params();
  const sql = `SELECT task_description,
            CASE WHEN jsonb_typeof(outcome->'artifacts') = 'array' THEN ARRAY(SELECT jsonb_array_elements_text(outcome->'artifacts')) END AS artifacts,
            CASE WHEN outcome_kind = 'failure' THEN concat_ws(' ', outcome->>'reason', outcome->>'details')
                 WHEN outcome_kind = 'partial' THEN outcome->>'failed' END AS failure
       FROM episodes WHERE id = ${p.add(episodeId)}`;
  return (await queryRows<EpisodeSource>(client, sql, p))[0];
}

/** The first and the last INDEXED_STEPS / 2 steps. */
async function indexedSteps(client: pg.PoolClient, episodeId: string): Promise<StepSource[]> {
  const p = new Params();
  const id = p.add(episodeId);
  const half = p.add(INDEXED_STEPS / 2);
  const sql = `SELECT tool, action, left(parameters::text, ${STEP_TEXT_CHARS}) AS parameters, result->>'errorClass' AS error_class,
            left(result->>'message', ${STEP_TEXT_CHARS}) AS error_message, left(coalesce(result->>'output', observation), ${DIFF_CHARS}) AS output
       FROM steps WHERE episode_id = ${id} AND (step_number <= ${half} OR step_number > (SELECT step_count FROM episodes WHERE id = ${id}) - ${half})
      ORDER BY step_number`;
  return queryRows<StepSource>(client, sql, p);
}

function toWorkStep(s: StepSource): WorkStep {
  return { tool: s.tool, action: s.action, parameters: s.parameters, errorClass: s.error_class, errorMessage: s.error_message, output: s.output };
}

async function writeField(client: pg.PoolClient, tenantId: string, episodeId: string, field: number, counts: TermCounts): Promise<void> {
  const length = documentLength(counts);
  const p = new Params();
  const [totals] = await queryRows<Pick<EpisodeTermTotalsRow, 'documents' | 'length'>>(
    client,
    `${insertInto(p, 'episode_term_totals', { tenant_id: tenantId, field, documents: 1, length })}
     ON CONFLICT (tenant_id, field) DO UPDATE SET documents = episode_term_totals.documents + 1, length = episode_term_totals.length + EXCLUDED.length
     RETURNING documents, length`,
    p,
  );
  if (counts.size === 0) return;
  const documents = totals?.documents ?? 1;
  const averageLength = totals ? Number(totals.length) / Math.max(1, totals.documents) : length;
  const terms = [...counts.keys()].sort();
  // Every term counts in the document frequencies; only the best INDEXED_TERMS get postings.
  const d = new Params();
  const dfs = await queryRows<Pick<EpisodeTermDfRow, 'term' | 'df'>>(
    client,
    `INSERT INTO episode_term_df (tenant_id, field, term, df)
     SELECT ${d.add(tenantId)}, ${d.add(field)}, u.term, 1 FROM ${unnestAs(d, 'u', { term: [terms, 'text'] })} ORDER BY u.term
     ON CONFLICT (tenant_id, field, term) DO UPDATE SET df = episode_term_df.df + 1 RETURNING term, df`,
    d,
  );
  const df = new Map(dfs.map((r) => [r.term, r.df]));
  const kept = topTerms(
    terms.map((term) => ({ term, impact: BM25.impact(counts.get(term) ?? 0, length, averageLength, field), idf: BM25.idf(documents, df.get(term) ?? 1) })),
    BM25.INDEXED_TERMS,
  ).sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
  const k = new Params();
  await client.query(
    `INSERT INTO episode_terms (tenant_id, episode_id, field, term, impact)
     SELECT ${k.add(tenantId)}, ${k.add(episodeId)}, ${k.add(field)}, t.term, t.impact
       FROM ${unnestAs(k, 't', { term: [kept.map((t) => t.term), 'text'], impact: [kept.map((t) => t.impact), 'float8'] })}`,
    k.values,
  );
}
