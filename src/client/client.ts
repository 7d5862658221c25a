// createEpisodicClient: typed methods over the API. Mutations and queries return the typed union
// results (branch on __typename, or unwrap()); transport and GraphQL failures throw EpisodicError.
import { type BatchedLogSteps, type LogStepsOptions, logStepsBatched } from './batch.ts';
import { DOCUMENTS } from './documents.ts';
import type { EpisodicError } from './errors.ts';
import { type RawLedgerEvent, toLedgerEvent } from './events.ts';
import { type LedgerSubscription, type SubscribeLedgerOptions, subscribeLedger } from './ledger-stream.ts';
import { createTransport, type FetchLike, type Request } from './transport.ts';
import type * as T from './types.ts';
import { type StepsLogged, watchEpisode, watchSteps } from './watch.ts';
import type { WebSocketImpl } from './ws.ts';

export interface EpisodicClientOptions {
  /** The GraphQL endpoint, e.g. http://localhost:4000/graphql (subscriptions use ws:// on the same path). */
  url: string;
  apiKey?: string;
  fetch?: FetchLike;
  /** A WebSocket class for subscriptions; default: the global one, else the `ws` package. */
  webSocketImpl?: WebSocketImpl;
  timeoutMs?: number;
  headers?: Record<string, string>;
}

type Page = { first?: number; after?: string };

type RawPage = { __typename: 'LedgerEventConnection'; edges: Array<{ node: RawLedgerEvent }> | null; pageInfo: T.PageInfo } | T.InputLimitError;

function ledgerPage(result: RawPage): T.LedgerEventsResult {
  if (result.__typename === 'InputLimitError') return result;
  return { __typename: 'LedgerEventConnection', events: (result.edges ?? []).map((e) => toLedgerEvent(e.node)), pageInfo: result.pageInfo };
}

/** Work items and their leases: the client's methods for the loop of episodes. */
function workMethods(request: Request) {
  return {
    createWorkItem: (input: { title: string; description?: string; metadata?: T.Json; maxEpisodes?: number }) =>
      request<T.CreateWorkItemResult>(DOCUMENTS.createWorkItem, input),
    /** Lets a stopped loop of episodes go on, optionally with a higher maxEpisodes. */
    resumeWorkItem: (id: string, maxEpisodes?: number) => request<T.ResumeWorkItemResult>(DOCUMENTS.resumeWorkItem, { id, maxEpisodes }),
    issueLease: (input: {
      workItemId: string;
      issuer: string;
      holder: string;
      expiresAt: string | Date;
      budget?: T.LeaseBudgetInput;
      scope?: string[];
      parentLeaseId?: string;
    }) => request<T.IssueLeaseResult>(DOCUMENTS.issueLease, { ...input, expiresAt: new Date(input.expiresAt).toISOString() }),
    revokeLease: (id: string) => request<T.RevokeLeaseResult>(DOCUMENTS.revokeLease, { id }),
    lease: (id: string) => request<T.LeaseQueryResult>(DOCUMENTS.lease, { id }),
    workItem: (id: string) => request<T.WorkItemQueryResult>(DOCUMENTS.workItem, { id }),
  };
}

/** The ledger's reads: events, head, checkpoints, proofs, hashed rows, verification. */
function ledgerMethods(request: Request) {
  return {
    ledgerEvents: async (args: { after?: number | string; first?: number; filter?: T.LedgerEventFilter } = {}) =>
      ledgerPage(
        await request<RawPage>(DOCUMENTS.ledgerEvents, {
          after: args.after === undefined ? undefined : String(args.after),
          first: args.first ?? 100,
          filter: args.filter,
        }),
      ),
    ledgerHead: () => request<T.LedgerHead>(DOCUMENTS.ledgerHead),
    /** Signed checkpoints with treeSize > afterTreeSize (all when omitted, the empty tree included), oldest first. */
    ledgerCheckpoints: (args: { afterTreeSize?: number; first?: number } = {}) =>
      request<T.LedgerCheckpointsResult>(DOCUMENTS.ledgerCheckpoints, {
        afterTreeSize: args.afterTreeSize === undefined ? undefined : String(args.afterTreeSize),
        first: args.first ?? 100,
      }),
    /** Proof that the tree of size fromSize is a prefix of the tree of size toSize (default: the head). */
    consistencyProof: (args: { fromSize: number; toSize?: number }) =>
      request<T.ConsistencyProofResult>(DOCUMENTS.consistencyProof, {
        fromSize: String(args.fromSize),
        toSize: args.toSize === undefined ? undefined : String(args.toSize),
      }),
    /** The stored values events hash, for an offline verifier (at most 500 refs a call). */
    hashedRows: (refs: Array<{ kind: string; id: string }>) => request<T.HashedRowsResult>(DOCUMENTS.hashedRows, { refs }),
    ledgerPublicKey: () => request<{ algorithm: string; keyId: string; publicKey: string }>(DOCUMENTS.ledgerPublicKey),
    episodeProofBundle: (episodeId: string) => request<T.EpisodeProofBundleResult>(DOCUMENTS.episodeProofBundle, { episodeId }),
    verifyLedger: (range: { fromSeq?: number | string; toSeq?: number | string } = {}) =>
      request<T.VerifyLedgerResult>(DOCUMENTS.verifyLedger, {
        fromSeq: range.fromSeq === undefined ? undefined : String(range.fromSeq),
        toSeq: range.toSeq === undefined ? undefined : String(range.toSeq),
      }),
  };
}

export function createEpisodicClient(options: EpisodicClientOptions) {
  const request = createTransport(options);
  const connection = { url: options.url, apiKey: options.apiKey, webSocketImpl: options.webSocketImpl };

  const logStepsOnce = (episodeId: string, steps: T.StepInput[], opts?: LogStepsOptions) => {
    const options = opts?.largeContent || opts?.onInvalidStep ? { largeContent: opts.largeContent, onInvalidStep: opts.onInvalidStep } : undefined;
    return request<T.LogStepsResult>(DOCUMENTS.logSteps, { episodeId, steps, options });
  };

  return {
    /** Runs any document whose root field is aliased `result` (see DOCUMENTS for examples). */
    request,

    startEpisode: (input: T.StartEpisodeInput) => request<T.StartEpisodeResult>(DOCUMENTS.startEpisode, { input }),
    /** Journals steps in calls of at most 500 (options.batchSize), adding the answers up. */
    logSteps: (
      episodeId: string,
      steps: readonly T.StepInput[],
      opts?: LogStepsOptions,
    ): Promise<BatchedLogSteps | Exclude<T.LogStepsResult, T.LogStepsPayload>> => logStepsBatched((part) => logStepsOnce(episodeId, part, opts), steps, opts),
    logStep: (episodeId: string, step: T.StepInput) => request<T.LogStepResult>(DOCUMENTS.logStep, { episodeId, step }),
    /** usedRetrievals: retrievalIds (relevantEpisodes) that helped, credited on success and debited on failure. */
    /** endedAt: importing a past run, when it really ended. */
    completeEpisode: (episodeId: string, outcome: T.OutcomeInput, usedRetrievals?: string[], opts?: { endedAt?: string }) =>
      request<T.FinishEpisodeResult>(DOCUMENTS.completeEpisode, { episodeId, outcome, usedRetrievals, endedAt: opts?.endedAt }),
    failEpisode: (episodeId: string, reason: string, recoverable = false) =>
      request<T.FinishEpisodeResult>(DOCUMENTS.failEpisode, { episodeId, reason, recoverable }),
    escalateEpisode: (episodeId: string, reason: string) => request<T.FinishEpisodeResult>(DOCUMENTS.escalateEpisode, { episodeId, reason }),
    cancelEpisode: (episodeId: string, reason?: string) => request<T.FinishEpisodeResult>(DOCUMENTS.cancelEpisode, { episodeId, reason }),
    blockEpisode: (episodeId: string, reason: string, approvalRequest?: T.Json) =>
      request<T.EpisodeResult>(DOCUMENTS.blockEpisode, { episodeId, reason, approvalRequest }),
    resumeEpisode: (episodeId: string, decision: { approved: boolean; decidedBy?: string; comment?: string }) =>
      request<T.EpisodeResult>(DOCUMENTS.resumeEpisode, { episodeId, ...decision }),
    recordCritique: (episodeId: string, critique: { verdict: string; score?: number; feedback?: string; virtueScores?: T.VirtueScoreInput[] }) =>
      request<T.EpisodeResult>(DOCUMENTS.recordCritique, { episodeId, ...critique }),
    saveCheckpoint: (episodeId: string, state: T.Json, label?: string) => request<T.EpisodeResult>(DOCUMENTS.saveCheckpoint, { episodeId, state, label }),

    ...workMethods(request),

    episode: (id: string) => request<T.EpisodeQueryResult>(DOCUMENTS.episode, { id }),
    /** A blob a step references (Step.contentRefs), by its BLAKE3 hash. */
    blob: (hash: string) => request<{ __typename: 'Blob'; hash: string; sizeBytes: number; content: string } | T.NotFoundError>(DOCUMENTS.blob, { hash }),
    episodeSteps: async (id: string, page: Page = {}): Promise<({ __typename: 'EpisodeStepsConnection' } & T.Connection<T.Step>) | T.NotFoundError> => {
      const result = await request<{ __typename: 'Episode'; steps: T.Connection<T.Step> } | T.NotFoundError>(DOCUMENTS.episodeSteps, {
        id,
        first: page.first ?? 100,
        after: page.after,
      });
      return result.__typename === 'Episode' ? { __typename: 'EpisodeStepsConnection', ...result.steps } : result;
    },
    episodes: (args: { filter?: T.EpisodeFilter } & Page = {}) =>
      request<T.Connection<T.Episode>>(DOCUMENTS.episodes, { filter: args.filter, first: args.first ?? 20, after: args.after }),

    /** Completed episodes most relevant to a task, best first, with the score breakdown. */
    relevantEpisodes: (args: { task: T.RetrievalTaskInput; limit?: number; filter?: T.RelevantEpisodeFilter; includeFailures?: boolean }) =>
      request<T.RelevantEpisodesResult>(DOCUMENTS.relevantEpisodes, args),
    /** Where to look: the files runs of similar tasks changed, best first, with their support and the runs as evidence. */
    relevantFiles: (args: { task: T.RetrievalTaskInput; limit?: number; filter?: T.RelevantEpisodeFilter }) =>
      request<T.RelevantFilesResult>(DOCUMENTS.relevantFiles, args),
    ...ledgerMethods(request),

    createApiKey: (input: { name: string; scopes: string[]; expiresAt?: string }) => request<T.CreateApiKeyResult>(DOCUMENTS.createApiKey, input),
    apiKeys: () => request<T.ApiKey[]>(DOCUMENTS.apiKeys),
    revokeApiKey: (id: string) => request<T.RevokeApiKeyResult>(DOCUMENTS.revokeApiKey, { id }),
    /** Admin: deletes the content of an episode's steps (all, or those numbered), recorded by a steps.forgotten ledger event (docs/LEDGER.md §3.4). */
    forgetEpisode: (episodeId: string, reason: string) => request<T.ForgetEpisodeResult>(DOCUMENTS.forgetEpisode, { episodeId, reason }),
    forgetSteps: (episodeId: string, reason: string, stepNumbers?: number[]) =>
      request<T.ForgetStepsResult>(DOCUMENTS.forgetSteps, { episodeId, reason, stepNumbers: stepNumbers ?? null }),
    viewer: () => request<{ id: string; name: string }>(DOCUMENTS.viewer),
    retention: () => request<T.TenantRetention>(DOCUMENTS.retention),
    /** Admin: sets both retention periods of the tenant (null: the server's default), recorded by a tenant.retention_set ledger event. */
    setRetention: (periods: { stepDays: number | null; runDays: number | null }) => request<T.SetRetentionResult>(DOCUMENTS.setRetention, periods),

    /** Live ledger events over graphql-ws: resumed after reconnects, verified, exactly once. */
    subscribeLedger: (opts: SubscribeLedgerOptions): LedgerSubscription => subscribeLedger(request, connection, opts),
    /** episodeUpdated: the episode now, then again after each change. */
    watchEpisode: (id: string, onUpdate: (episode: T.Episode) => void, onError?: (e: EpisodicError) => void) => watchEpisode(connection, id, onUpdate, onError),
    /** stepsLogged: each batch of steps journaled for the episode (after afterSeq first, if given). */
    watchSteps: (episodeId: string, opts: { afterSeq?: number; onBatch: (batch: StepsLogged) => void; onError?: (e: EpisodicError) => void }) =>
      watchSteps(connection, episodeId, opts.afterSeq, opts.onBatch, opts.onError),
  };
}

export type EpisodicClient = ReturnType<typeof createEpisodicClient>;
