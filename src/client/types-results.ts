// The API's mutation payloads and result unions: a payload or one of its typed errors.

import type { IdempotencyConflictError, IllegalTransitionError, InputLimitError, LeaseError, LoopStoppedError, NotFoundError } from './types-errors.ts';
import type {
  ApiKey,
  ConsistencyProof,
  Episode,
  EpisodeStopReason,
  HashedRowList,
  Lease,
  LeaseCharge,
  LedgerEvent,
  LedgerVerification,
  NotCheckpointedError,
  PageInfo,
  SignedTreeHead,
  SignedTreeHeadPage,
  StepItemResult,
  WorkItem,
} from './types-objects.ts';
import type { Json } from './types-scalars.ts';

export interface StartEpisodePayload {
  __typename: 'StartEpisodePayload';
  deduplicated: boolean;
  episode: Episode;
}
export interface EpisodePayload {
  __typename: 'EpisodePayload';
  episode: Episode;
}
export interface FinishEpisodePayload {
  __typename: 'FinishEpisodePayload';
  episode: Episode;
  leaseCharge: LeaseCharge | null;
  stopCondition: EpisodeStopReason | null;
}
export interface LogStepsPayload {
  __typename: 'LogStepsPayload';
  accepted: number;
  duplicates: number;
  rejected: number;
  budgetExhausted: string | null;
  results: StepItemResult[];
  episode: Episode;
}
export interface ImportRunPayload {
  __typename: 'ImportRunPayload';
  deduplicated: boolean;
  episode: Episode;
  /** Null when the run had been imported and had ended before. */
  steps: LogStepsPayload | null;
  /** Null when nothing was logged, or a budget stopped the episode during its steps. */
  completion: FinishEpisodePayload | null;
}
export interface LogStepPayload {
  __typename: 'LogStepPayload';
  budgetExhausted: string | null;
  result: StepItemResult;
  episode: Episode;
}
export interface WorkItemPayload {
  __typename: 'WorkItemPayload';
  workItem: WorkItem;
}
export interface LeasePayload {
  __typename: 'LeasePayload';
  lease: Lease;
}
export interface CreatedApiKey {
  __typename: 'CreatedApiKey';
  token: string;
  key: ApiKey;
}
export interface LedgerEventPage {
  __typename: 'LedgerEventConnection';
  events: LedgerEvent[];
  pageInfo: PageInfo;
}
export interface RelevanceScore {
  total: number;
  similarity: number;
  textRank: number;
  /** BM25 of the query against the task description. */
  taskText: number;
  /** 0.5 × BM25 of the query against what the episode did (files, symbols, commands, errors, tools). */
  work: number;
  /** 0.5 × BM25 of the query against the change the episode left (changed files, modules, scopes). */
  change: number;
  trigramSimilarity: number;
  contextMatch: number;
  reward: number;
  recency: number;
  /** Query-relative credit in [-1, 1] from reported uses by resembling queries. */
  feedback: number;
  /** Reported uses that counted for this query. */
  feedbackUses: number;
  /** The largest resemblance of any reported use's query to this one, in [0, 1]. */
  feedbackResemblance: number;
}
export interface ScoredEpisode {
  episode: Episode;
  score: RelevanceScore;
  /** A failed episode (includeFailures): evidence of what did not work. */
  failed: boolean;
  /** A failed episode's outcome reason and details; null for a completed one. */
  whatWentWrong: string | null;
}
export interface RelevantEpisodes {
  __typename: 'RelevantEpisodes';
  retrievalId: string | null;
  episodes: ScoredEpisode[];
  warnings: ScoredEpisode[];
}
export interface RelevantFile {
  path: string;
  /** vote / the best vote + 0.5 × path match / the best match (docs/LEARNING.md, relevantFiles). */
  score: number;
  /** Runs among the 50 most similar that changed it, and of those the resolved and the failed. */
  runs: number;
  resolved: number;
  failed: number;
  /** Those runs, best first. */
  evidence: Episode[];
}
export interface RelevantFiles {
  __typename: 'RelevantFiles';
  retrievalId: string | null;
  files: RelevantFile[];
}
export interface EpisodeProofBundle {
  __typename: 'EpisodeProofBundle';
  bundle: Json;
  eventCount: number;
  stepCount: number;
  treeHead: SignedTreeHead;
}

type Transition = IllegalTransitionError | InputLimitError | NotFoundError;
export type StartEpisodeResult = StartEpisodePayload | IdempotencyConflictError | InputLimitError | LeaseError | LoopStoppedError | NotFoundError;
export type LogStepsResult = LogStepsPayload | Transition;
export type ImportRunResult =
  | ImportRunPayload
  | IdempotencyConflictError
  | InputLimitError
  | LeaseError
  | LoopStoppedError
  | NotFoundError
  | IllegalTransitionError;
export type LogStepResult = LogStepPayload | Transition;
export type EpisodeResult = EpisodePayload | Transition;
export type FinishEpisodeResult = FinishEpisodePayload | Transition;
export type CreateWorkItemResult = WorkItemPayload | InputLimitError;
export type ResumeWorkItemResult = WorkItemPayload | InputLimitError | NotFoundError;
export type IssueLeaseResult = LeasePayload | InputLimitError | LeaseError | NotFoundError;
export type RevokeLeaseResult = LeasePayload | NotFoundError;
export type CreateApiKeyResult = CreatedApiKey | InputLimitError;
export type RevokeApiKeyResult = ({ __typename: 'ApiKey' } & ApiKey) | NotFoundError;
/** forgetSteps (admin): the steps whose content this call forgot, and the blobs it deleted (docs/LEDGER.md §3.4). */
export type ForgetStepsResult =
  | { __typename: 'ForgetStepsPayload'; episodeId: string; forgotten: number[]; blobsDeleted: number }
  | InputLimitError
  | NotFoundError;
/** forgetEpisode (admin): what this call forgot of an ended run (docs/LEDGER.md §3.4); forgotten false when it was forgotten before. */
export type ForgetEpisodeResult =
  | { __typename: 'ForgetEpisodePayload'; episodeId: string; forgotten: boolean; stepsForgotten: number[]; blobsDeleted: number; rowsForgotten: number }
  | InputLimitError
  | NotFoundError
  | IllegalTransitionError;
/** A tenant's retention periods in days (docs/LEDGER.md §3.4): its own (null: the server's) and what applies (null: kept). */
export interface TenantRetention {
  stepDays: number | null;
  runDays: number | null;
  effectiveStepDays: number | null;
  effectiveRunDays: number | null;
}
/** setRetention (admin): the periods now, recorded by a tenant.retention_set ledger event. */
export type SetRetentionResult = ({ __typename: 'TenantRetention' } & TenantRetention) | InputLimitError;
export type EpisodeQueryResult = ({ __typename: 'Episode' } & Episode) | NotFoundError;
export type LeaseQueryResult = ({ __typename: 'Lease' } & Lease) | NotFoundError;
export type WorkItemQueryResult = ({ __typename: 'WorkItem' } & WorkItem) | NotFoundError;
export type LedgerEventsResult = LedgerEventPage | InputLimitError;
export type EpisodeProofBundleResult = EpisodeProofBundle | NotFoundError | NotCheckpointedError;
export type LedgerCheckpointsResult = SignedTreeHeadPage | InputLimitError;
export type ConsistencyProofResult = ConsistencyProof | InputLimitError;
export type HashedRowsResult = HashedRowList | InputLimitError;
export type RelevantEpisodesResult = RelevantEpisodes | InputLimitError;
export type RelevantFilesResult = RelevantFiles | InputLimitError;
export type VerifyLedgerResult = ({ __typename: 'LedgerVerification' } & LedgerVerification) | InputLimitError;
