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
  const already = await client.query('SELECT 1 FROM episode_terms WHERE episode_id = $1 LIMIT 1', [episodeId]);
  if (already.rowCount) return;
  const { rows } = await client.query<EpisodeSource>(
    `SELECT task_description,
            CASE WHEN jsonb_typeof(outcome->'artifacts') = 'array' THEN ARRAY(SELECT jsonb_array_elements_text(outcome->'artifacts')) END AS artifacts,
            CASE WHEN outcome_kind = 'failure' THEN concat_ws(' ', outcome->>'reason', outcome->>'details')
                 WHEN outcome_kind = 'partial' THEN outcome->>'failed' END AS failure
       FROM episodes WHERE id = $1`,
    [episodeId],
  );
  const episode = rows[0];
  if (!episode) return;
  const steps = await client.query<StepSource>(
    `SELECT tool, action, left(parameters::text, ${STEP_TEXT_CHARS}) AS parameters, result->>'errorClass' AS error_class,
            left(result->>'message', ${STEP_TEXT_CHARS}) AS error_message, left(coalesce(result->>'output', observation), ${DIFF_CHARS}) AS output
       FROM steps WHERE episode_id = $1 AND (step_number <= $2 OR step_number > (SELECT step_count FROM episodes WHERE id = $1) - $2)
      ORDER BY step_number`,
    [episodeId, INDEXED_STEPS / 2],
  );
  const work = workTerms({ artifacts: episode.artifacts ?? [], failure: episode.failure, steps: steps.rows.map(toWorkStep) });
  await writeField(client, tenantId, episodeId, FIELD.task, taskTerms(episode.task_description));
  await writeField(client, tenantId, episodeId, FIELD.work, work);
  const change = changeTerms({ artifacts: episode.artifacts ?? [], diff: lastDiff(steps.rows.map((s) => s.output)) });
  await writeField(client, tenantId, episodeId, FIELD.change, change);
}

function toWorkStep(s: StepSource): WorkStep {
  return { tool: s.tool, action: s.action, parameters: s.parameters, errorClass: s.error_class, errorMessage: s.error_message, output: s.output };
}

async function writeField(client: pg.PoolClient, tenantId: string, episodeId: string, field: number, counts: TermCounts): Promise<void> {
  const length = documentLength(counts);
  const { rows } = await client.query<{ documents: number; length: string }>(
    `INSERT INTO episode_term_totals (tenant_id, field, documents, length) VALUES ($1, $2, 1, $3)
     ON CONFLICT (tenant_id, field) DO UPDATE SET documents = episode_term_totals.documents + 1, length = episode_term_totals.length + EXCLUDED.length
     RETURNING documents, length`,
    [tenantId, field, length],
  );
  if (counts.size === 0) return;
  const totals = rows[0];
  const documents = totals?.documents ?? 1;
  const averageLength = totals ? Number(totals.length) / Math.max(1, totals.documents) : length;
  const terms = [...counts.keys()].sort();
  // Every term counts in the document frequencies; only the best INDEXED_TERMS get postings.
  const dfs = await client.query<{ term: string; df: number }>(
    `INSERT INTO episode_term_df (tenant_id, field, term, df) SELECT $1, $2, term, 1 FROM unnest($3::text[]) AS term ORDER BY term
     ON CONFLICT (tenant_id, field, term) DO UPDATE SET df = episode_term_df.df + 1 RETURNING term, df`,
    [tenantId, field, terms],
  );
  const df = new Map(dfs.rows.map((r) => [r.term, r.df]));
  const kept = topTerms(
    terms.map((term) => ({ term, impact: BM25.impact(counts.get(term) ?? 0, length, averageLength, field), idf: BM25.idf(documents, df.get(term) ?? 1) })),
    BM25.INDEXED_TERMS,
  ).sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
  await client.query(
    `INSERT INTO episode_terms (tenant_id, episode_id, field, term, impact)
     SELECT $1, $2, $3, t.term, t.impact FROM unnest($4::text[], $5::float8[]) AS t(term, impact)`,
    [tenantId, episodeId, field, kept.map((t) => t.term), kept.map((t) => t.impact)],
  );
}
