// The API's object shapes, as the client's documents select them.

import type { StoredLedgerEvent } from '../ledger/format/hash.ts';
import type { StopReasonKind } from '../stops/stop-reason.ts';
import type { BigIntString, Complexity, DateTimeString, EpisodeStatus, Json, OutcomeKind, StepItemStatus } from './types-scalars.ts';

export interface LimitViolation {
  field: string | null;
  limit: string | null;
  actual: string | null;
  message: string | null;
}
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
  /** False: an imported run without times; startedAt/endedAt are when it was imported. */
  timesKnown: boolean;
  /** Null when timesKnown is false. */
  wallTimeMs: number | null;
  deadlineAt: DateTimeString | null;
  /** When forgetEpisode (or retention) deleted its texts and derived values (docs/LEDGER.md §3.4); null while kept. */
  forgottenAt: DateTimeString | null;
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
/** A stored value an event hashes (docs/LEDGER.md §3.3). */
export interface HashedRow {
  kind: string;
  id: string;
  value: unknown;
}
export interface HashedRowList {
  __typename: 'HashedRowList';
  rows: HashedRow[];
}
/** RFC 9162 §2.1.4 proof that the tree of size fromSize is a prefix of the tree of size toSize. */
export interface ConsistencyProof {
  __typename: 'ConsistencyProof';
  fromSize: BigIntString;
  toSize: BigIntString;
  fromRoot: string;
  toRoot: string;
  proof: string[];
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
  /** Of the steps checked, those forgotten (docs/LEDGER.md §3.4). */
  stepsForgotten: number;
  rowsChecked: number;
  /** Hashed rows an episode.forgotten event names: deleted, checked to be empty (docs/LEDGER.md §3.4). */
  rowsForgotten: number;
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
