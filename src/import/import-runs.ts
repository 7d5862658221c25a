// importRuns: reads trajectory files and journals each run as one episode through the public API
// (the typed client): start (deduplicated by the file's BLAKE3), steps (large output kept as blobs),
// completion with the harness verdict and the run's
// own end time. A file is parsed whole before anything is written, so a malformed file writes
// nothing; importing a file again finds its episode instead of adding one. The report warns about
// what looks like a mis-import (warnings.ts). A run is stored whole or not at all: a step that breaks
// a limit refuses its run (REFUSE_CALL), named by its file and line, so a run is never stored short of
// a step and a second import can never report such a run as imported. (A run of more steps than one
// call takes is started before its steps: refused part way, it stays RUNNING, never reported whole.)
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
// A timer that holds the process open: a resend's wait can be the CLI's only work (unref'd, node exited 13 in it, silent).
import { setTimeout as delay } from 'node:timers/promises';
import { createBLAKE3 } from 'hash-wasm';
import { logStepsBatched } from '../client/batch.ts';
import type { EpisodicClient } from '../client/client.ts';
import { EpisodicError, isErrorResult } from '../client/errors.ts';
import type {
  FinishEpisodeResult,
  ImportRunResult,
  LogStepsResult,
  OutcomeInput,
  StartEpisodeInput,
  StartEpisodeResult,
  StepInput,
  StepItemResult,
} from '../client/types.ts';
import { must } from '../core/must.ts';
import { IMPORT_DOCUMENTS } from './documents.ts';
import { outcomeOf, type RunSource, startInput, stepInput } from './episode.ts';
import { type FoundFile, findFiles } from './files.ts';
import { type Format, formatSuffixesText } from './formats.ts';
import { ImportInterruptedError } from './interrupted.ts';
import { PARSERS } from './parsers.ts';
import { type ImportedRun, ImportFileError } from './run.ts';
import { parseVerdicts, type Verdicts } from './verdicts.ts';
import { type ImportWarning, importWarnings, nothingFoundWarning, type ParsedRun } from './warnings.ts';

/**
 * Runs imported at once: a run's calls mostly wait on the server, whose import batches gather what
 * arrives while others commit (350 runs: 8 at once 12.5-12.7 s, 32 at once 9.4-9.5 s).
 */
const DEFAULT_IMPORT_CONCURRENCY = 32;

export interface ImportOptions {
  /** Force one format; by default each file's name decides (the suffixes of formats.ts). */
  format?: Format | null;
  /** Harness verdicts by instance id; results.csv / results.json found in a given folder are read too. */
  verdicts?: Verdicts;
  verdictFiles?: readonly string[];
  /** Runs imported at once (DEFAULT_IMPORT_CONCURRENCY when undefined). */
  concurrency?: number | undefined;
  /** Output past its inline limit: kept whole as a blob (default) or truncated to head + tail. */
  largeContent?: 'BLOB' | 'TRUNCATE';
  /** After each run, with how many are done of how many. */
  onProgress?: (run: RunReport, done: number, total: number) => void;
}

export interface StepRejection {
  /** Position of the step in the run (0-based). */
  index: number;
  /** The step's line in the file, where the format has lines (JSONL). */
  line: number | null;
  reason: string | null;
  message: string | null;
}

export interface RunReport {
  file: string;
  format: Format;
  status: 'imported' | 'resumed' | 'duplicate' | 'failed';
  instanceId: string | null;
  episodeId: string | null;
  steps: number;
  accepted: number;
  duplicates: number;
  rejected: StepRejection[];
  outcome: string | null;
  /** False when the run's format carried no times (they stay unknown); null when the file failed. */
  timesKnown: boolean | null;
  /** Why the run failed (file and line for a malformed file). */
  error: { message: string; file: string; line: number | null } | null;
}

export interface ImportReport {
  runs: RunReport[];
  imported: number;
  duplicates: number;
  failed: number;
  steps: number;
  acceptedSteps: number;
  rejectedSteps: number;
  seconds: number;
  /** Runs sharing one task text, runs without times: see warnings.ts. */
  warnings: ImportWarning[];
}

async function blake3Hex(data: Uint8Array): Promise<string> {
  const hasher = await createBLAKE3();
  return hasher.init().update(data).digest('hex');
}

export async function readVerdictFiles(files: readonly string[]): Promise<Map<string, boolean>> {
  const all = new Map<string, boolean>();
  for (const file of files) for (const [id, resolved] of parseVerdicts(file, await readFile(file, 'utf8'))) all.set(id, resolved);
  return all;
}

/** Imports every run in `paths` (files or folders); one report per file, failures included. */
export async function importRuns(client: EpisodicClient, paths: readonly string[], options: ImportOptions = {}): Promise<ImportReport> {
  const started = performance.now();
  const found = await findFiles(paths, options.format ?? null);
  const verdicts = new Map([...(await readVerdictFiles([...found.verdictFiles, ...(options.verdictFiles ?? [])])), ...(options.verdicts ?? new Map())]);
  const reports: RunReport[] = new Array(found.runs.length);
  const parsed: Array<ParsedRun | null> = new Array(found.runs.length).fill(null);
  const waiting = found.runs.map((file, position) => ({ file, position }));
  let done = 0;
  // The server unreachable (after the resends): every further run would fail the same way, so the import stops.
  let lost: EpisodicError | null = null;
  const worker = async () => {
    for (let next = waiting.shift(); next && !lost; next = waiting.shift()) {
      const { report, run } = await importOne(client, next.file, verdicts, options).catch((err: unknown) => {
        if (!isCutConnection(err)) throw err;
        lost ??= err;
        return { report: null, run: null };
      });
      if (!report) continue;
      reports[next.position] = report;
      parsed[next.position] = run && { run: run.instanceId, format: run.format, task: run.taskDescription, timesKnown: run.startedAt !== null };
      done += 1;
      options.onProgress?.(report, done, found.runs.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? DEFAULT_IMPORT_CONCURRENCY) }, worker));
  if (lost) throw new ImportInterruptedError(lost, done, found.runs.length);
  const count = (status: RunReport['status']) => reports.filter((r) => r.status === status).length;
  return {
    runs: reports,
    imported: count('imported') + count('resumed'),
    duplicates: count('duplicate'),
    failed: count('failed'),
    steps: reports.reduce((n, r) => n + r.steps, 0),
    acceptedSteps: reports.reduce((n, r) => n + r.accepted, 0),
    rejectedSteps: reports.reduce((n, r) => n + r.rejected.length, 0),
    seconds: (performance.now() - started) / 1000,
    warnings: [...found.empty.map((e) => nothingFoundWarning(e, formatSuffixesText())), ...importWarnings(parsed.filter((p): p is ParsedRun => p !== null))],
  };
}

function failed(base: RunReport, err: unknown): RunReport {
  if (err instanceof ImportFileError) return { ...base, status: 'failed', error: { message: err.message, file: err.file, line: err.line } };
  const message = err instanceof Error ? err.message : String(err);
  return { ...base, status: 'failed', error: { message: `${base.file}: ${message}`, file: base.file, line: null } };
}

/** Imports one file; a failure is the report's error, but for the server out of reach (thrown: EpisodicError 'transport'). */
export async function importFile(client: EpisodicClient, found: FoundFile, verdicts: Verdicts, options: ImportOptions): Promise<RunReport> {
  return (await importOne(client, found, verdicts, options)).report;
}

/** importFile, with the parsed run (null when the file could not be parsed) for the warnings. */
async function importOne(
  client: EpisodicClient,
  found: FoundFile,
  verdicts: Verdicts,
  options: ImportOptions,
): Promise<{ report: RunReport; run: ImportedRun | null }> {
  const base: RunReport = {
    file: found.path,
    format: found.format,
    status: 'failed',
    instanceId: null,
    episodeId: null,
    steps: 0,
    accepted: 0,
    duplicates: 0,
    rejected: [],
    outcome: null,
    timesKnown: null,
    error: null,
  };
  let run: ImportedRun | null = null;
  try {
    const bytes = await readFile(found.path);
    run = PARSERS[found.format](found.path, new TextDecoder().decode(bytes));
    // The file's name, never the client's path: it is written into the ledger, which keeps it forever.
    const source: RunSource = { format: found.format, sourceHash: await blake3Hex(bytes), name: basename(found.path) };
    const report = await journal(client, run, source, verdicts.get(run.instanceId) ?? run.resolved ?? undefined, options, {
      ...base,
      instanceId: run.instanceId,
      steps: run.steps.length,
      timesKnown: run.startedAt !== null,
    });
    return { report, run };
  } catch (err) {
    if (isCutConnection(err)) throw err;
    return { report: failed(run ? { ...base, instanceId: run.instanceId, timesKnown: run.startedAt !== null } : base, err), run };
  }
}

function refused(result: { __typename: string; message?: string | null }): never {
  throw new Error(`${result.__typename}: ${result.message ?? ''}`);
}

/** A run the API refused: its file and, when a step broke a limit, that step's line (steps.N names the Nth of the call). */
function refusedRun(run: ImportedRun | null, file: string, result: { __typename: string; message?: string | null }): never {
  const index = /\bsteps\.(\d+)\./.exec(result.message ?? '')?.[1];
  const line = index === undefined || !run ? null : (run.steps[Number(index)]?.line ?? null);
  throw new ImportFileError(file, line, `refused, nothing imported: ${result.__typename}: ${result.message ?? ''}`);
}

async function journal(
  client: EpisodicClient,
  run: ImportedRun,
  source: RunSource,
  resolved: boolean | undefined,
  options: ImportOptions,
  base: RunReport,
): Promise<RunReport> {
  const stepOptions = { largeContent: options.largeContent ?? 'BLOB', onInvalidStep: 'REFUSE_CALL' } as const;
  const outcome = outcomeOf(run, resolved);
  // An end without a start measures nothing: a run without a start time keeps its times unknown.
  const endedAt = run.startedAt && run.endedAt ? { endedAt: run.endedAt.toISOString() } : {};
  const call = { start: startInput(run, source), steps: run.steps.map(stepInput), stepOptions, outcome, endedAt };
  if (call.steps.length > STEPS_PER_CALL) return journalInCalls(client, run, call, base);
  let sent = 0;
  const imported = await resent(() => {
    sent += 1;
    const variables = { input: call.start, steps: call.steps, options: stepOptions, outcome, ...endedAt };
    return client.request<ImportRunResult>(IMPORT_DOCUMENTS.importRun, variables);
  });
  if (isErrorResult(imported)) refusedRun(run, base.file, imported);
  const report = { ...base, episodeId: imported.episode.id };
  // Found ended on the first send: imported before. On a resend: the first send's lost answer committed it.
  if (imported.deduplicated && !imported.steps)
    return sent > 1
      ? { ...report, status: 'resumed', accepted: run.steps.length, outcome: outcome.kind }
      : { ...report, status: 'duplicate', duplicates: run.steps.length, outcome: imported.episode.outcome?.kind ?? null };
  const logged = must(imported.steps);
  if (!imported.completion) refused({ __typename: 'BudgetExhausted', message: `the episode stopped during its steps (${logged.budgetExhausted ?? 'budget'})` });
  return {
    ...report,
    status: imported.deduplicated ? 'resumed' : 'imported',
    accepted: logged.accepted,
    duplicates: logged.duplicates,
    rejected: logged.results.filter((r) => r.status === 'REJECTED').map((r) => rejection(run, r)),
    outcome: outcome.kind,
  };
}

/** What an import sends for one run. */
interface RunCall {
  start: StartEpisodeInput;
  steps: StepInput[];
  stepOptions: { largeContent: 'BLOB' | 'TRUNCATE'; onInvalidStep: 'REFUSE_CALL' };
  outcome: OutcomeInput;
  endedAt: { endedAt?: string };
}

/** A run of more steps than one call takes: started, its steps logged in batches, completed (three calls or more). */
async function journalInCalls(client: EpisodicClient, run: ImportedRun, call: RunCall, base: RunReport): Promise<RunReport> {
  const start = () => resent(() => client.request<StartEpisodeResult>(IMPORT_DOCUMENTS.startEpisode, { input: call.start }));
  const started = await start();
  if (isErrorResult(started)) refused(started);
  const episode = started.episode;
  const report = { ...base, episodeId: episode.id };
  if (started.deduplicated && episode.status !== 'RUNNING')
    return { ...report, status: 'duplicate', duplicates: run.steps.length, outcome: episode.outcome?.kind ?? null };
  const logged = await logStepsBatched(
    (steps) => resent(() => client.request<LogStepsResult>(IMPORT_DOCUMENTS.logSteps, { episodeId: episode.id, steps, options: call.stepOptions })),
    call.steps,
    call.stepOptions,
  );
  // The batches' step numbers are the batch's own: the line is not known here.
  if (isErrorResult(logged)) refusedRun(null, base.file, logged);
  if (logged.stoppedBy) refused(logged.stoppedBy);
  const complete = () =>
    client.request<FinishEpisodeResult>(IMPORT_DOCUMENTS.completeEpisode, { episodeId: episode.id, outcome: call.outcome, ...call.endedAt });
  const finished = await resent(complete, 'throw').catch(async (err: unknown) => {
    if (!isCutConnection(err)) throw err;
    // The completion may have committed with its answer lost: the start, deduplicated, says whether it ended.
    const now = await start();
    return !isErrorResult(now) && now.episode.status !== 'RUNNING' ? null : resent(complete);
  });
  if (finished && isErrorResult(finished)) refused(finished);
  return {
    ...report,
    status: started.deduplicated ? 'resumed' : 'imported',
    accepted: logged.accepted,
    duplicates: logged.duplicates,
    rejected: logged.results.filter((r) => r.status === 'REJECTED').map((r) => rejection(run, r)),
    outcome: call.outcome.kind,
  };
}

/** Steps one call takes (the API's limit per call): a longer run is imported in several calls. */
const STEPS_PER_CALL = 1000;

/** Sends a call again when the connection was cut before its answer: each call of an import is idempotent. */
const RESENDS = 2;
const RESEND_DELAY_MS = 250;
/** Sends a call again when the server said to retry shortly (its key's or its own requests at their limit, or the rate limit). */
const BUSY_RESENDS = 20;
const BUSY_CODES = new Set(['OVERLOADED', 'RATE_LIMITED']);

function isCutConnection(err: unknown): err is EpisodicError {
  return err instanceof EpisodicError && err.kind === 'transport';
}

/** How long to wait before sending a call the server refused for now (its `attempt`th refusal); null: not again. */
function busyDelayMs(err: unknown, attempt: number): number | null {
  if (!(err instanceof EpisodicError) || !BUSY_CODES.has(err.code ?? '') || attempt > BUSY_RESENDS) return null;
  const retryAfterMs = err.errors[0]?.extensions?.retryAfterMs;
  return typeof retryAfterMs === 'number' ? retryAfterMs : 1000;
}

/** How long to wait before the call's next try after its `attempt`th failure; null: not again. */
function resendDelayMs(err: unknown, attempt: number, cut: 'resend' | 'throw'): number | null {
  if (!isCutConnection(err)) return busyDelayMs(err, attempt);
  return cut === 'resend' && attempt <= RESENDS ? RESEND_DELAY_MS * attempt : null;
}

/**
 * The call, sent again when the server refused it for now (an import keeps
 * DEFAULT_IMPORT_CONCURRENCY calls in flight, more than a server with a lower MAX_REQUESTS_PER_KEY
 * takes) and, unless `cut` is 'throw', when the connection failed without an answer (as a
 * keep-alive connection the server closed while the client reused it does under load). Safe
 * because a start is deduplicated by the file's hash and a step by its position (sideEffectKey).
 */
async function resent<T>(call: () => Promise<T>, cut: 'resend' | 'throw' = 'resend'): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const wait = resendDelayMs(err, attempt, cut);
      if (wait === null) throw err;
      await delay(wait);
    }
  }
}

function rejection(run: ImportedRun, r: StepItemResult): StepRejection {
  return { index: r.index, line: run.steps[r.index]?.line ?? null, reason: r.reason, message: r.message };
}
