// Applies a batch of logSteps requests (possibly from many callers) in one transaction:
// contiguous numbering under the episode row lock, side-effect-key deduplication, the step limit,
// enforced budgets, one multi-row insert, and one ledger event per request.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { IllegalTransitionError, NotFoundError } from '../core/errors.ts';
import { must } from '../core/must.ts';
import type { NewLedgerEvent } from '../core/write-context.ts';
import { exhaustedResource, statusAfterBudgetStop } from '../episodes/budget.ts';
import { EPISODE_LIMITS } from '../episodes/limits.ts';
import { beginAndLockEpisodes, type EpisodeRow, lockEpisodes } from '../episodes/row.ts';
import { checkTransition } from '../episodes/status.ts';
import type { LeadingWrite } from '../ledger/store/store.ts';
import type { BudgetResource } from '../stops/resources.ts';
import type { BlobToStore } from './large-content.ts';
import type { HashedStep } from './prepare.ts';
import { blobStateForUpdate, type EpisodeUsage, findKeyedSteps, insertBlobs, runStepsWrite, type StepRowToInsert, stepsWrite } from './store.ts';

export interface StepBatchRequest {
  episodeId: string;
  steps: HashedStep[];
  /** The tenant's blobs may hold at most this many bytes (BLOB_TOTAL_CAP_BYTES). */
  blobCapBytes: number;
  /** appendLateTelemetry: steps of a traced run that ended after its episode completed (unset: logSteps, a live episode's). */
  action?: StepAction;
}

export type StepAction = 'logSteps' | 'appendLateTelemetry';

export type RejectReason = 'budget_exhausted' | 'step_limit' | 'episode_size_limit' | 'blob_cap' | 'time_order';

export type StepItemResult =
  | { status: 'accepted'; stepId: string; stepNumber: number }
  | { status: 'duplicate'; stepId: string; stepNumber: number }
  | { status: 'rejected'; reason: RejectReason | 'invalid'; message: string };

export type StepBatchOutcome =
  | {
      ok: true;
      episodeId: string;
      items: StepItemResult[];
      exhausted: BudgetResource | null;
      /** The episode's row, locked in the caller's transaction, with the usage this batch writes (unset by the benchmarks' stand-ins). */
      episode?: EpisodeRow;
    }
  | { ok: false; error: NotFoundError | IllegalTransitionError };

/** An accepted step's row, with the id it is inserted under (made here: a later duplicate of its key answers it at once). */
interface PendingRow extends StepRowToInsert {
  status: 'pending';
  id: string;
}

interface Planned {
  request: StepBatchRequest;
  ep: EpisodeRow;
  items: Array<StepItemResult | PendingRow>;
  exhausted: BudgetResource | null;
  addedCost: number;
  /** Blobs of the accepted steps. */
  blobs: BlobToStore[];
}

const REJECT_MESSAGES: Record<RejectReason, string> = {
  budget_exhausted: 'refused: the episode budget was exhausted by an earlier step',
  step_limit: `refused: an episode holds at most ${EPISODE_LIMITS.maxSteps} steps`,
  episode_size_limit: `refused: an episode holds at most ${EPISODE_LIMITS.episodeBytes} bytes`,
  blob_cap: 'refused: the blobs of this tenant would pass BLOB_TOTAL_CAP_BYTES',
  time_order: 'refused: the step is dated before its episode started',
};

const rejected = (reason: RejectReason): StepItemResult => ({ status: 'rejected', reason, message: REJECT_MESSAGES[reason] });

function keyOf(episodeId: string, key: string) {
  return `${episodeId}\u0000${key}`;
}

/** The tenant's blob bytes: stored ones, plus those this batch adds (each hash counted once). */
export interface BlobLedger {
  bytes: number;
  present: Set<string>;
}

/** Bytes of the step's blobs the tenant does not hold yet. */
function newBlobBytes(step: HashedStep, blobs: BlobLedger): number {
  let bytes = 0;
  for (const b of step.blobs) if (!blobs.present.has(b.hash)) bytes += b.sizeBytes;
  return bytes;
}

const stepTime = (s: HashedStep) => s.endedAt ?? s.startedAt;

/** Decides every item of one request against the (locked) episode, mutating the row's usage. */
function planRequest(
  tenantId: string,
  request: StepBatchRequest,
  ep: EpisodeRow,
  keyed: Map<string, { id: string; stepNumber: number }>,
  now: Date,
  blobs: BlobLedger,
): Planned {
  const planned: Planned = { request, ep, items: [], exhausted: null, addedCost: 0, blobs: [] };
  // An imported run's wall time is where its own steps' times have got to, not the import's clock.
  const startedAt = ep.startedAt.getTime();
  let clock = ep.historical ? startedAt : now.getTime();
  // One object, brought up to date before each check (not one per step).
  const usage = { tokens: ep.usedTokens, steps: ep.stepCount, toolCalls: ep.usedToolCalls, wallMs: clock - startedAt };
  // A budget already used up on arrival (wall time that ran out between calls, or steps taken
  // by the approval journal): nothing in this batch crossed the budget, so nothing is admitted.
  planned.exhausted = exhaustedResource(ep.budget, usage);
  for (const step of request.steps) {
    const key = step.sideEffectKey ? keyOf(ep.id, step.sideEffectKey) : null;
    const seen = key ? keyed.get(key) : undefined;
    if (seen) {
      // A stored step's key, or the same key earlier in this batch: the step that has it.
      planned.items.push({ status: 'duplicate', stepId: seen.id, stepNumber: seen.stepNumber });
      continue;
    }
    const at = stepTime(step);
    const addedBlobBytes = step.blobs.length ? newBlobBytes(step, blobs) : 0;
    if (planned.exhausted) planned.items.push(rejected('budget_exhausted'));
    else if (ep.stepCount >= EPISODE_LIMITS.maxSteps) planned.items.push(rejected('step_limit'));
    else if (ep.sizeBytes + step.sizeBytes > EPISODE_LIMITS.episodeBytes) planned.items.push(rejected('episode_size_limit'));
    else if (addedBlobBytes && blobs.bytes + addedBlobBytes > request.blobCapBytes) planned.items.push(rejected('blob_cap'));
    else if ((step.startedAt && Date.parse(step.startedAt) < startedAt) || (at && Date.parse(at) < startedAt)) planned.items.push(rejected('time_order'));
    else {
      if (step.blobs.length) {
        blobs.bytes += addedBlobBytes;
        for (const b of step.blobs) blobs.present.add(b.hash);
        planned.blobs.push(...step.blobs);
      }
      if (ep.historical && at) clock = Math.max(clock, Date.parse(at));
      ep.stepCount += 1;
      ep.usedTokens += step.tokens;
      ep.usedToolCalls += step.kind === 'tool_call' ? 1 : 0;
      ep.sizeBytes += step.sizeBytes;
      planned.addedCost += step.cost;
      const row: PendingRow = {
        status: 'pending',
        id: randomUUID(),
        tenantId,
        episodeId: ep.id,
        stepNumber: ep.stepCount,
        step,
        contentHash: step.contentHash,
      };
      planned.items.push(row);
      if (key) keyed.set(key, row);
      usage.tokens = ep.usedTokens;
      usage.steps = ep.stepCount;
      usage.toolCalls = ep.usedToolCalls;
      usage.wallMs = clock - startedAt;
      planned.exhausted = exhaustedResource(ep.budget, usage);
    }
  }
  return planned;
}

function validateRequest(request: StepBatchRequest, ep: EpisodeRow | undefined): NotFoundError | IllegalTransitionError | null {
  if (!ep) return new NotFoundError('Episode', request.episodeId);
  const check = checkTransition(ep.status, request.action ?? 'logSteps', ep.forgotten);
  return check.ok ? null : new IllegalTransitionError(check.from, check.action, check.allowed, check.message);
}

/**
 * Ends an episode whose budget ran out, in the batch's transaction. Passed in (src/lifecycle/
 * budget-stop.ts) because ending an episode drives leases, learning and retrieval, above steps.
 */
export type StopForBudget = (client: pg.PoolClient, ep: EpisodeRow, resource: BudgetResource, now: Date, events: NewLedgerEvent[]) => Promise<void>;

/** How a group commit runs applyStepBatch: two round trips fewer per batch. */
export interface BatchRoundTrips {
  /** The batch's first statement opens its transaction: BEGIN goes with the episodes' lock (beginAndLockEpisodes). */
  begin: boolean;
  /**
   * Takes the step insert when no episode stops in the batch, for the caller to write with its
   * ledger append (appendEvents' `leading`). When an episode stops (ending it reads its steps), the
   * steps are written here.
   */
  defer: (write: LeadingWrite) => void;
}

export async function applyStepBatch(
  client: pg.PoolClient,
  tenantId: string,
  requests: StepBatchRequest[],
  now: Date,
  events: NewLedgerEvent[],
  stopForBudget: StopForBudget,
  trips?: BatchRoundTrips,
): Promise<StepBatchOutcome[]> {
  const episodes = await (trips?.begin ? beginAndLockEpisodes : lockEpisodes)(
    client,
    tenantId,
    requests.map((r) => r.episodeId),
  );
  const blobHashes: string[] = [];
  for (const r of requests) for (const s of r.steps) for (const b of s.blobs) blobHashes.push(b.hash);
  const blobs: BlobLedger = blobHashes.length ? await blobStateForUpdate(client, tenantId, blobHashes) : { bytes: 0, present: new Set() };
  const keyed = await storedKeys(client, requests, episodes);
  const plans: Array<Planned | { error: NotFoundError | IllegalTransitionError }> = requests.map((request) => {
    const ep = episodes.get(request.episodeId);
    const error = validateRequest(request, ep);
    if (error || !ep) return { error: must(error) };
    const plan = planRequest(tenantId, request, ep, keyed, now, blobs);
    // The episode stops below, in this transaction: a later request of the batch for the same
    // episode is refused as it would be in a later call, instead of slipping past the budget.
    // A completed episode's late telemetry stops nothing: the run is over.
    if (plan.exhausted && !isLate(request)) ep.status = statusAfterBudgetStop(ep.onBudgetExhausted, plan.exhausted);
    return plan;
  });

  const toInsert: PendingRow[] = [];
  for (const p of plans) if ('items' in p) for (const i of p.items) if (i.status === 'pending') toInsert.push(i);
  await insertBlobs(
    client,
    tenantId,
    plans.flatMap((p) => ('blobs' in p ? p.blobs : [])),
  );

  const stops = new Map<string, Planned & { exhausted: BudgetResource }>();
  const outcomes: StepBatchOutcome[] = [];
  for (const plan of plans) {
    if (!('items' in plan)) {
      outcomes.push({ ok: false, error: plan.error });
      continue;
    }
    const items: StepItemResult[] = new Array(plan.items.length);
    const accepted: Array<{ n: number; hash: string }> = [];
    for (let k = 0; k < plan.items.length; k++) {
      const i = must(plan.items[k]);
      if (i.status !== 'pending') items[k] = i;
      else {
        items[k] = { status: 'accepted', stepId: i.id, stepNumber: i.stepNumber };
        accepted.push({ n: i.stepNumber, hash: i.contentHash });
      }
    }
    if (accepted.length) {
      const payload = isLate(plan.request) ? { steps: accepted, lateTelemetry: true } : { steps: accepted };
      events.push({ type: 'steps.logged', episodeId: plan.ep.id, workItemId: plan.ep.workItemId, payload });
    }
    if (plan.exhausted && !isLate(plan.request) && !stops.has(plan.ep.id)) stops.set(plan.ep.id, { ...plan, exhausted: plan.exhausted });
    outcomes.push({ ok: true, episodeId: plan.ep.id, items, exhausted: plan.exhausted, episode: plan.ep });
  }
  if (toInsert.length) {
    // Nothing inserted leaves every usage as it was: the row objects change only with an accepted step.
    const write = stepsWrite(
      toInsert,
      usageOf(plans.filter((p): p is Planned => 'items' in p)),
      toInsert.map((r) => r.id),
    );
    if (trips && !stops.size) trips.defer(write);
    else await runStepsWrite(client, write);
  }
  // Ending an episode locks its work item (then its leases): two batches doing that in opposite
  // orders could deadlock, so every batch ends its episodes in work-item order.
  for (const plan of [...stops.values()].sort(byWorkItemThenId)) await stopForBudget(client, plan.ep, plan.exhausted, now, events);
  return outcomes;
}

/**
 * The stored steps of the requests' side-effect keys. Steps are stored only with their episode's
 * step count (store.ts stepsWrite), read under the row lock: an episode without steps (a run just
 * started or imported) has no keys to look up.
 */
async function storedKeys(client: pg.PoolClient, requests: readonly StepBatchRequest[], episodes: ReadonlyMap<string, EpisodeRow>) {
  const pairs = requests
    .filter((r) => (episodes.get(r.episodeId)?.stepCount ?? 0) > 0)
    .flatMap((r) => r.steps.filter((s) => s.sideEffectKey).map((s) => ({ episodeId: r.episodeId, key: must(s.sideEffectKey) })));
  return new Map<string, { id: string; stepNumber: number }>(
    (await findKeyedSteps(client, pairs)).map((s) => [keyOf(s.episodeId, s.sideEffectKey), { id: s.id, stepNumber: s.stepNumber }]),
  );
}

const isLate = (request: StepBatchRequest) => request.action === 'appendLateTelemetry';

function byWorkItemThenId(a: Planned, b: Planned): number {
  return (a.ep.workItemId ?? '').localeCompare(b.ep.workItemId ?? '') || a.ep.id.localeCompare(b.ep.id);
}

/** The usage each touched episode ends the batch with (several requests may touch one episode; cost adds up). */
function usageOf(plans: Planned[]): EpisodeUsage[] {
  const byEpisode = new Map<string, EpisodeUsage>();
  for (const p of plans) {
    const entry = byEpisode.get(p.ep.id);
    if (entry) entry.addedCost += p.addedCost;
    else
      byEpisode.set(p.ep.id, {
        id: p.ep.id,
        stepCount: p.ep.stepCount,
        usedTokens: p.ep.usedTokens,
        usedToolCalls: p.ep.usedToolCalls,
        sizeBytes: p.ep.sizeBytes,
        addedCost: p.addedCost,
      });
  }
  return [...byEpisode.values()];
}
