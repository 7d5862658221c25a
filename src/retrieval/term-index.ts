// The retrieval index, written when an episode ends (finishEpisode, in its transaction): the terms
// of its task description, of what it did, of the change it left and of everything it left (the
// trace; terms.ts), each stored with its BM25 weight in the document (impact, without idf), plus
// the term's document frequency and the field's totals.
//
// Impacts are relative to each field's fixed reference length (bm25.ts PIVOT_LENGTH), not to the
// average at write time: a stored impact depends on its document alone, so the same episodes give
// the same index in any order or concurrency (with the running average, concurrent imports wrote
// other impacts than serial ones). A precomputed impact is what lets a query read only each term's
// best postings from the index (store.ts); idf comes from the frequencies at query time. Document
// frequencies are upserted in term order, so two endings that share terms wait for each other
// instead of deadlocking. Every term counts in the frequencies and the length; postings are
// written for the INDEXED_TERMS terms of largest impact per field (bm25.ts topTerms).
import type pg from 'pg';
import { Params, queryRows, unnestAs } from '../db/sql.ts';
import { indexDocumentsOffThread } from './index-workers.ts';
import {
  type DocumentSource,
  type EpisodeSource,
  type IndexedFile,
  type IndexShares,
  indexDocuments,
  type PostingColumns,
  type StepSource,
  type TermCount,
} from './term-documents.ts';
import { DIFF_CHARS, STEP_TEXT_CHARS } from './terms.ts';

export type { IndexShares } from './term-documents.ts';

/** Steps read for the work field: the first ones and the last ones (where the change is submitted). */
const INDEXED_STEPS = 400;

/** Indexes an ended episode (idempotent: an episode already indexed is left alone). */
export async function indexEpisodeTerms(client: pg.PoolClient, tenantId: string, episodeId: string): Promise<void> {
  await addIndexShares(client, tenantId, await indexOwnRows(client, tenantId, [episodeId]));
}

/**
 * Indexes several ended episodes of a tenant at once (runs imported in one transaction), first their
 * own rows (postings, changed files), which lock nothing another ending takes; the shared rows are
 * then written once for all of them (addIndexShares), not once per episode. An import batch writes them before it takes the tenant's
 * learning lock, so the next batch's extraction does not wait through them; addIndexShares writes
 * the rest, last.
 */
export async function indexOwnRows(client: pg.PoolClient, tenantId: string, episodeIds: readonly string[]): Promise<IndexShares> {
  if (episodeIds.length === 0) return { counts: [], fields: [] };
  const { postings, files, shares } = await indexDocumentsOffThread(await documentSources(client, episodeIds, false));
  if (postings) await addPostings(client, tenantId, postings);
  await addFiles(client, tenantId, files);
  return shares;
}

/**
 * The frequencies and the totals of the documents indexOwnRows wrote, last: these rows are shared
 * by every ending of the tenant and stay locked until commit, so nothing else runs between taking
 * them and the commit.
 */
export async function addIndexShares(client: pg.PoolClient, tenantId: string, shares: IndexShares): Promise<void> {
  if (shares.fields.length === 0) return;
  if (shares.counts.length) await addDocumentFrequencies(client, tenantId, shares.counts);
  await addTotals(client, tenantId, shares.fields);
}

/**
 * The stored record and indexed steps of the episodes whose `indexed` state is as asked, in their
 * order (two reads for all of them: a batch's cost is per round trip).
 */
async function documentSources(client: pg.PoolClient, episodeIds: readonly string[], indexed: boolean): Promise<DocumentSource[]> {
  const sources = await episodeSources(client, episodeIds);
  const stepsOf = await indexedSteps(client, episodeIds);
  return episodeIds.flatMap((episodeId) => {
    const episode = sources.get(episodeId);
    return episode && episode.indexed === indexed ? [{ episodeId, episode, steps: stepsOf.get(episodeId) ?? [] }] : [];
  });
}

/**
 * Takes forgotten episodes out of the index (docs/LEDGER.md §3.4), before their texts and steps are
 * deleted, since the terms are recomputed from them: their postings and files go, and their
 * documents leave the frequencies (a term no other episode holds is deleted: it could be the
 * forgotten text itself) and the totals. Terms of steps appended after the episode was indexed
 * (late telemetry) were never counted; clamping at zero keeps those counts sane.
 */
export async function unindexEpisodesTerms(client: pg.PoolClient, tenantId: string, episodeIds: readonly string[]): Promise<void> {
  if (episodeIds.length === 0) return;
  const sources = await documentSources(client, episodeIds, true);
  const p = new Params();
  const ids = p.add(episodeIds);
  await client.query(
    `WITH t AS (DELETE FROM episode_terms WHERE tenant_id = ${p.add(tenantId)} AND episode_id = ANY(${ids}::uuid[]))
     DELETE FROM episode_files WHERE episode_id = ANY(${ids}::uuid[])`,
    p.values,
  );
  if (!sources.length) return;
  const { shares } = indexDocuments(sources);
  if (shares.counts.length) await removeDocumentFrequencies(client, tenantId, shares.counts);
  await removeTotals(client, tenantId, shares.fields);
}

async function removeDocumentFrequencies(client: pg.PoolClient, tenantId: string, counts: readonly TermCount[]) {
  const d = new Params();
  const rows = { ...termColumns(counts), documents: [counts.map((c) => c.documents), 'int'] } as const;
  const tenant = d.add(tenantId);
  const u = unnestAs(d, 'u', rows);
  // Two statements: a row updated in a WITH is not seen updated by the statement around it.
  await client.query(
    `UPDATE episode_term_df f SET df = f.df - u.documents FROM (SELECT * FROM ${u} ORDER BY u.field, u.term) u
      WHERE f.tenant_id = ${tenant} AND f.field = u.field AND f.term = u.term`,
    d.values,
  );
  await client.query(
    `DELETE FROM episode_term_df f USING ${u} WHERE f.tenant_id = ${tenant} AND f.field = u.field AND f.term = u.term AND f.df <= 0`,
    d.values,
  );
}

/** Takes the documents out of their fields' totals and raises their generation (as addTotals does). */
async function removeTotals(client: pg.PoolClient, tenantId: string, fields: ReadonlyArray<{ field: number; length: number }>) {
  const p = new Params();
  const totals = fieldTotals(fields);
  const rows = {
    field: [totals.map(([field]) => field), 'int'],
    documents: [totals.map(([, t]) => t.documents), 'int'],
    length: [totals.map(([, t]) => t.length), 'int8'],
  } as const;
  await client.query(
    `UPDATE episode_term_totals t SET documents = greatest(0, t.documents - u.documents), length = greatest(0, t.length - u.length),
            generation = t.generation + 1
       FROM ${unnestAs(p, 'u', rows)} WHERE t.tenant_id = ${p.add(tenantId)} AND t.field = u.field`,
    p.values,
  );
}

/** The files each episode's last diff changed, and whether it created them (files-store.ts reads them). */
async function addFiles(client: pg.PoolClient, tenantId: string, files: readonly IndexedFile[]) {
  if (!files.length) return;
  const p = new Params();
  const rows = {
    episode: [files.map((f) => f.episodeId), 'uuid'],
    domain: [files.map((f) => f.domain), 'text'],
    path: [files.map((f) => f.path), 'text'],
    created: [files.map((f) => f.created), 'bool'],
  } as const;
  await client.query(
    `INSERT INTO episode_files (tenant_id, episode_id, domain, path, created)
     SELECT ${p.add(tenantId)}, f.episode, f.domain, f.path, f.created FROM ${unnestAs(p, 'f', rows)} ON CONFLICT DO NOTHING`,
    p.values,
  );
}

async function episodeSources(client: pg.PoolClient, episodeIds: readonly string[]): Promise<Map<string, EpisodeSource>> {
  const p = new Params();
  const sql = `SELECT id, EXISTS (SELECT 1 FROM episode_terms t WHERE t.episode_id = e.id) AS indexed, domain, task_description,
            CASE WHEN jsonb_typeof(outcome->'artifacts') = 'array' THEN ARRAY(SELECT jsonb_array_elements_text(outcome->'artifacts')) END AS artifacts,
            CASE WHEN outcome_kind = 'failure' THEN concat_ws(' ', outcome->>'reason', outcome->>'details')
                 WHEN outcome_kind = 'partial' THEN outcome->>'failed' END AS failure
       FROM episodes e WHERE id = ANY(${p.add(episodeIds)}::uuid[])`;
  return new Map((await queryRows<EpisodeSource & { id: string }>(client, sql, p)).map((r) => [r.id, r]));
}

/** Each episode's first and last INDEXED_STEPS / 2 steps, in order. */
async function indexedSteps(client: pg.PoolClient, episodeIds: readonly string[]): Promise<Map<string, StepSource[]>> {
  const p = new Params();
  const half = p.add(INDEXED_STEPS / 2);
  const sql = `SELECT s.episode_id, s.tool, s.action, left(s.parameters::text, ${STEP_TEXT_CHARS}) AS parameters, s.result->>'errorClass' AS error_class,
            left(s.result->>'message', ${STEP_TEXT_CHARS}) AS error_message, left(coalesce(s.result->>'output', s.observation), ${DIFF_CHARS}) AS output
       FROM episodes e JOIN steps s ON s.episode_id = e.id
      WHERE e.id = ANY(${p.add(episodeIds)}::uuid[]) AND (s.step_number <= ${half} OR s.step_number > e.step_count - ${half})
      ORDER BY s.episode_id, s.step_number`;
  const byEpisode = new Map<string, StepSource[]>();
  for (const row of await queryRows<StepSource & { episode_id: string }>(client, sql, p)) {
    const steps = byEpisode.get(row.episode_id);
    if (steps) steps.push(row);
    else byEpisode.set(row.episode_id, [row]);
  }
  return byEpisode;
}

async function addPostings(client: pg.PoolClient, tenantId: string, postings: PostingColumns) {
  const k = new Params();
  await client.query(
    `INSERT INTO episode_terms (tenant_id, episode_id, field, term, impact)
     SELECT ${k.add(tenantId)}, (${k.add(postings.episodes)}::uuid[])[t.episode], t.field, t.term, t.impact
       FROM unnest(${k.add(postings.episode)}::int[], ${k.add(postings.field)}::int[], ${k.add(postings.term)}::text[], ${k.add(postings.impact)}::float8[])
         AS t(episode, field, term, impact)`,
    k.values,
  );
}

/** Documents and summed length per field, in field order. */
function fieldTotals(fields: ReadonlyArray<{ field: number; length: number }>): Array<[number, { documents: number; length: number }]> {
  const byField = new Map<number, { documents: number; length: number }>();
  for (const f of fields) {
    const entry = byField.get(f.field) ?? { documents: 0, length: 0 };
    byField.set(f.field, { documents: entry.documents + 1, length: entry.length + f.length });
  }
  return [...byField.entries()].sort(([a], [b]) => a - b);
}

/**
 * Adds each document and its length to its fields' totals, in field order, and raises their
 * generation: every transaction that writes postings or frequencies comes here (or to removeTotals),
 * so a kept copy of the index (term-cache.ts) sees the write as a new generation once it commits.
 */
async function addTotals(client: pg.PoolClient, tenantId: string, fields: ReadonlyArray<{ field: number; length: number }>) {
  const totals = fieldTotals(fields);
  const p = new Params();
  const rows = {
    field: [totals.map(([field]) => field), 'int'],
    documents: [totals.map(([, t]) => t.documents), 'int'],
    length: [totals.map(([, t]) => t.length), 'int8'],
  } as const;
  await client.query(
    `INSERT INTO episode_term_totals (tenant_id, field, documents, length, generation)
     SELECT ${p.add(tenantId)}, u.field, u.documents, u.length, 1 FROM ${unnestAs(p, 'u', rows)} ORDER BY u.field
     ON CONFLICT (tenant_id, field) DO UPDATE SET documents = episode_term_totals.documents + EXCLUDED.documents, length = episode_term_totals.length + EXCLUDED.length,
       generation = episode_term_totals.generation + 1`,
    p.values,
  );
}

/** The (field, term) pairs as unnest columns. */
function termColumns(counts: readonly TermCount[]) {
  return { field: [counts.map((c) => c.field), 'int'], term: [counts.map((c) => c.term), 'text'] } as const;
}

/**
 * Adds the documents to their terms' frequencies, in (field, term) order, so two endings that
 * share terms wait for each other instead of deadlocking.
 */
async function addDocumentFrequencies(client: pg.PoolClient, tenantId: string, counts: readonly TermCount[]) {
  const d = new Params();
  const rows = { ...termColumns(counts), documents: [counts.map((c) => c.documents), 'int'] } as const;
  await client.query(
    `INSERT INTO episode_term_df (tenant_id, field, term, df)
     SELECT ${d.add(tenantId)}, u.field, u.term, u.documents FROM ${unnestAs(d, 'u', rows)} ORDER BY u.field, u.term
     ON CONFLICT (tenant_id, field, term) DO UPDATE SET df = episode_term_df.df + EXCLUDED.df`,
    d.values,
  );
}
