// Where to look (issue 27): relevantFiles and served file patterns on the held-out tasks of the
// memory benchmark's split (bench/memory-split.ts), learnt from the pool only.
//
// - relevantFiles Recall@5: the share of a held-out task's own changed files (its final patch, no
//   packaging files) among the first 5 files relevantFiles answers (task text + context {domain,
//   language}), averaged over the held-out tasks that changed a file; against the baseline "files
//   changed by BM25's top 5 runs, ranked by vote": an in-benchmark BM25 over everything a run left
//   (task, commands, outputs, final patch), restricted to the repository, same pool, same queries.
//   The ceiling: the share of those files that any pool run changed.
// - Served file patterns: relevantPatterns for each held-out task (task + context); a task is served
//   when a pattern naming a file comes back, and the pattern is right when one of the files served
//   is a file the task changed.
// - Served procedures: the PROCEDURE patterns of the same answers; one is right when the task's own
//   run ran it successfully (a step whose command normalises to it, src/learning/procedures.ts, exited
//   0); coverage is the share of held-out tasks served at least one.
//
// reportFiles({ database, url, pool, heldOut }) is called at the end of `npm run bench:memory` on a
// tenant of its own (the main benchmark's tenant holds feedback runs of held-out tasks by then);
// standalone: `npm run bench:files` (MEMORY_DATASET, BENCH_DATABASE_URL as bench:memory).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createApiKey, createTenant } from '../src/auth/store.ts';
import { createEpisodicClient, type EpisodicClient } from '../src/client/index.ts';
import { importRuns } from '../src/import/index.ts';
import { filesWritten, proceduresOf } from '../src/learning/procedures.ts';
import { diffFiles } from '../src/retrieval/files.ts';
import { trainRankingModel } from '../src/retrieval/ranker-training.ts';
import { type DevRun, loadDevRuns } from './memory-data.ts';
import { Bm25Baseline } from './memory-metrics.ts';
import { splitByRepository } from './memory-split.ts';
import { type BenchDatabase, fmt, openBenchDatabase, startBenchServer } from './support.ts';

const K = 5;
const DESCRIPTION_BYTES = 10 * 1024;
/** Characters of each step's output the baseline reads (a run's outputs can reach megabytes). */
const OUTPUT_CHARS = 4000;

const FILES = `query($task: RetrievalTaskInput!, $filter: RelevantEpisodeFilter) {
  result: relevantFiles(task: $task, limit: ${K}, filter: $filter) { __typename ... on RelevantFiles { files { path runs } } } }`;
const PATTERNS = `query($task: RetrievalTaskInput!) { result: relevantPatterns(task: $task, limit: 50) {
  __typename ... on RelevantPatterns { patterns { pattern { kind changedFile cue } } } } }`;
const EXTRACT = `mutation($id: ID!) { result: extractEpisodePatterns(episodeId: $id) { __typename } }`;

export interface FilesBenchInput {
  database: BenchDatabase;
  url: string;
  pool: readonly DevRun[];
  heldOut: readonly DevRun[];
}

const cut = (text: string) =>
  Buffer.from(text)
    .subarray(0, DESCRIPTION_BYTES)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
const task = (run: DevRun) => ({ description: cut(run.description), context: { domain: run.repository, language: run.language } });

/** Recall@K of a ranked file list against the task's own changed files. */
export function recallAt(ranked: readonly string[], changed: readonly string[], k = K): number {
  if (changed.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return changed.filter((f) => top.has(f)).length / changed.length;
}

/** Files changed by the top K runs, by how many of them changed each (ties: the earlier run's first). */
export function voteFiles(runIds: readonly string[], filesOf: (id: string) => readonly string[]): string[] {
  const votes = new Map<string, { votes: number; first: number }>();
  runIds.slice(0, K).forEach((id, rank) => {
    for (const f of filesOf(id)) {
      const v = votes.get(f) ?? { votes: 0, first: rank };
      v.votes += 1;
      votes.set(f, v);
    }
  });
  return [...votes].sort((a, b) => b[1].votes - a[1].votes || a[1].first - b[1].first || (a[0] < b[0] ? -1 : 1)).map(([f]) => f);
}

/** Everything a run left, as one text: task, commands, outputs (OUTPUT_CHARS each), final patch. */
function everything(run: DevRun): string {
  return [run.description, ...run.steps.flatMap((s) => [s.command, s.output.slice(0, OUTPUT_CHARS)]), run.patch].join('\n');
}

async function importPool(input: FilesBenchInput): Promise<{ client: EpisodicClient; agent: string; episodes: string[]; tenantId: string }> {
  const tenant = await createTenant(input.database.db.prisma, 'memory-files');
  const { token } = await createApiKey(input.database.db.prisma, { tenantId: tenant.id, name: 'bench', scopes: ['admin', 'write', 'read'] });
  const client = createEpisodicClient({ url: input.url, apiKey: token, timeoutMs: 120_000 });
  const verdictFiles = [...new Set(input.pool.map((r) => join(dirname(r.path), '..', '..', 'results.csv')))].filter(existsSync);
  const report = await importRuns(
    client,
    input.pool.map((r) => r.path),
    { verdictFiles },
  );
  for (const table of ['episode_terms', 'episode_term_df', 'episode_term_totals', 'episodes']) await input.database.db.pool.query(`VACUUM ANALYZE ${table}`);
  const episodes = report.runs.flatMap((r) => (r.episodeId ? [r.episodeId] : []));
  const first = episodes[0] ? await client.episode(episodes[0]) : null;
  return { client, agent: first?.__typename === 'Episode' ? (first.agent ?? '') : '', episodes, tenantId: tenant.id };
}

async function askFiles(client: EpisodicClient, agent: string, run: DevRun): Promise<string[]> {
  const result: { __typename: string; files?: Array<{ path: string }> } = await client.request(FILES, { task: task(run), filter: { agent } });
  if (!result.files) throw new Error(`relevantFiles refused the task of ${run.id}: ${result.__typename}`);
  return result.files.map((f) => f.path);
}

type ServedPattern = { kind: string; changedFile: string | null; cue: string };

async function servedPatterns(client: EpisodicClient, run: DevRun): Promise<ServedPattern[]> {
  const result: { __typename: string; patterns?: Array<{ pattern: ServedPattern }> } = await client.request(PATTERNS, { task: task(run) });
  if (!result.patterns) throw new Error(`relevantPatterns refused the task of ${run.id}: ${result.__typename}`);
  return result.patterns.map((p) => p.pattern);
}

async function servedFiles(client: EpisodicClient, run: DevRun): Promise<string[]> {
  const patterns = await servedPatterns(client, run);
  return [...new Set(patterns.flatMap((p) => (p.changedFile ? [p.changedFile] : [])))];
}

/** The procedures a run ran successfully, normalised as the server learns them (its own scripts left out). */
function proceduresWorked(run: DevRun): Set<string> {
  const scratch = new Set(run.steps.flatMap((s) => filesWritten(s.command)));
  return new Set(run.steps.filter((s) => s.returnCode === 0).flatMap((s) => proceduresOf(s.command, scratch)));
}

/** Served procedures: how many, how many the task's own run ran successfully, and the share of tasks served one. */
async function servedProcedures(client: EpisodicClient, heldOut: readonly DevRun[]): Promise<{ served: number; right: number; coverage: number }> {
  let served = 0;
  let right = 0;
  let covered = 0;
  for (const run of heldOut) {
    const procedures = (await servedPatterns(client, run)).filter((p) => p.kind === 'PROCEDURE').map((p) => p.cue);
    const worked = proceduresWorked(run);
    served += procedures.length;
    right += procedures.filter((p) => worked.has(p)).length;
    covered += procedures.length > 0 ? 1 : 0;
  }
  return { served, right, coverage: heldOut.length ? covered / heldOut.length : 0 };
}

/**
 * Extraction runs in the learning queue after an import (or is skipped when the queue is full):
 * wait until the queue has taken every episode, then extract the skipped ones on demand, one at a
 * time (an on-demand extraction racing a queue job of the same scope can deadlock).
 */
async function finishLearning(database: BenchDatabase, client: EpisodicClient, tenantId: string): Promise<void> {
  const waiting = async () =>
    (
      await database.db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM episodes WHERE tenant_id = $1 AND learning_state IN ('pending', 'queued')", [
        tenantId,
      ])
    ).rows[0]?.n ?? 0;
  while ((await waiting()) > 0) await new Promise((resolve) => setTimeout(resolve, 500));
  const { rows } = await database.db.pool.query<{ id: string }>(
    "SELECT id FROM episodes WHERE tenant_id = $1 AND outcome IS NOT NULL AND learning_state <> 'done' ORDER BY id",
    [tenantId],
  );
  for (const { id } of rows) await client.request(EXTRACT, { id });
}

/**
 * Served file patterns against the prior: for each held-out task served a file pattern, whether one
 * of its files is a file the task changed, and whether as many of the repository's most often
 * changed pool files (ties by path) would have been: a pattern earns its place only above that.
 */
async function patternsAgainstPrior(client: EpisodicClient, input: FilesBenchInput): Promise<{ served: number; right: number; prior: number }> {
  const counts = new Map<string, Map<string, number>>();
  for (const run of input.pool) {
    const of = counts.get(run.repository) ?? new Map<string, number>();
    for (const f of run.files) of.set(f, (of.get(f) ?? 0) + 1);
    counts.set(run.repository, of);
  }
  const mostChanged = (repository: string, k: number) =>
    [...(counts.get(repository) ?? new Map<string, number>())]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, k)
      .map(([f]) => f);
  let served = 0;
  let right = 0;
  let prior = 0;
  for (const run of input.heldOut) {
    const files = await servedFiles(client, run);
    if (files.length === 0) continue;
    served += 1;
    if (files.some((f) => run.files.includes(f))) right += 1;
    if (mostChanged(run.repository, files.length).some((f) => run.files.includes(f))) prior += 1;
  }
  return { served, right, prior };
}

/** Imports the pool into a tenant of its own, asks for every held-out task; returns the report, ending with the two summary lines. */
export async function reportFiles(input: FilesBenchInput): Promise<string[]> {
  // Built before any request: its seconds of CPU would otherwise stall the server in this process
  // while a client holds a kept-alive connection (which the server then resets).
  const bm25 = new Bm25Baseline(input.pool.map((r) => ({ ...r, description: everything(r) })));
  const { client, agent, tenantId } = await importPool(input);
  await finishLearning(input.database, client, tenantId);
  // The tenant's ranker, fitted on the pool as the learning queue fits it after an import (and as
  // bench/memory.ts fits the main tenant's): asked before that fit, which starts 30 s after the
  // import's last batch, relevantFiles answered with the fixed formula's ranking.
  await trainRankingModel(input.database.db.pool, tenantId);
  const measured = input.heldOut.filter((r) => r.files.length > 0);
  const poolFiles = new Map(input.pool.map((r) => [r.id, r.files]));
  const known = new Set(input.pool.flatMap((r) => r.files));
  // Scratch: a file some pool run's patch created and no pool run's patch changed as an existing file.
  const created = new Set(input.pool.flatMap((r) => diffFiles(r.patch).flatMap((f) => (f.created ? [f.path] : []))));
  const existing = new Set(input.pool.flatMap((r) => diffFiles(r.patch).flatMap((f) => (f.created ? [] : [f.path]))));
  const repositoryFiles = (repository: string) =>
    new Set(input.pool.filter((r) => r.repository === repository).flatMap((r) => diffFiles(r.patch).map((f) => f.path)));
  let episodic = 0;
  let vote = 0;
  let ceiling = 0;
  let scratch = 0;
  let foreign = 0;
  for (const run of measured) {
    const answered = (await askFiles(client, agent, run)).slice(0, K);
    episodic += recallAt(answered, run.files);
    scratch += answered.filter((f) => created.has(f) && !existing.has(f)).length;
    const own = repositoryFiles(run.repository);
    foreign += answered.filter((f) => !own.has(f)).length;
    vote += recallAt(
      voteFiles(bm25.rank(run.description, run.repository), (id) => poolFiles.get(id) ?? []),
      run.files,
    );
    ceiling += run.files.filter((f) => known.has(f)).length / run.files.length;
  }
  const { served, right, prior } = await patternsAgainstPrior(client, input);
  const procedures = await servedProcedures(client, input.heldOut);
  const n = Math.max(1, measured.length);
  const { rows: kinds } = await input.database.db.pool.query<{ kind: string; n: number }>(
    "SELECT kind, count(*)::int AS n FROM patterns WHERE tenant_id = $1 AND status = 'active' GROUP BY kind ORDER BY kind",
    [tenantId],
  );
  return [
    `patterns active from the pool: ${kinds.map((k) => `${k.kind}=${k.n}`).join(' ') || 'none'}`,
    `files: ${measured.length} held-out tasks that changed a file; ceiling (share of their files some pool run changed) ${fmt(ceiling / n, 3)}; answers (top ${K}, task + context) that are files pool runs only ever created: ${scratch}, files no pool run of the task's repository changed: ${foreign}`,
    `patterns: served a file pattern to ${served} of ${input.heldOut.length} held-out tasks, right for ${right}; the repository's most often changed files in their place (as many) right for ${prior}`,
    `memory files Recall@5 episodic=${(episodic / n).toFixed(3)} bm25vote=${(vote / n).toFixed(3)} scratch=${scratch} foreign=${foreign}`,
    `memory patterns served=${served} right=${(served ? right / served : 0).toFixed(3)} prior=${(served ? prior / served : 0).toFixed(3)}`,
    `memory procedures served=${procedures.served} right=${(procedures.served ? procedures.right / procedures.served : 0).toFixed(3)} coverage=${procedures.coverage.toFixed(3)}`,
  ];
}

async function main(): Promise<void> {
  const { pool, heldOut } = splitByRepository(loadDevRuns());
  const database = await openBenchDatabase();
  const server = await startBenchServer(database.url);
  try {
    for (const line of await reportFiles({ database, url: server.url, pool, heldOut })) console.log(line);
  } finally {
    await server.stop();
    await database.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
