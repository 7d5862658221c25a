// A past run imported whole in one transaction: its start (deduplicated by its dedupe key), its
// steps and its completion, with the ledger events the three calls of an import (startEpisode,
// logSteps in requests of LOG_REQUEST_STEPS, completeEpisode) append, in their order and with their
// payloads. One transaction and one chain-head append instead of three: an import's cost is per
// round trip and per transaction, not per row (docs/BENCHMARKS.md, issue 31). The runs' pattern
// extraction runs in the same transaction, for the batch at once (as completeEpisode's
// extractPatterns: SYNC does for one), not through the queue: one learning lock and one refresh per
// scope per batch, no job to queue, fetch and complete per run.
import { must } from '../core/must.ts';
import type { WriteContext } from '../core/write-context.ts';
import type { Outcome } from '../episodes/outcome.ts';
import { type EpisodeRow, lockEpisode } from '../episodes/row.ts';
import { lockDedupeKeys, type StartInput, startEpisode } from '../episodes/store.ts';
import { extractPatternBatch, type KnownEpisode, pendingExtractions } from '../learning/extract.ts';
import { readStepFacts, storeExperiences } from '../learning/store.ts';
import { addIndexShares, indexOwnRows } from '../retrieval/term-index.ts';
import { applyStepBatch, type StepBatchOutcome, type StepBatchRequest, type StepItemResult } from '../steps/apply.ts';
import type { HashedStep } from '../steps/prepare.ts';
import { stopForBudget } from './budget-stop.ts';
import { type CompletionResult, completeAndLearn } from './complete.ts';
import type { BatchedEnding } from './finish.ts';

/** Steps per logSteps request of the client (its MAX_BATCH): one steps.logged event each. */
export const LOG_REQUEST_STEPS = 500;

export interface RunToImport {
  start: StartInput;
  /** The run's steps hashed for its episode, one list per logSteps request the client would send. */
  steps(episodeId: string): HashedStep[][];
  outcome: Outcome;
  endedAt: Date | null;
  blobCapBytes: number;
}

export interface ImportRunResult {
  episodeId: string;
  deduplicated: boolean;
  /** Null when the run had been imported and had ended before: nothing was logged. */
  logged: { items: StepItemResult[]; exhausted: string | null } | null;
  /** Null when nothing was logged, or when a budget stopped the episode during its steps. */
  completion: CompletionResult | null;
}

const budgetRefusal: StepItemResult = {
  status: 'rejected',
  reason: 'budget_exhausted',
  message: 'refused: the episode budget was exhausted by an earlier step',
};

/**
 * Imports runs in the caller's transaction: their starts, the new runs' steps as one step batch,
 * their completions in order (then the runs started before), indexes the terms of those that
 * completed together, then extracts the patterns of those that ended with candidates: the term
 * index's shared rows (frequencies, totals) are written once for the batch, where each ending would
 * take and write them in turn, and last, since they stay locked until commit (term-index.ts).
 */
export async function importRuns(ctx: WriteContext, runs: readonly RunToImport[]): Promise<ImportRunResult[]> {
  const batch: BatchedEnding = { indexWith: [], experiencesWith: [] };
  const dedupe = await lockDedupeKeys(
    ctx.client,
    ctx.tenantId,
    runs.flatMap((r) => (r.start.dedupeKey ? [r.start.dedupeKey] : [])),
  );
  const started: Array<{ episodeId: string; deduplicated: boolean }> = [];
  for (const run of runs) started.push(await startEpisode(ctx, run.start, dedupe));
  // The new runs' steps in one step batch (two statements for the batch, not two per run); a run
  // found started before (a repeat, or a run cut short) is looked at after them, as it would be
  // in a later transaction: a repeat within the batch then finds its first import ended.
  const fresh = runs.flatMap((run, i) => (must(started[i]).deduplicated ? [] : [{ run, i, episodeId: must(started[i]).episodeId }]));
  const logged = await logRuns(ctx, fresh);
  // Their endings' step facts in one read, not one per run (the steps are all written by now).
  if (fresh.length)
    batch.stepFacts = await readStepFacts(
      ctx.client,
      fresh.map((f) => f.episodeId),
    );
  const results: ImportRunResult[] = new Array(runs.length);
  for (const [k, { run, i, episodeId }] of fresh.entries()) results[i] = await endRun(ctx, run, episodeId, false, must(logged[k]), batch);
  // A run resumed below logs steps after that read: its ending reads its own.
  delete batch.stepFacts;
  for (const [i, run] of runs.entries()) if (!results[i]) results[i] = await resumeRun(ctx, run, must(started[i]).episodeId, batch);
  const known = new Map<string, KnownEpisode>();
  for (const { episodeId, completion } of results)
    if (completion?.facts && completion.observation) known.set(episodeId, { facts: completion.facts, observation: completion.observation });
  const pending = pendingExtractions(ctx.events);
  // The endings' experiences in one statement, before extraction re-scores those it learns from.
  // Extraction starts from the endings' facts (known) and stores every column the ending's store
  // would (reward, score, reflection, learning state), so the experiences of the runs it extracts
  // are stored once, by it; with an episode it would read from its row, every ending's is stored first.
  const extractsKnown = new Set(pending.every((id) => known.has(id)) ? pending : []);
  await storeExperiences(
    ctx.client,
    batch.experiencesWith.filter((e) => !extractsKnown.has(e.facts.id)),
  );
  // The runs' own index rows before the learning lock (extraction takes it until commit): the next
  // batch's extraction waits for this one's learning and shared index rows only.
  const shares = await indexOwnRows(ctx.client, ctx.tenantId, batch.indexWith);
  const reports = await extractPatternBatch(ctx, pending, 'sync', { missing: 'throw', known });
  // Those extraction found nothing to do for (no outcome to learn from, learned before) keep the ending's.
  const extracted = new Set(reports.map((r) => r.episodeId));
  await storeExperiences(
    ctx.client,
    batch.experiencesWith.filter((e) => extractsKnown.has(e.facts.id) && !extracted.has(e.facts.id)),
  );
  for (const report of reports) {
    const result = results.find((r) => r.episodeId === report.episodeId);
    if (result?.completion) result.completion.extraction = report;
  }
  await addIndexShares(ctx.client, ctx.tenantId, shares);
  return results;
}

interface RunSteps {
  requests: StepBatchRequest[];
  outcomes: StepBatchOutcome[];
}

/** The runs' steps applied as one step batch; each run's requests and their outcomes, in the runs' order. */
async function logRuns(ctx: WriteContext, runs: ReadonlyArray<{ run: RunToImport; episodeId: string }>): Promise<RunSteps[]> {
  const requestsOf = runs.map(({ run, episodeId }) => run.steps(episodeId).map((steps) => ({ episodeId, steps, blobCapBytes: run.blobCapBytes })));
  const all = requestsOf.flat();
  const outcomes = all.length ? await applyStepBatch(ctx.client, ctx.tenantId, all, ctx.now, ctx.events, stopForBudget) : [];
  let at = 0;
  return requestsOf.map((requests) => ({ requests, outcomes: outcomes.slice(at, (at += requests.length)) }));
}

/** A run whose episode was started before: ended (nothing to do), or still running (an import cut short: its steps are found by their side-effect keys, the rest logged). */
async function resumeRun(ctx: WriteContext, run: RunToImport, episodeId: string, batch: BatchedEnding): Promise<ImportRunResult> {
  if ((await lockEpisode(ctx.client, ctx.tenantId, episodeId)).status !== 'running') return { episodeId, deduplicated: true, logged: null, completion: null };
  const [steps] = await logRuns(ctx, [{ run, episodeId }]);
  return endRun(ctx, run, episodeId, true, must(steps), batch);
}

/** The run's step results, then its completion (unless a budget stopped it during its steps). */
async function endRun(
  ctx: WriteContext,
  run: RunToImport,
  episodeId: string,
  deduplicated: boolean,
  { requests, outcomes }: RunSteps,
  batch: BatchedEnding,
): Promise<ImportRunResult> {
  const items: StepItemResult[] = [];
  let exhausted: string | null = null;
  let locked: EpisodeRow | undefined;
  for (const [k, outcome] of outcomes.entries()) {
    // Requests after the one that exhausted the budget find the episode stopped; the client
    // would not have sent them: their steps are refused for the budget.
    if (exhausted) items.push(...(requests[k]?.steps ?? []).map(() => budgetRefusal));
    else if (!outcome.ok) throw outcome.error;
    else items.push(...outcome.items), (exhausted = outcome.exhausted), (locked = outcome.episode);
  }
  const logged = { items, exhausted };
  // A budget that ran out stopped the episode in the step batch: there is nothing left to complete.
  if (exhausted) return { episodeId, deduplicated, logged, completion: null };
  const completion = await completeAndLearn(ctx, episodeId, run.outcome, {
    extractPatterns: 'async',
    usedRetrievals: [],
    endedAt: run.endedAt,
    batch,
    // The step batch locked the row and left it as written: the ending needs no second lock.
    ...(locked ? { locked } : {}),
  });
  return { episodeId, deduplicated, logged, completion };
}
