// The pattern half of the memory benchmark: patterns learnt from the pool (imported through the
// product's import path), measured on held-out runs that were never imported.
//
// - file patterns: FileHit@5 of the files the served FILE_CHANGE patterns predict, against the
//   repository's five most changed files in the pool (the prior); and held-out lift: how often a
//   held-out run the pattern applies to (its task mentions the cue) changes the file, against
//   held-out runs of the same repository it does not apply to;
// - outcome patterns (task, tool, error): the success rate of held-out runs a pattern applies to
//   against comparable held-out runs (same repository) it does not apply to, signed by the lift the
//   pool measured (a warning that holds counts as positive);
// - the patterns served for three held-out tasks, quoted.
//
// reportPatterns is called by `npm run bench:memory` (bench/memory.ts) before its final lines, and
// runs standalone: `npm run bench:patterns [-- <archive.tar.gz or folder>]` imports the pool of the
// shared split (bench/memory-split.ts) through importRuns into an empty database and reports.
// Default archive: ../shared/data/swebench-verified-mini-swe-agent.tar.gz (relative to the repository).
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createEpisodicClient, type EpisodicClient } from '../src/client/index.ts';
import { type FoundFile, findFiles } from '../src/import/files.ts';
import { type ImportedRun, importRuns, parseGenericJsonl, parseMiniSweAgent, parseSweAgent, readVerdictFiles } from '../src/import/index.ts';
import { changedFiles } from '../src/import/run.ts';
import { TASK_TERM_RULES, taskTerms } from '../src/learning/task-terms.ts';
import { splitByRepository } from './memory-split.ts';
import { openBenchDatabase, startBenchServer } from './support.ts';

/** One run as the benchmark sees it: pool runs carry the episode they were imported as. */
export interface PatternBenchRun {
  /** e.g. django__django-11099 */
  id: string;
  /** The context.domain it was imported with, e.g. django/django. */
  repository: string;
  language: string | null;
  taskDescription: string;
  /** The harness verdict. */
  resolved: boolean;
  /** Files the final patch changes. */
  changedFiles: string[];
  /** Tools of the run's successful steps and error classes of its failed steps, as imported. */
  tools: string[];
  errorClasses: string[];
  episodeId?: string | null;
}

/** An imported run (src/import) as the benchmark sees it; resolved: the harness verdict. */
export function patternBenchRun(run: ImportedRun, resolved: boolean, episodeId: string | null = null): PatternBenchRun {
  const names = (values: Array<string | null | undefined>) => [...new Set(values.flatMap((v) => (v ? [v.trim().toLowerCase()] : [])))];
  return {
    id: run.instanceId,
    repository: run.domain ?? 'unknown',
    language: run.language,
    taskDescription: run.taskDescription,
    resolved,
    changedFiles: changedFiles(run.patch),
    tools: names(run.steps.filter((s) => s.result.kind === 'SUCCESS').map((s) => s.tool)),
    errorClasses: names(run.steps.filter((s) => s.result.kind !== 'SUCCESS').map((s) => s.result.errorClass)),
    episodeId,
  };
}

export interface PatternBenchInput {
  client: EpisodicClient;
  pool: readonly PatternBenchRun[];
  heldOut: readonly PatternBenchRun[];
}

const IGNORED_FILES = new Set(['setup.py', 'setup.cfg', 'tox.ini', 'pyproject.toml']);
const TOP = 5;
const QUOTED_TASKS = 3;

interface ServedPattern {
  pattern: { id: string; kind: string; scope: string; cue: string; changedFile: string | null; lift: number | null; summary: string };
  score: { total: number; relevance: number };
}

interface ActivePattern {
  kind: string;
  scope: string;
  cue: string;
  changedFile: string | null;
  lift: number | null;
}

const EXTRACT = `mutation($id: ID!) { result: extractEpisodePatterns(episodeId: $id) { __typename } }`;
const ACTIVE = `query($after: String) { result: patterns(first: 100, after: $after, filter: { status: [ACTIVE] }) {
  edges { node { kind scope cue changedFile lift } } pageInfo { hasNextPage endCursor } } }`;
const RELEVANT = `query($task: RetrievalTaskInput!) { result: relevantPatterns(task: $task, limit: 50) {
  __typename ... on RelevantPatterns { patterns { pattern { id kind scope cue changedFile lift summary } score { total relevance } } } } }`;

/** Learns from the pool (extraction finished for every pool episode), measures on held-out runs; returns the lines to print. */
export async function reportPatterns({ client, pool, heldOut }: PatternBenchInput): Promise<string[]> {
  await finishExtraction(client, pool);
  const active = await activePatterns(client);
  const served = new Map<string, ServedPattern[]>();
  for (const run of heldOut) served.set(run.id, await relevantPatterns(client, run));
  const lines = [`patterns: ${active.length} active from ${pool.length} pool runs; held-out runs ${heldOut.length}`];
  const byKind = countBy(active.map((p) => p.kind));
  lines.push(
    `patterns by kind: ${[...byKind.entries()]
      .sort()
      .map(([k, n]) => `${k}=${n}`)
      .join(' ')}`,
  );
  const servedCounts = heldOut.map((r) => served.get(r.id)?.length ?? 0);
  lines.push(
    `patterns served per held-out task (task + context): mean ${fmt(mean(servedCounts), 1)}, tasks with none ${servedCounts.filter((n) => n === 0).length}`,
  );
  lines.push(...fileLines(pool, heldOut, served, active));
  lines.push(...outcomeLines(heldOut, active));
  lines.push(...quotedTasks(heldOut, served));
  return lines;
}

async function finishExtraction(client: EpisodicClient, pool: readonly PatternBenchRun[]): Promise<void> {
  // Extraction is asynchronous after an import; running it on demand waits for (or does) each one.
  const ids = pool.flatMap((r) => (r.episodeId ? [r.episodeId] : []));
  for (let i = 0; i < ids.length; i += 4) await Promise.all(ids.slice(i, i + 4).map((id) => client.request(EXTRACT, { id })));
}

async function activePatterns(client: EpisodicClient): Promise<ActivePattern[]> {
  const out: ActivePattern[] = [];
  let after: string | null = null;
  for (;;) {
    const page: { edges: Array<{ node: ActivePattern }>; pageInfo: { hasNextPage: boolean; endCursor: string } } = await client.request(ACTIVE, { after });
    out.push(...page.edges.map((e) => e.node));
    if (!page.pageInfo.hasNextPage) return out;
    after = page.pageInfo.endCursor;
  }
}

async function relevantPatterns(client: EpisodicClient, run: PatternBenchRun): Promise<ServedPattern[]> {
  const task = { description: run.taskDescription, context: { domain: run.repository, ...(run.language ? { language: run.language } : {}) } };
  const result: { __typename: string; patterns?: ServedPattern[] } = await client.request(RELEVANT, { task });
  if (!result.patterns) throw new Error(`relevantPatterns refused the task of ${run.id}: ${result.__typename}`);
  return result.patterns;
}

// ---- files ----

function fileLines(
  pool: readonly PatternBenchRun[],
  heldOut: readonly PatternBenchRun[],
  served: ReadonlyMap<string, ServedPattern[]>,
  active: readonly ActivePattern[],
): string[] {
  const prior = popularFiles(pool);
  let patternHits = 0;
  let priorHits = 0;
  let predicted = 0;
  for (const run of heldOut) {
    const changed = relevantFiles(run);
    const files = predictedFiles(served.get(run.id) ?? []);
    if (files.length) predicted += 1;
    if (files.some((f) => changed.has(f))) patternHits += 1;
    if ((prior.get(run.repository) ?? []).some((f) => changed.has(f))) priorHits += 1;
  }
  const lift = heldOutFileLift(
    heldOut,
    active.filter((p) => p.kind === 'FILE_CHANGE'),
  );
  return [
    `file patterns FileHit@${TOP}: patterns=${fmt(patternHits / heldOut.length, 3)} prior(top ${TOP} files of the repository)=${fmt(priorHits / heldOut.length, 3)} (tasks with a prediction ${predicted}/${heldOut.length})`,
    `file patterns held-out: changed the file in ${fmt(lift.withRate, 3)} of ${lift.withRuns} (pattern, run) pairs it applies to vs ${fmt(lift.withoutRate, 3)} of ${lift.withoutRuns} it does not; lift ${signed(lift.withRate - lift.withoutRate)}`,
  ];
}

/** The files served file patterns predict, by the summed score of the patterns predicting each (several cues for one file add up). */
function predictedFiles(served: readonly ServedPattern[]): string[] {
  const score = new Map<string, number>();
  for (const s of served)
    if (s.pattern.kind === 'FILE_CHANGE' && s.pattern.changedFile) score.set(s.pattern.changedFile, (score.get(s.pattern.changedFile) ?? 0) + s.score.total);
  return [...score]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, TOP)
    .map(([file]) => file);
}

function heldOutFileLift(heldOut: readonly PatternBenchRun[], patterns: readonly ActivePattern[]) {
  let withRuns = 0,
    withHits = 0,
    withoutRuns = 0,
    withoutHits = 0;
  const terms = new Map(heldOut.map((r) => [r.id, new Set(taskTerms(r.taskDescription, TASK_TERM_RULES.perQuery))]));
  for (const p of patterns) {
    for (const run of heldOut) {
      if (run.repository.toLowerCase() !== p.scope || !p.changedFile) continue;
      const hit = run.changedFiles.includes(p.changedFile) ? 1 : 0;
      if (terms.get(run.id)?.has(p.cue)) [withRuns, withHits] = [withRuns + 1, withHits + hit];
      else [withoutRuns, withoutHits] = [withoutRuns + 1, withoutHits + hit];
    }
  }
  return { withRuns, withoutRuns, withRate: withRuns ? withHits / withRuns : 0, withoutRate: withoutRuns ? withoutHits / withoutRuns : 0 };
}

function popularFiles(pool: readonly PatternBenchRun[]): Map<string, string[]> {
  const counts = new Map<string, Map<string, number>>();
  for (const run of pool) {
    const repo = counts.get(run.repository) ?? new Map<string, number>();
    for (const f of relevantFiles(run)) repo.set(f, (repo.get(f) ?? 0) + 1);
    counts.set(run.repository, repo);
  }
  return new Map(
    [...counts].map(([repo, files]) => [
      repo,
      [...files]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, TOP)
        .map(([f]) => f),
    ]),
  );
}

function relevantFiles(run: PatternBenchRun): Set<string> {
  return new Set(run.changedFiles.filter((f) => !IGNORED_FILES.has(f.split('/').at(-1) ?? f)));
}

// ---- outcomes ----

function outcomeLines(heldOut: readonly PatternBenchRun[], active: readonly ActivePattern[]): string[] {
  const terms = new Map(heldOut.map((r) => [r.id, new Set(taskTerms(r.taskDescription, TASK_TERM_RULES.perQuery))]));
  const applies = (p: ActivePattern, r: PatternBenchRun): boolean =>
    p.kind === 'TASK_OUTCOME' ? Boolean(terms.get(r.id)?.has(p.cue)) : p.kind === 'TOOL_OUTCOME' ? r.tools.includes(p.cue) : r.errorClasses.includes(p.cue);
  const lines: string[] = [];
  for (const kind of ['TASK_OUTCOME', 'TOOL_OUTCOME', 'ERROR_OUTCOME']) {
    let weight = 0,
      signedSum = 0,
      agree = 0,
      measured = 0;
    for (const p of active.filter((x) => x.kind === kind && x.lift !== null)) {
      const comparable = heldOut.filter((r) => r.repository.toLowerCase() === p.scope);
      const inside = comparable.filter((r) => applies(p, r));
      const outside = comparable.filter((r) => !applies(p, r));
      if (!inside.length || !outside.length) continue;
      const diff = successRate(inside) - successRate(outside);
      const sign = Math.sign(p.lift ?? 0);
      measured += 1;
      weight += inside.length;
      signedSum += inside.length * sign * diff;
      if (sign * diff > 0) agree += 1;
    }
    const count = active.filter((x) => x.kind === kind).length;
    lines.push(
      `${kind.toLowerCase()} patterns held-out: ${measured} of ${count} apply to held-out runs; success-rate difference in the pool's direction ${measured ? signed(signedSum / weight) : 'n/a'} (weighted by runs), same direction ${agree}/${measured}`,
    );
  }
  return lines;
}

function successRate(runs: readonly PatternBenchRun[]): number {
  return runs.filter((r) => r.resolved).length / runs.length;
}

// ---- quoted tasks ----

function quotedTasks(heldOut: readonly PatternBenchRun[], served: ReadonlyMap<string, ServedPattern[]>): string[] {
  // The first held-out task (by id) of each repository, repositories by name, that gets a pattern.
  const chosen: PatternBenchRun[] = [];
  for (const repository of [...new Set(heldOut.map((r) => r.repository))].sort()) {
    const run = [...heldOut].filter((r) => r.repository === repository && (served.get(r.id)?.length ?? 0) > 0).sort((a, b) => (a.id < b.id ? -1 : 1))[0];
    if (run && chosen.length < QUOTED_TASKS) chosen.push(run);
  }
  return chosen.flatMap((run) => [
    `patterns served for held-out ${run.id} (${run.resolved ? 'resolved' : 'not resolved'}; changed ${run.changedFiles.join(', ') || 'nothing'}):`,
    ...(served.get(run.id) ?? []).slice(0, TOP).map((s) => `  ${fmt(s.score.total, 2)} ${s.pattern.summary}`),
  ]);
}

// ---- helpers ----

function countBy(items: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return counts;
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const fmt = (x: number, digits: number) => x.toFixed(digits);
const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(3)}`;

// ---- standalone ----

const PARSERS = { 'mini-swe-agent': parseMiniSweAgent, 'swe-agent': parseSweAgent, jsonl: parseGenericJsonl } as const;

async function runsIn(folder: string): Promise<Array<{ file: FoundFile; run: ImportedRun; resolved: boolean }>> {
  const found = await findFiles([folder], null);
  const verdicts = await readVerdictFiles(found.verdictFiles);
  const out = [];
  for (const file of found.runs) {
    const run = PARSERS[file.format](file.path, await readFile(file.path, 'utf8'));
    out.push({ file, run, resolved: verdicts.get(run.instanceId) ?? run.resolved ?? false });
  }
  return out;
}

async function main(): Promise<void> {
  const repo = resolve(import.meta.dirname, '..');
  const source = resolve(repo, process.argv.slice(2).find((a) => !a.startsWith('--')) ?? '../shared/data/swebench-verified-mini-swe-agent.tar.gz');
  if (!existsSync(source)) throw new Error(`no development set at ${source}: pass the archive or folder as the first argument`);
  const unpacked = statSync(source).isDirectory() ? null : await mkdtemp(join(tmpdir(), 'episodic-patterns-bench-'));
  if (unpacked) execFileSync('tar', ['-xzf', source, '-C', unpacked]);
  const database = await openBenchDatabase();
  // No learning workers' queue: every import leaves its extraction skipped, so the run below times
  // extraction alone (extractEpisodePatterns through the API, the same function a job runs).
  const server = await startBenchServer(database.url, { LEARNING_QUEUE_MAX_DEPTH: '0' });
  try {
    const runs = (await runsIn(unpacked ?? source)).map((r) => ({ ...r, id: r.run.instanceId, repository: r.run.domain ?? 'unknown' }));
    const { pool, heldOut } = splitByRepository(runs);
    const client = createEpisodicClient({ url: server.url, apiKey: server.token });
    const started = performance.now();
    const report = await importRuns(
      client,
      pool.map((r) => r.file.path),
      { verdicts: new Map(pool.map((r) => [r.id, r.resolved])) },
    );
    const episodes = new Map(report.runs.map((r) => [r.file, r.episodeId]));
    const poolRuns = pool.map((r) => patternBenchRun(r.run, r.resolved, episodes.get(r.file.path) ?? null));
    const imported = performance.now();
    await finishExtraction(client, poolRuns);
    const seconds = (performance.now() - imported) / 1000;
    const lines = await reportPatterns({ client, pool: poolRuns, heldOut: heldOut.map((r) => patternBenchRun(r.run, r.resolved)) });
    console.log(`imported ${report.imported} pool runs (${report.failed} failed) in ${((imported - started) / 1000).toFixed(1)} s`);
    console.log(`pattern extraction through the API (extractEpisodePatterns, 4 at a time): ${(poolRuns.length / seconds).toFixed(1)} episodes/s`);
    console.log(lines.join('\n'));
  } finally {
    await server.stop();
    await database.close();
    if (unpacked) await rm(unpacked, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
