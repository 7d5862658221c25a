// The bounded episode controller on top of the client: runEpisodeLoop drives a user-supplied
// Holon through bounded episodes under a lease. Each episode is one startEpisode (with the lease
// and a monotonic episode number), the holon's steps journaled with logSteps, and one ending
// (complete, fail, block or escalate) on which the server charges the lease. After each episode
// the stop conditions are evaluated in the seed's priority order by the server's own rule
// (evaluateStopCondition): budget exhaustion > the holon's stop > max episodes.
import type { EpisodicClient } from '../client/client.ts';
import { EpisodicError, isErrorResult, unwrap } from '../client/errors.ts';
import type {
  Episode,
  EpisodeStopReason,
  FinishEpisodeResult,
  Json,
  LeaseBudget,
  LeaseCharge,
  OutcomeInput,
  StartEpisodeInput,
  StepInput,
} from '../client/types.ts';
import { must } from '../core/must.ts';
import { EPISODE_LIMITS, validateGoalSpec } from '../episodes/limits.ts';
import type { ExhaustedResource } from '../stops/resources.ts';
import { evaluateStopCondition, type StopReason } from '../stops/stop-reason.ts';
import type { JsonValue } from '../validation/json.ts';
import { exhaustedResource, leaseRemaining, remainingFromCharge } from './lease.ts';
import { canLoopContinue, type EpisodeLoopOutcome, isLoopSuccessful, outcomeFromStop } from './outcome.ts';

export const DEFAULT_MAX_EPISODES = 100;
export const DEFAULT_EPISODE_TIMEOUT_MS = 300_000;

/** The stops a holon may report for its episode: the loop ends on any of them (after a budget stop, before max episodes). */
export type HolonStop = Extract<StopReason, { kind: 'completed' | 'blocked' | 'escalated' | 'error' }>;

export interface EpisodeContext<TOutput = unknown> {
  workId: string;
  leaseId: string;
  episodeId: string;
  episodeNumber: number;
  goalSpec: Json | null;
  /** The previous episode's output in this run (progress state); undefined for the first. */
  progress: TOutput | undefined;
  episodesExecuted: number;
  tokensConsumed: number;
  /** What the lease had left when the episode started; null = unlimited. */
  remaining: LeaseBudget;
}

export interface HolonEpisodeResult<TOutput = unknown> {
  /** Journaled with logSteps (batched). */
  steps: StepInput[];
  /** Tokens the episode used; any not carried by steps are journaled as one llm_call step so the lease is charged for them. */
  tokens?: number;
  /** The holon's own stop; none means "run another episode". */
  stop?: HolonStop | null;
  output?: TOutput;
  /** Outcome for completeEpisode; default SUCCESS when stopping completed, PARTIAL otherwise. */
  outcome?: OutcomeInput;
}

export interface Holon<TOutput = unknown> {
  executeEpisode(context: EpisodeContext<TOutput>): HolonEpisodeResult<TOutput> | Promise<HolonEpisodeResult<TOutput>>;
}

export interface EpisodeLoopOptions {
  task: Pick<StartEpisodeInput, 'taskDescription' | 'taskType' | 'agent' | 'context' | 'metadata' | 'mode'>;
  /** Episodes this run may execute; default 100. */
  maxEpisodes?: number;
  /** Each episode's wall-time budget, enforced by the server; default 5 minutes. */
  episodeTimeoutMs?: number;
  maxTokensPerEpisode?: number;
  onBudgetExhausted?: 'FAIL' | 'CONVERGE';
  /** CTR-EP03: rethrow a holon's exception (after failing its episode) instead of returning outcome error. */
  strictBudgetEnforcement?: boolean;
  onEpisode?: (record: EpisodeRecord) => void;
  /** retrievalIds (relevantEpisodes) the holon used: credited or debited when each episode completes. */
  usedRetrievals?: string[];
}

export interface EpisodeRecord {
  id: string;
  episodeNumber: number;
  status: Episode['status'];
  stepsAccepted: number;
  tokens: number;
  leaseCharge: LeaseCharge | null;
  stop: StopReason | null;
}

export interface EpisodeLoopResult<TOutput = unknown> {
  outcome: EpisodeLoopOutcome;
  isSuccessful: boolean;
  canContinue: boolean;
  finalStopCondition: StopReason;
  output: TOutput | undefined;
  episodes: EpisodeRecord[];
  episodesExecuted: number;
  tokensConsumed: number;
  /** Pass as initialEpisodeNumber to continue this work later (INV-EP01). */
  nextEpisodeNumber: number;
}

function validateId(what: string, id: string): void {
  if (typeof id !== 'string' || !id.trim() || id.length > EPISODE_LIMITS.idChars || /[\s\0]/.test(id)) {
    throw new EpisodicError('input', `${what} must be a non-empty id of at most ${EPISODE_LIMITS.idChars} characters without whitespace`);
  }
}

function validateInput(workId: string, leaseId: string, goalSpec: Json | null): void {
  validateId('workId', workId);
  validateId('lease id', leaseId);
  const violation = goalSpec === null ? undefined : validateGoalSpec(goalSpec as JsonValue, 'goalSpec')[0];
  if (violation) throw new EpisodicError('input', violation.message);
}

/** The holon's steps, plus one llm_call step for tokens its steps do not carry. */
function journalSteps(result: HolonEpisodeResult<unknown>): { steps: StepInput[]; tokens: number } {
  const carried = result.steps.reduce((sum, s) => sum + (s.tokens ?? 0), 0);
  const tokens = Math.max(carried, result.tokens ?? 0);
  if (tokens <= carried) return { steps: result.steps, tokens };
  return {
    steps: [...result.steps, { kind: 'llm_call', action: 'tokens not attributed to a step', tokens: tokens - carried, metadata: { source: 'episode-loop' } }],
    tokens,
  };
}

function ending(
  client: EpisodicClient,
  episodeId: string,
  stop: HolonStop | null | undefined,
  outcome: OutcomeInput | undefined,
  number: number,
  used?: string[],
): Promise<FinishEpisodeResult | null> {
  switch (stop?.kind) {
    case 'blocked':
      return client.blockEpisode(episodeId, stop.reason).then((r) => (isErrorResult(r) ? r : null));
    case 'escalated':
      return client.escalateEpisode(episodeId, stop.reason);
    case 'error':
      return client.failEpisode(episodeId, stop.message, stop.recoverable);
    case 'completed':
      return client.completeEpisode(episodeId, outcome ?? { kind: 'SUCCESS', verdict: 'goal reached', artifacts: [] }, used);
    default:
      return client.completeEpisode(
        episodeId,
        outcome ?? { kind: 'PARTIAL', verdict: `episode ${number} ended; the goal is not reached yet`, completed: [], failed: [] },
        used,
      );
  }
}

/** The domain StopReason of an episode as the API reports it. */
function fromApiStop(stop: EpisodeStopReason | null): StopReason | null {
  if (!stop) return null;
  switch (stop.kind) {
    case 'budget_exhausted':
      return { kind: 'budget_exhausted', resource: (stop.resource ?? 'unknown') as ExhaustedResource };
    case 'blocked':
    case 'escalated':
    case 'failed':
      return { kind: stop.kind, reason: stop.reason ?? stop.kind };
    case 'error':
      return { kind: 'error', message: stop.reason ?? 'error', recoverable: stop.recoverable ?? false };
    case 'cancelled':
      return { kind: 'cancelled', reason: stop.reason ?? undefined };
    default:
      return { kind: stop.kind };
  }
}

interface Ended {
  status: Episode['status'];
  stepsAccepted: number;
  charge: LeaseCharge | null;
  /** Set when the server stopped the episode itself (budget, deadline, an operator). */
  serverStop: StopReason | null;
}

/** Journals the steps, then ends the episode as the holon asked, unless the server already stopped it. */
async function journalAndEnd(
  client: EpisodicClient,
  episodeId: string,
  steps: StepInput[],
  result: HolonEpisodeResult<unknown>,
  number: number,
  used?: string[],
): Promise<Ended> {
  const logged = steps.length ? await client.logSteps(episodeId, steps) : null;
  const payload = logged && !isErrorResult(logged) ? logged : null;
  const stepsAccepted = payload?.accepted ?? 0;
  if (payload?.budgetExhausted)
    return {
      status: payload.episode.status,
      stepsAccepted,
      charge: null,
      serverStop: { kind: 'budget_exhausted', resource: payload.budgetExhausted as ExhaustedResource },
    };
  if (!logged || (payload && payload.episode.status === 'RUNNING')) {
    const finished = await ending(client, episodeId, result.stop, result.outcome, number, used);
    const ended = finished ? unwrap(finished) : null;
    return { status: ended?.episode.status ?? 'BLOCKED', stepsAccepted, charge: ended?.leaseCharge ?? null, serverStop: null };
  }
  // Refused or no longer running: the server stopped the episode itself and charged the lease.
  const current = unwrap(await client.episode(episodeId));
  return { status: current.status, stepsAccepted, charge: null, serverStop: fromApiStop(current.stopReason) };
}

/** What stays the same for every episode of one run. */
interface LoopRun {
  client: EpisodicClient;
  workId: string;
  leaseId: string;
  goalSpec: Json | null;
  maxEpisodes: number;
  options: EpisodeLoopOptions;
}

/** What one run has done so far. */
interface LoopState<TOutput> {
  number: number;
  remaining: LeaseBudget;
  episodes: EpisodeRecord[];
  tokensConsumed: number;
  output: TOutput | undefined;
}

/** Starts the next episode under the lease, or says why the loop stops instead. */
async function startNext(run: LoopRun, number: number): Promise<{ stop: StopReason } | { stop: null; episode: Episode }> {
  const { client, leaseId, options } = run;
  const started = await client.startEpisode({
    ...options.task,
    workItemId: run.workId,
    leaseId,
    episodeNumber: number,
    goalSpec: run.goalSpec ?? undefined,
    budget: { maxWallMs: options.episodeTimeoutMs ?? DEFAULT_EPISODE_TIMEOUT_MS, maxTokens: options.maxTokensPerEpisode },
    onBudgetExhausted: options.onBudgetExhausted,
  });
  if (started.__typename === 'LeaseError' && started.rule === 'exhausted') {
    return { stop: { kind: 'budget_exhausted', resource: exhaustedResource((await leaseRemaining(client, leaseId)).remaining) } };
  }
  if (started.__typename === 'LeaseError' && (started.rule === 'revoked' || started.rule === 'expired')) {
    return { stop: { kind: 'error', message: started.message, recoverable: false } };
  }
  if (started.__typename === 'LoopStoppedError') {
    // The server decided the work item's loop has stopped (or started all its max episodes).
    return { stop: fromApiStop(started.stopCondition) ?? { kind: 'error', message: started.message, recoverable: false } };
  }
  return { stop: null, episode: unwrap(started).episode }; // any other refusal is invalid input (CTR-EP01)
}

/** Fails the episode whose holon threw; rethrows under strictBudgetEnforcement, else stops the loop. */
async function holonFailed<TOutput>(run: LoopRun, state: LoopState<TOutput>, episodeId: string, err: unknown): Promise<StopReason> {
  const message = `holon failed: ${(err as Error)?.message ?? String(err)}`;
  await run.client.failEpisode(episodeId, message, false);
  const stop: StopReason = { kind: 'error', message, recoverable: false };
  state.episodes.push({ id: episodeId, episodeNumber: state.number, status: 'FAILED', stepsAccepted: 0, tokens: 0, leaseCharge: null, stop });
  if (run.options.strictBudgetEnforcement) throw err;
  return stop;
}

/** Journals and ends the episode, records it, and decides whether the loop stops. */
async function settleEpisode<TOutput>(
  run: LoopRun,
  state: LoopState<TOutput>,
  episodeId: string,
  result: HolonEpisodeResult<TOutput>,
): Promise<StopReason | null> {
  const { client, leaseId, options } = run;
  state.output = result.output ?? state.output;
  const journal = journalSteps(result);
  state.tokensConsumed += journal.tokens;
  const ended = await journalAndEnd(client, episodeId, journal.steps, result, state.number, options.usedRetrievals);
  const { charge, serverStop } = ended;
  state.remaining = charge ? remainingFromCharge(charge) : (await leaseRemaining(client, leaseId)).remaining;

  // INV-EP03: an overdrawn lease is exhausted; so is one with nothing left when the holon would go on.
  const leaseExhausted = charge?.exhausted && (!charge.ok || !result.stop) ? (charge.exhausted as ExhaustedResource) : null;
  const budgetExhausted = serverStop?.kind === 'budget_exhausted' ? serverStop.resource : leaseExhausted;
  const holonStop: StopReason | null = serverStop ?? result.stop ?? null;
  const record: EpisodeRecord = {
    id: episodeId,
    episodeNumber: state.number,
    status: ended.status,
    stepsAccepted: ended.stepsAccepted,
    tokens: journal.tokens,
    leaseCharge: charge,
    stop: null,
  };
  state.episodes.push(record);
  const stop = evaluateStopCondition({ budgetExhausted, holonStop, episodesExecuted: state.episodes.length, maxEpisodes: run.maxEpisodes });
  record.stop = stop;
  options.onEpisode?.(record);
  state.number += 1;
  return stop;
}

/** One episode: started, executed by the holon, settled; the loop's stop, or null to go on. */
async function runOneEpisode<TOutput>(run: LoopRun, holon: Holon<TOutput>, state: LoopState<TOutput>): Promise<StopReason | null> {
  const started = await startNext(run, state.number);
  if (started.stop) return started.stop;
  const { episode } = started;
  state.number = episode.episodeNumber ?? state.number;
  let result: HolonEpisodeResult<TOutput>;
  try {
    result = await holon.executeEpisode({
      workId: run.workId,
      leaseId: run.leaseId,
      episodeId: episode.id,
      episodeNumber: state.number,
      goalSpec: run.goalSpec,
      progress: state.output,
      episodesExecuted: state.episodes.length,
      tokensConsumed: state.tokensConsumed,
      remaining: state.remaining,
    });
  } catch (err) {
    return holonFailed(run, state, episode.id, err);
  }
  return settleEpisode(run, state, episode.id, result);
}

export async function runEpisodeLoop<TOutput = unknown>(
  client: EpisodicClient,
  holon: Holon<TOutput>,
  workId: string,
  lease: string | { id: string },
  goalSpec: Json | null,
  initialEpisodeNumber: number,
  options: EpisodeLoopOptions,
): Promise<EpisodeLoopResult<TOutput>> {
  const leaseId = typeof lease === 'string' ? lease : lease.id;
  validateInput(workId, leaseId, goalSpec);
  const run: LoopRun = { client, workId, leaseId, goalSpec, options, maxEpisodes: options.maxEpisodes ?? DEFAULT_MAX_EPISODES };
  const state: LoopState<TOutput> = {
    number: Math.max(1, Math.floor(initialEpisodeNumber)), // INV-EP02
    remaining: (await leaseRemaining(client, leaseId)).remaining,
    episodes: [],
    tokensConsumed: 0,
    output: undefined,
  };
  let stop: StopReason | null = run.maxEpisodes <= 0 ? { kind: 'max_episodes' } : null;
  while (!stop) stop = await runOneEpisode(run, holon, state);

  const { episodes, tokensConsumed, output } = state;
  const outcome = outcomeFromStop(stop, episodes.length, tokensConsumed);
  return {
    outcome,
    isSuccessful: isLoopSuccessful(outcome),
    canContinue: canLoopContinue(outcome),
    finalStopCondition: stop,
    output,
    episodes,
    episodesExecuted: episodes.length,
    tokensConsumed,
    nextEpisodeNumber: episodes.length ? must(episodes[episodes.length - 1]).episodeNumber + 1 : state.number,
  };
}
