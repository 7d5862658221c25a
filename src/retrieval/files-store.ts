// relevantFiles in the store: rank the tenant's ended runs as relevantEpisodes does (the same
// ranking function, failures included), read the files each candidate changed (its outcome's
// artifacts: the importer stores a run's final patch's files there, an agent its own), rank the
// files (files.ts), then record a receipt of the runs served as evidence, when the caller may write.
import type pg from 'pg';
import { Params, queryRows } from '../db/sql.ts';
import { FILE_RULES, type FileEvidence, normalisePaths, type RankedRun, type RunOutcome, rankFiles } from './files.ts';
import { type RetrievalDeps, startReceipt } from './retrieve.ts';
import type { RetrievalQuery } from './score.ts';
import { type EpisodeRetrievalFilter, rankEpisodesWithTerms } from './store.ts';

export interface FileRetrievalResult {
  /** Null when nothing was recorded (the caller may not write). */
  retrievalId: string | null;
  files: FileEvidence[];
}

export async function retrieveFiles(
  deps: RetrievalDeps,
  tenantId: string,
  request: { query: RetrievalQuery; limit: number; filter: EpisodeRetrievalFilter; record: boolean },
): Promise<FileRetrievalResult> {
  await deps.turn();
  const { episodes, terms } = await rankEpisodesWithTerms(deps.pool, {
    tenantId,
    query: request.query,
    limit: FILE_RULES.similarRuns,
    statuses: ['completed', 'failed'],
    filter: request.filter,
    now: new Date(),
  });
  const changed = await changedFilesOf(
    deps.pool,
    tenantId,
    episodes.map((e) => e.id),
  );
  const scratch = await onlyCreated(
    deps.pool,
    tenantId,
    [...changed.values()].flatMap((c) => normalisePaths(c.files)),
  );
  const domain = request.query.context.domain;
  const runs: RankedRun[] = episodes.map((e) => {
    const run = changed.get(e.id) ?? { outcome: null, files: [], domain: null };
    // With a domain, only its runs say where to look: another repository's paths are not files of this one.
    const files = domain !== null && run.domain !== domain ? [] : normalisePaths(run.files).filter((f) => !scratch.has(fileKey(run.domain, f)));
    return { id: e.id, similarity: e.score.similarity, outcome: run.outcome, files };
  });
  const files = rankFiles(request.query.description, runs, request.limit);
  if (!request.record) return { retrievalId: null, files };
  // The receipt lists the evidence runs: completeEpisode(usedRetrievals) credits them as it credits
  // a relevantEpisodes answer.
  const evidence = [...new Set(files.flatMap((f) => f.evidence))];
  const query = {
    files: true,
    task: request.query,
    limit: request.limit,
    filter: { minReward: request.filter.minReward ?? null, endedAfter: request.filter.endedAfter?.toISOString() ?? null, agent: request.filter.agent ?? null },
  };
  const retrievalId = startReceipt(deps, tenantId, { kind: 'files', query, episodeIds: evidence, terms });
  return { retrievalId, files };
}

/** Each episode's outcome, domain and the files it changed (outcome artifacts), tenant-scoped. */
async function changedFilesOf(
  pool: pg.Pool,
  tenantId: string,
  ids: readonly string[],
): Promise<Map<string, { outcome: RunOutcome | null; files: string[]; domain: string | null }>> {
  if (ids.length === 0) return new Map();
  const p = new Params();
  const rows = await queryRows<{ id: string; outcome_kind: RunOutcome | null; domain: string | null; artifacts: string[] | null }>(
    pool,
    `SELECT id, outcome_kind, domain,
            CASE WHEN jsonb_typeof(outcome->'artifacts') = 'array' THEN ARRAY(SELECT jsonb_array_elements_text(outcome->'artifacts')) END AS artifacts
       FROM episodes WHERE tenant_id = ${p.add(tenantId)} AND id = ANY(${p.add(ids)}::uuid[])`,
    p,
  );
  return new Map(rows.map((r) => [r.id, { outcome: r.outcome_kind, files: r.artifacts ?? [], domain: r.domain }]));
}

const fileKey = (domain: string | null, path: string) => `${domain ?? ''}\u0000${path}`;

/**
 * Of these paths, the files (per domain) that runs' diffs only ever created and no run changed as an
 * existing file: agents' scratch files (reproduce.py, *.orig), not places to look. A file no diff
 * shows (an artifact an agent listed) is kept.
 */
async function onlyCreated(pool: pg.Pool, tenantId: string, paths: readonly string[]): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  const p = new Params();
  const rows = await queryRows<{ domain: string; path: string }>(
    pool,
    `SELECT domain, path FROM episode_files WHERE tenant_id = ${p.add(tenantId)} AND path = ANY(${p.add([...new Set(paths)])}::text[])
      GROUP BY domain, path HAVING bool_and(created)`,
    p,
  );
  return new Set(rows.map((r) => fileKey(r.domain === '' ? null : r.domain, r.path)));
}
