// TypeScript shapes of the API (schema.graphql), as the client's documents select them.
// BigInt fields (seq, usedTokens, tree sizes) arrive as decimal strings; ledger events are
// converted to numbers (LedgerEvent) because the hash chain is defined over a numeric seq.

import type { StoredLedgerEvent } from '../ledger/hash.ts';
import type { StopReasonKind } from '../stops/stop-reason.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type BigIntString = string;
export type DateTimeString = string;

export type EpisodeStatus = 'RUNNING' | 'BLOCKED' | 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'ESCALATED';
export type OutcomeKind = 'SUCCESS' | 'PARTIAL' | 'FAILURE';
export type Complexity = 'SIMPLE' | 'MODERATE' | 'COMPLEX';
export type StepItemStatus = 'ACCEPTED' | 'DUPLICATE' | 'REJECTED';

// ---- errors (members of result unions) ----
export interface LimitViolation {
  field: string | null;
  limit: string | null;
  actual: string | null;
  message: string | null;
}
/** `notFoundId` is the id that was looked up (aliased: it would clash with Episode.id in a union selection). */
export interface NotFoundError {
  __typename: 'NotFoundError';
  message: string;
  entity: string;
  notFoundId: string;
}
export interface InputLimitError {
  __typename: 'InputLimitError';
  message: string;
  violations: LimitViolation[];
}
export interface IllegalTransitionError {
  __typename: 'IllegalTransitionError';
  message: string;
  from: string;
  action: string;
  allowed: string[];
}
export interface LeaseError {
  __typename: 'LeaseError';
  message: string;
  leaseId: string;
  rule: string;
  violations: LimitViolation[] | null;
}
export interface IdempotencyConflictError {
  __typename: 'IdempotencyConflictError';
  message: string;
  dedupeKey: string;
  existingEpisodeId: string;
}
/** The work item's loop of episodes has stopped (or started all its max episodes); resumeWorkItem lets it go on. */
export interface LoopStoppedError {
  __typename: 'LoopStoppedError';
  message: string;
  workItemId: string;
  stopCondition: EpisodeStopReason;
}

// ---- inputs ----
export interface TaskContextInput {
  language?: string;
  framework?: string;
  complexity?: Complexity;
  domain?: string;
  tags?: string[];
}
export interface BudgetInput {
  maxSteps?: number;
  maxTokens?: number;
  maxWallMs?: number;
  maxToolCalls?: number;
}
export interface StartEpisodeInput {
  taskDescription: string;
  taskType: string;
  agent?: string;
  budget?: BudgetInput;
  context?: TaskContextInput;
  dedupeKey?: string;
  episodeNumber?: number;
  goalSpec?: Json;
  leaseId?: string;
  workItemId?: string;
  maxAttempts?: number;
  metadata?: Json;
  mode?: 'LIVE' | 'DRY_RUN';
  onBudgetExhausted?: 'FAIL' | 'CONVERGE';
  parentEpisodeId?: string;
  /** Importing a past run: when it really started. */
  startedAt?: DateTimeString;
  importSource?: ImportSourceInput;
}
export interface ImportSourceInput {
  format: string;
  sourceHash: string;
  name?: string;
}
export interface StepResultInput {
  kind: 'SUCCESS' | 'ERROR' | 'TIMEOUT';
  output?: string;
  message?: string;
  errorClass?: string;
}
export interface StepInput {
  kind?: string;
  tool?: string;
  action?: string;
  parameters?: Json;
  result?: StepResultInput;
  observation?: string;
  latencyMs?: number;
  tokens?: number;
  cost?: number;
  sideEffectKey?: string;
  worldBefore?: Json;
  worldAfter?: Json;
  metadata?: Json;
  startedAt?: DateTimeString;
  endedAt?: DateTimeString;
}
export interface OutcomeInput {
  kind: OutcomeKind;
  verdict?: string;
  artifacts?: string[];
  completed?: string[];
  failed?: string[];
  reason?: string;
  details?: string;
}
export interface VirtueScoreInput {
  name: string;
  score: number;
}
export interface LeaseBudgetInput {
  episodes?: number;
  toolCalls?: number;
  tokens?: number;
  wallMs?: number;
}
export interface EpisodeFilter {
  agent?: string;
  domain?: string;
  language?: string;
  outcome?: OutcomeKind;
  startedAfter?: DateTimeString;
  startedBefore?: DateTimeString;
  status?: EpisodeStatus[];
  tags?: string[];
  taskType?: string;
  text?: string;
  workItemId?: string;
}
export interface RetrievalTaskInput {
  description: string;
  taskType?: string;
  context?: { language?: string; framework?: string; domain?: string; complexity?: Complexity; tags?: string[] };
}
export interface RelevantEpisodeFilter {
  agent?: string;
  endedAfter?: DateTimeString;
  minReward?: number;
}
export interface LedgerEventFilter {
  episodeId?: string;
  workItemId?: string;
  types?: string[];
}

// ---- objects ----
export interface EpisodeStopReason {
  kind: StopReasonKind;
  reason: string | null;
  resource: string | null;
  recoverable: boolean | null;
  isSuccessful: boolean;
  canContinue: boolean;
}
export interface Outcome {
  kind: OutcomeKind;
  verdict: string | null;
  artifacts: string[] | null;
  completed: string[] | null;
  failed: string[] | null;
  reason: string | null;
  details: string | null;
}
export interface BudgetUsage {
  resource: string;
  used: number;
  limit: number | null;
  remaining: number | null;
  fraction: number | null;
}
export interface VirtueScore {
  name: string;
  score: number;
}
export interface Critique {
  verdict: string;
  score: number | null;
  feedback: string | null;
  virtueScores: VirtueScore[];
}
export interface TaskContext {
  language: string | null;
  framework: string | null;
  complexity: Complexity | null;
  domain: string | null;
  tags: string[];
}
export interface Checkpoint {
  id: string;
  label: string | null;
  state: Json;
  stepNumber: number;
  createdAt: DateTimeString;
}

export interface Episode {
  __typename?: 'Episode';
  id: string;
  status: EpisodeStatus;
  phase: string | null;
  episodeNumber: number | null;
  taskDescription: string;
  taskType: string;
  agent: string | null;
  dedupeKey: string | null;
  mode: 'LIVE' | 'DRY_RUN';
  attempt: number;
  maxAttempts: number;
  stepCount: number;
  usedTokens: BigIntString;
  usedToolCalls: number;
  usedCost: number;
  goalSpec: Json;
  metadata: Json;
  blockedReason: string | null;
  approvalRequest: Json;
  startedAt: DateTimeString;
  endedAt: DateTimeString | null;
  deadlineAt: DateTimeString | null;
  context: TaskContext | null;
  outcome: Outcome | null;
  stopReason: EpisodeStopReason | null;
  budgetUsage: BudgetUsage[];
  critique: Critique | null;
  checkpoints: Checkpoint[];
  workItem: { id: string; lastEpisodeNumber: number } | null;
  lease: { id: string } | null;
}

export interface Step {
  id: string;
  stepNumber: number;
  kind: string;
  tool: string | null;
  action: string | null;
  parameters: Json;
  argsHash: string | null;
  contentHash: string | null;
  result: Json;
  resultKind: string | null;
  observation: string | null;
  latencyMs: number | null;
  tokens: number | null;
  cost: number | null;
  sideEffectKey: string | null;
  worldBefore: Json;
  worldAfter: Json;
  metadata: Json;
  contentRefs: StepContentRef[];
  startedAt: DateTimeString | null;
  endedAt: DateTimeString | null;
  createdAt: DateTimeString;
}

/** A step field past its inline limit, kept as a blob (stored) or truncated. */
export interface StepContentRef {
  field: string;
  hash: string;
  sizeBytes: number;
  stored: boolean;
}

export interface StepItemResult {
  index: number;
  status: StepItemStatus;
  stepNumber: number | null;
  reason: string | null;
  message: string | null;
  step: { id: string; stepNumber: number } | null;
  violations: LimitViolation[] | null;
}

export interface LeaseBudget {
  episodes: number | null;
  toolCalls: number | null;
  tokens: number | null;
  wallMs: number | null;
}
export interface Lease {
  id: string;
  issuer: string;
  holder: string;
  scope: string[];
  expiresAt: DateTimeString;
  revokedAt: DateTimeString | null;
  budget: LeaseBudget;
  /** Used by ended episodes, under this lease and every lease derived from it. */
  consumed: LeaseBudget;
  /** Held by running/blocked episodes and promised to child leases; null where unlimited. */
  reserved: LeaseBudget;
  /** budget - consumed - reserved, at least 0: what a new episode or child can take; null where unlimited. */
  remaining: LeaseBudget;
  workItem: { id: string };
  parent: { id: string } | null;
}
export interface LeaseCharge {
  ok: boolean;
  exhausted: string | null;
  overdrawn: string | null;
  hold: LeaseBudget;
  charged: LeaseBudget;
  released: LeaseBudget;
  remainingEpisodes: number | null;
  remainingToolCalls: number | null;
  remainingTokens: number | null;
  remainingWallMs: number | null;
}
export interface WorkItem {
  id: string;
  title: string;
  description: string | null;
  lastEpisodeNumber: number;
  maxEpisodes: number | null;
  /** Why the loop of episodes stopped; null while it may go on. */
  stopCondition: EpisodeStopReason | null;
  stoppedAt: DateTimeString | null;
  createdAt: DateTimeString;
}
export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: DateTimeString;
  expiresAt: DateTimeString | null;
  revokedAt: DateTimeString | null;
  lastUsedAt: DateTimeString | null;
}

export interface SignedTreeHead {
  treeSize: BigIntString;
  rootHash: string;
  headHash: string;
  issuedAt: string;
  signature: string;
  keyId: string;
  tenantId: string;
}
export interface LedgerHead {
  seq: BigIntString;
  hash: string;
  latestCheckpoint: SignedTreeHead | null;
}
export interface SignedTreeHeadPage {
  __typename: 'SignedTreeHeadPage';
  checkpoints: SignedTreeHead[];
  hasNextPage: boolean;
}
export interface NotCheckpointedError {
  __typename: 'NotCheckpointedError';
  message: string;
  seq: BigIntString;
  checkpointTreeSize: BigIntString | null;
  retryAfterMs: number;
}
/** A ledger event as the chain hashes it: seq as a number. */
export type LedgerEvent = StoredLedgerEvent;
export interface LedgerVerification {
  ok: boolean;
  checked: number;
  stepsChecked: number;
  rowsChecked: number;
  checkpointsChecked: number;
  firstBadSeq: BigIntString | null;
  problem: string | null;
  reason: string | null;
  checkpointTreeSize: BigIntString | null;
}

export interface PageInfo {
  hasNextPage: boolean;
  endCursor: string | null;
}
export interface Connection<T> {
  edges: Array<{ cursor: string; node: T }>;
  pageInfo: PageInfo;
}

// ---- payloads and result unions ----
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
export type LogStepResult = LogStepPayload | Transition;
export type EpisodeResult = EpisodePayload | Transition;
export type FinishEpisodeResult = FinishEpisodePayload | Transition;
export type CreateWorkItemResult = WorkItemPayload | InputLimitError;
export type ResumeWorkItemResult = WorkItemPayload | InputLimitError | NotFoundError;
export type IssueLeaseResult = LeasePayload | InputLimitError | LeaseError | NotFoundError;
export type RevokeLeaseResult = LeasePayload | NotFoundError;
export type CreateApiKeyResult = CreatedApiKey | InputLimitError;
export type RevokeApiKeyResult = ({ __typename: 'ApiKey' } & ApiKey) | NotFoundError;
export type EpisodeQueryResult = ({ __typename: 'Episode' } & Episode) | NotFoundError;
export type LeaseQueryResult = ({ __typename: 'Lease' } & Lease) | NotFoundError;
export type WorkItemQueryResult = ({ __typename: 'WorkItem' } & WorkItem) | NotFoundError;
export type LedgerEventsResult = LedgerEventPage | InputLimitError;
export type EpisodeProofBundleResult = EpisodeProofBundle | NotFoundError | NotCheckpointedError;
export type LedgerCheckpointsResult = SignedTreeHeadPage | InputLimitError;
export type RelevantEpisodesResult = RelevantEpisodes | InputLimitError;
export type VerifyLedgerResult = ({ __typename: 'LedgerVerification' } & LedgerVerification) | InputLimitError;
