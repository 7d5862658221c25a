export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /** A 64-bit integer, serialized as a decimal string so no client loses precision. */
  BigInt: { input: string; output: string; }
  /** An instant, serialized as an ISO 8601 string in UTC with milliseconds. */
  DateTime: { input: string; output: string; }
  /** Any JSON value. */
  JSON: { input: unknown; output: unknown; }
};

/** An API key. The secret is shown once, when the key is created, and never again. */
export type ApiKey = {
  __typename?: 'ApiKey';
  createdAt: Maybe<Scalars['DateTime']['output']>;
  expiresAt: Maybe<Scalars['DateTime']['output']>;
  id: Maybe<Scalars['ID']['output']>;
  lastUsedAt: Maybe<Scalars['DateTime']['output']>;
  name: Maybe<Scalars['String']['output']>;
  prefix: Maybe<Scalars['String']['output']>;
  revokedAt: Maybe<Scalars['DateTime']['output']>;
  scopes: Maybe<Array<Scalars['String']['output']>>;
};

/** One arm's episodes (assigned on their first retrieval) and the measures of those that ended. */
export type ArmMeasures = {
  __typename?: 'ArmMeasures';
  /** memory, control, interleaved, or unasked (runs in scope that asked for nothing). */
  arm: Maybe<Scalars['String']['output']>;
  assigned: Maybe<Scalars['Int']['output']>;
  /** Runs with an outcome: what the rates and means are over. */
  ended: Maybe<Scalars['Int']['output']>;
  meanCost: Maybe<Scalars['Float']['output']>;
  meanReward: Maybe<Scalars['Float']['output']>;
  meanSteps: Maybe<Scalars['Float']['output']>;
  meanTokens: Maybe<Scalars['Float']['output']>;
  /** Over runs whose times are known. */
  meanWallMs: Maybe<Scalars['Float']['output']>;
  successRate: Maybe<Scalars['Float']['output']>;
  successes: Maybe<Scalars['Int']['output']>;
};

/** Step content kept whole: content-addressed by BLAKE3, per tenant. */
export type Blob = {
  __typename?: 'Blob';
  content: Maybe<Scalars['String']['output']>;
  hash: Maybe<Scalars['String']['output']>;
  sizeBytes: Maybe<Scalars['Int']['output']>;
};

/** What the server does when a token or step budget runs out (wall time always fails). */
export type BudgetExhaustedPolicy =
  | 'CONVERGE'
  | 'FAIL';

export type BudgetExhaustionCount = {
  __typename?: 'BudgetExhaustionCount';
  count: Maybe<Scalars['Int']['output']>;
  resource: Maybe<Scalars['String']['output']>;
};

/** Limits the server enforces; omitted means unlimited. */
export type BudgetInput = {
  maxSteps?: InputMaybe<Scalars['Int']['input']>;
  maxTokens?: InputMaybe<Scalars['Int']['input']>;
  /** Steps of kind tool_call. Under a lease, each cap the lease limits is lowered to what the episode holds on it. */
  maxToolCalls?: InputMaybe<Scalars['Int']['input']>;
  maxWallMs?: InputMaybe<Scalars['Int']['input']>;
};

/** One budgeted resource: how much is used against its limit (null limit = unlimited). */
export type BudgetUsage = {
  __typename?: 'BudgetUsage';
  /** used / limit, for progress bars */
  fraction: Maybe<Scalars['Float']['output']>;
  limit: Maybe<Scalars['Float']['output']>;
  remaining: Maybe<Scalars['Float']['output']>;
  /** tokens, tool_calls, steps or wall_time */
  resource: Maybe<Scalars['String']['output']>;
  used: Maybe<Scalars['Float']['output']>;
};

export type Checkpoint = {
  __typename?: 'Checkpoint';
  createdAt: Maybe<Scalars['DateTime']['output']>;
  id: Maybe<Scalars['ID']['output']>;
  label: Maybe<Scalars['String']['output']>;
  state: Maybe<Scalars['JSON']['output']>;
  /** Steps journaled when the checkpoint was saved. */
  stepNumber: Maybe<Scalars['Int']['output']>;
};

export type Complexity =
  | 'COMPLEX'
  | 'MODERATE'
  | 'SIMPLE';

/** PROOF(fromSize, D[0:toSize]) of docs/LEDGER.md §4.2; fromSize 0 gives the empty proof and the empty tree's root. */
export type ConsistencyProof = {
  __typename?: 'ConsistencyProof';
  fromRoot: Maybe<Scalars['String']['output']>;
  fromSize: Maybe<Scalars['BigInt']['output']>;
  proof: Maybe<Array<Scalars['String']['output']>>;
  toRoot: Maybe<Scalars['String']['output']>;
  toSize: Maybe<Scalars['BigInt']['output']>;
};

export type ContextPackInput = {
  /** BLAKE3 of the pack manifest, if any. */
  manifestHash?: InputMaybe<Scalars['String']['input']>;
  /** BLAKE3 of the pack: 64 lowercase hex digits. */
  packHash: Scalars['String']['input'];
};

/** What a holdout's control arm is served (or what an interleaving drafts against): NOTHING, FIXED_FORMULA (the ranking without the learned model), BM25 (the same candidates by BM25 over everything a run left, alone). */
export type ControlRanking =
  | 'BM25'
  | 'FIXED_FORMULA'
  | 'NOTHING';

export type CreatedApiKey = {
  __typename?: 'CreatedApiKey';
  key: Maybe<ApiKey>;
  /** The full key. Store it now: it cannot be shown again. */
  token: Maybe<Scalars['String']['output']>;
};

/** The critic result: verdict, score, feedback and named virtue scores. */
export type Critique = {
  __typename?: 'Critique';
  feedback: Maybe<Scalars['String']['output']>;
  score: Maybe<Scalars['Float']['output']>;
  verdict: Maybe<Scalars['String']['output']>;
  virtueScores: Maybe<Array<VirtueScore>>;
};

/** Aggregates over the episodes started in [from, to), widened to whole hours, computed in PostgreSQL from an hourly rollup. Steps, tokens, latency and tool errors count with their run, by when it started. */
export type Dashboard = {
  __typename?: 'Dashboard';
  bucketSeconds: Maybe<Scalars['Int']['output']>;
  /** Per resource. */
  budgetExhaustions: Maybe<Array<BudgetExhaustionCount>>;
  from: Maybe<Scalars['DateTime']['output']>;
  /** Step latency, ms, from a histogram with 10% wide buckets (within 5%). */
  latencyP50: Maybe<Scalars['Float']['output']>;
  /** Step latency, ms, from a histogram with 10% wide buckets (within 5%). */
  latencyP95: Maybe<Scalars['Float']['output']>;
  series: Maybe<Array<DashboardBucket>>;
  steps: Maybe<Scalars['Int']['output']>;
  to: Maybe<Scalars['DateTime']['output']>;
  /** The most used tools, with their error rates. */
  tools: Maybe<Array<ToolStats>>;
  totals: Maybe<DashboardTotals>;
  /** Tokens and cost of the model calls of the runs started in the range, per model, the most used first (at most 50). */
  usageByModel: Maybe<Array<ModelUsage>>;
};

/** One hour (ranges up to 14 days), one UTC day (up to 731 days) or one week of the range. Every figure counts the runs started in it. */
export type DashboardBucket = {
  __typename?: 'DashboardBucket';
  blocked: Maybe<Scalars['Int']['output']>;
  budgetExhaustions: Maybe<Scalars['Int']['output']>;
  cancelled: Maybe<Scalars['Int']['output']>;
  completed: Maybe<Scalars['Int']['output']>;
  cost: Maybe<Scalars['Float']['output']>;
  escalated: Maybe<Scalars['Int']['output']>;
  failed: Maybe<Scalars['Int']['output']>;
  /** Outcome failure. */
  failures: Maybe<Scalars['Int']['output']>;
  latencyP50: Maybe<Scalars['Float']['output']>;
  latencyP95: Maybe<Scalars['Float']['output']>;
  /** Outcome partial. */
  partials: Maybe<Scalars['Int']['output']>;
  /** Active patterns first seen in the bucket. */
  patternsLearned: Maybe<Scalars['Int']['output']>;
  /** Retrievals a completion credited or debited. */
  retrievalsCredited: Maybe<Scalars['Int']['output']>;
  /** The tenant's receipts (they record no task type or domain). */
  retrievalsServed: Maybe<Scalars['Int']['output']>;
  running: Maybe<Scalars['Int']['output']>;
  /** Episodes started in the bucket. */
  runs: Maybe<Scalars['Int']['output']>;
  start: Maybe<Scalars['DateTime']['output']>;
  /** Steps of the runs started in the bucket. */
  steps: Maybe<Scalars['Int']['output']>;
  /** Outcome success. */
  successes: Maybe<Scalars['Int']['output']>;
  tokens: Maybe<Scalars['Float']['output']>;
};

export type DashboardFilter = {
  domain?: InputMaybe<Scalars['String']['input']>;
  /** Omitted: all time, from the hour of the tenant's first run. */
  from?: InputMaybe<Scalars['DateTime']['input']>;
  taskType?: InputMaybe<Scalars['String']['input']>;
  /** Exclusive; at most 3653 days after from. Omitted: the end of the current hour, or for all time (from omitted too) the end of the hour of the tenant's latest run. */
  to?: InputMaybe<Scalars['DateTime']['input']>;
};

export type DashboardTotals = {
  __typename?: 'DashboardTotals';
  budgetExhaustions: Maybe<Scalars['Int']['output']>;
  cost: Maybe<Scalars['Float']['output']>;
  /** Runs with an outcome. */
  ended: Maybe<Scalars['Int']['output']>;
  failures: Maybe<Scalars['Int']['output']>;
  partials: Maybe<Scalars['Int']['output']>;
  patternsLearned: Maybe<Scalars['Int']['output']>;
  retrievalsCredited: Maybe<Scalars['Int']['output']>;
  retrievalsServed: Maybe<Scalars['Int']['output']>;
  runs: Maybe<Scalars['Int']['output']>;
  /** successes / ended; null when nothing ended. */
  successRate: Maybe<Scalars['Float']['output']>;
  successes: Maybe<Scalars['Int']['output']>;
  tokens: Maybe<Scalars['Float']['output']>;
};

export type Episode = {
  __typename?: 'Episode';
  agent: Maybe<Scalars['String']['output']>;
  approvalRequest: Maybe<Scalars['JSON']['output']>;
  attempt: Maybe<Scalars['Int']['output']>;
  blockedReason: Maybe<Scalars['String']['output']>;
  /** Usage against budget for tokens, tool calls, steps and wall time (no wall_time line when timesKnown is false). */
  budgetUsage: Maybe<Array<BudgetUsage>>;
  checkpoints: Maybe<Array<Checkpoint>>;
  context: Maybe<TaskContext>;
  /** False when some model call used tokens whose cost is unknown: usedCost then counts only the known part. */
  costKnown: Maybe<Scalars['Boolean']['output']>;
  critique: Maybe<Critique>;
  deadlineAt: Maybe<Scalars['DateTime']['output']>;
  dedupeKey: Maybe<Scalars['String']['output']>;
  /** When the episode ended; when it was imported if timesKnown is false. */
  endedAt: Maybe<Scalars['DateTime']['output']>;
  /** Monotonic per work item, from 1. */
  episodeNumber: Maybe<Scalars['Int']['output']>;
  /** Overall retrieval feedback in [-1, 1] over every query. Ranking uses the query-relative credit (RelevanceScore.feedback). */
  feedbackCredit: Maybe<Scalars['Float']['output']>;
  /** When forgetEpisode (or RUN_RETENTION_DAYS) deleted its texts, outcome, critique, reward, reflection, checkpoints and step content; its episode.forgotten ledger event names each. Null while kept. A forgotten run is no longer listed or retrieved. */
  forgottenAt: Maybe<Scalars['DateTime']['output']>;
  goalSpec: Maybe<Scalars['JSON']['output']>;
  id: Maybe<Scalars['ID']['output']>;
  /** The last step that ended in an error or a timeout; null when none did. A warning about a failed run shows it. */
  lastError: Maybe<LastError>;
  learningState: Maybe<LearningState>;
  lease: Maybe<Lease>;
  maxAttempts: Maybe<Scalars['Int']['output']>;
  metadata: Maybe<Scalars['JSON']['output']>;
  mode: Maybe<EpisodeMode>;
  onBudgetExhausted: Maybe<BudgetExhaustedPolicy>;
  outcome: Maybe<Outcome>;
  parentEpisode: Maybe<Episode>;
  phase: Maybe<Scalars['String']['output']>;
  reflection: Maybe<Reflection>;
  /** The retrievals this episode used (completeEpisode usedRetrievals) and the credit its outcome gave them. */
  retrievalCredits: Maybe<Array<RetrievalCredit>>;
  reward: Maybe<Reward>;
  /** When the episode started; when it was imported if timesKnown is false. */
  startedAt: Maybe<Scalars['DateTime']['output']>;
  status: Maybe<EpisodeStatus>;
  stepCount: Maybe<Scalars['Int']['output']>;
  steps: Maybe<EpisodeStepsConnection>;
  stopReason: Maybe<StopReason>;
  taskDescription: Maybe<Scalars['String']['output']>;
  taskType: Maybe<Scalars['String']['output']>;
  /** False for an imported run whose format records no times (e.g. SWE-agent .traj): startedAt and endedAt are then when it was imported, wallTimeMs is null, its reward has no speed terms and retrieval gives it neutral recency. */
  timesKnown: Maybe<Scalars['Boolean']['output']>;
  updatedAt: Maybe<Scalars['DateTime']['output']>;
  /** The episode's tokens and cost per model, the most used first. */
  usageByModel: Maybe<Array<ModelUsage>>;
  usedCost: Maybe<Scalars['Float']['output']>;
  usedTokens: Maybe<Scalars['BigInt']['output']>;
  usedToolCalls: Maybe<Scalars['Int']['output']>;
  /** Milliseconds from start to end (to now while it runs); null when timesKnown is false. */
  wallTimeMs: Maybe<Scalars['Float']['output']>;
  workItem: Maybe<WorkItem>;
};


export type EpisodeStepsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
};

export type EpisodeFilter = {
  agent?: InputMaybe<Scalars['String']['input']>;
  domain?: InputMaybe<Scalars['String']['input']>;
  language?: InputMaybe<Scalars['String']['input']>;
  outcome?: InputMaybe<OutcomeKind>;
  /** The runs of one session: the episode's metadata.sessionId (OTLP: session.id, else gen_ai.conversation.id; docs/OTLP.md). */
  sessionId?: InputMaybe<Scalars['String']['input']>;
  startedAfter?: InputMaybe<Scalars['DateTime']['input']>;
  startedBefore?: InputMaybe<Scalars['DateTime']['input']>;
  /** Any of these statuses. */
  status?: InputMaybe<Array<EpisodeStatus>>;
  /** Episodes carrying all of these tags. */
  tags?: InputMaybe<Array<Scalars['String']['input']>>;
  taskType?: InputMaybe<Scalars['String']['input']>;
  /** Case-insensitive match in the task description. */
  text?: InputMaybe<Scalars['String']['input']>;
  workItemId?: InputMaybe<Scalars['ID']['input']>;
};

export type EpisodeMode =
  | 'DRY_RUN'
  | 'LIVE';

export type EpisodePayload = {
  __typename?: 'EpisodePayload';
  episode: Maybe<Episode>;
};

export type EpisodeProofBundle = {
  __typename?: 'EpisodeProofBundle';
  /** The bundle of docs/LEDGER.md §6: save it and check it with `episodic verify --public-key <trusted hex> <file>`. */
  bundle: Maybe<Scalars['JSON']['output']>;
  eventCount: Maybe<Scalars['Int']['output']>;
  stepCount: Maybe<Scalars['Int']['output']>;
  treeHead: Maybe<SignedTreeHead>;
};

export type EpisodeStatus =
  | 'BLOCKED'
  | 'CANCELLED'
  | 'COMPLETED'
  | 'ESCALATED'
  | 'FAILED'
  | 'RUNNING';

export type EpisodeStepsConnection = {
  __typename?: 'EpisodeStepsConnection';
  edges: Array<EpisodeStepsConnectionEdge>;
  pageInfo: PageInfo;
};

export type EpisodeStepsConnectionEdge = {
  __typename?: 'EpisodeStepsConnectionEdge';
  cursor: Scalars['String']['output'];
  node: Step;
};

/** An expected failure. Every error type implements this; branch on __typename. */
export type Error = {
  message: Maybe<Scalars['String']['output']>;
};

/** An experiment on the memory (docs/LEARNING.md, "Does the memory help?"). Started, paused and resumed with ledger events. */
export type Experiment = {
  __typename?: 'Experiment';
  control: Maybe<ControlRanking>;
  /** Holdout: the share of episodes served the control arm (0 for an interleaving). */
  controlShare: Maybe<Scalars['Float']['output']>;
  id: Maybe<Scalars['ID']['output']>;
  kind: Maybe<ExperimentKind>;
  /** Ended runs per arm (holdout) or decided retrievals (interleaving) before the answer claims anything. */
  minSample: Maybe<Scalars['Int']['output']>;
  name: Maybe<Scalars['String']['output']>;
  pausedAt: Maybe<Scalars['DateTime']['output']>;
  scopeAgent: Maybe<Scalars['String']['output']>;
  scopeTaskType: Maybe<Scalars['String']['output']>;
  scopeWorkItemId: Maybe<Scalars['ID']['output']>;
  /** Assignment seed: an episode is in control when BLAKE3(seed, episode id) as a number in [0, 1) is below controlShare. */
  seed: Maybe<Scalars['String']['output']>;
  startedAt: Maybe<Scalars['DateTime']['output']>;
  status: Maybe<ExperimentStatus>;
};

/** HOLDOUT serves a seeded share of episodes the control arm; INTERLEAVE serves every episode both rankings merged (team draft). */
export type ExperimentKind =
  | 'HOLDOUT'
  | 'INTERLEAVE';

/** Narrows the experiment to the tenant's episodes of a work item, an agent or a task type (all given must hold). */
export type ExperimentScopeInput = {
  agent?: InputMaybe<Scalars['String']['input']>;
  taskType?: InputMaybe<Scalars['String']['input']>;
  workItemId?: InputMaybe<Scalars['ID']['input']>;
};

export type ExperimentStatus =
  | 'PAUSED'
  | 'RUNNING';

export type ExtractEpisodePatternsPayload = {
  __typename?: 'ExtractEpisodePatternsPayload';
  episode: Maybe<Episode>;
  /** null when extraction already ran for this episode. */
  extraction: Maybe<PatternExtraction>;
};

/** SYNC extracts patterns in the completing transaction; ASYNC (default) queues a job any server process runs. */
export type ExtractPatternsMode =
  | 'ASYNC'
  | 'SYNC';

/** One feature of the tenant's learned ranker: its value for this episode and its part of the model's score (weight × standardised value). */
export type FeatureContribution = {
  __typename?: 'FeatureContribution';
  contribution: Maybe<Scalars['Float']['output']>;
  /** taskText, work, change (log1p of BM25), their Relative shares of the best candidate, sameRepository, contextMatch, trigram. */
  name: Maybe<Scalars['String']['output']>;
  value: Maybe<Scalars['Float']['output']>;
};

export type FinishEpisodePayload = {
  __typename?: 'FinishEpisodePayload';
  episode: Maybe<Episode>;
  /** The run of extractPatterns: SYNC; null when queued. */
  extraction: Maybe<PatternExtraction>;
  /** Credit given for usedRetrievals. */
  feedback: Maybe<RetrievalFeedback>;
  leaseCharge: Maybe<LeaseCharge>;
  /** The work item loop's stop condition after this episode (in priority order: budget > the holon's stop > max episodes); null: the loop may go on, or the episode has no work item. */
  stopCondition: Maybe<StopReason>;
};

export type ForgetEpisodePayload = {
  __typename?: 'ForgetEpisodePayload';
  /** Blobs deleted because no kept step references them any more. */
  blobsDeleted: Maybe<Scalars['Int']['output']>;
  episodeId: Maybe<Scalars['ID']['output']>;
  /** False when the episode had been forgotten before: nothing was done, no event written. */
  forgotten: Maybe<Scalars['Boolean']['output']>;
  /** Hashed values deleted (the record, outcome, critique, reward, reflection, checkpoint states), each named in the episode.forgotten event. */
  rowsForgotten: Maybe<Scalars['Int']['output']>;
  /** Step numbers whose content this call forgot. */
  stepsForgotten: Maybe<Array<Scalars['Int']['output']>>;
};

export type ForgetStepsPayload = {
  __typename?: 'ForgetStepsPayload';
  /** Blobs deleted because no kept step references them any more. */
  blobsDeleted: Maybe<Scalars['Int']['output']>;
  episodeId: Maybe<Scalars['ID']['output']>;
  /** Step numbers whose content was forgotten by this call (not those forgotten before). */
  forgotten: Maybe<Array<Scalars['Int']['output']>>;
};

/** A stored value an event hashes (docs/LEDGER.md §3.3): contentHash(value) is the hash the latest such event carries. */
export type HashedRow = {
  __typename?: 'HashedRow';
  /** The episode, checkpoint or retrieval it belongs to. */
  id: Maybe<Scalars['String']['output']>;
  /** episode.record, episode.outcome, episode.critique, episode.reward, episode.reflection, checkpoint.state, retrieval.results, episode.reward_score, episode.context_pack, retrieval.results_hash */
  kind: Maybe<Scalars['String']['output']>;
  value: Maybe<Scalars['JSON']['output']>;
};

export type HashedRowList = {
  __typename?: 'HashedRowList';
  rows: Maybe<Array<HashedRow>>;
};

export type HashedRowRef = {
  id: Scalars['String']['input'];
  kind: Scalars['String']['input'];
};

/** The dedupeKey was used before with different input. */
export type IdempotencyConflictError = Error & {
  __typename?: 'IdempotencyConflictError';
  dedupeKey: Maybe<Scalars['String']['output']>;
  existingEpisodeId: Maybe<Scalars['ID']['output']>;
  message: Maybe<Scalars['String']['output']>;
};

/** The episode is not in a state that allows this action. Nothing changed. */
export type IllegalTransitionError = Error & {
  __typename?: 'IllegalTransitionError';
  action: Maybe<Scalars['String']['output']>;
  allowed: Maybe<Array<Scalars['String']['output']>>;
  from: Maybe<Scalars['String']['output']>;
  message: Maybe<Scalars['String']['output']>;
};

/** TOO_FEW_RUNS until the minimum sample; then RAISED or LOWERED when p < 0.05, else NO_DIFFERENCE. */
export type ImpactVerdict =
  | 'LOWERED'
  | 'NO_DIFFERENCE'
  | 'RAISED'
  | 'TOO_FEW_RUNS';

export type ImportRunPayload = {
  __typename?: 'ImportRunPayload';
  /** What completeEpisode would answer; null when nothing was logged, or when a budget stopped the episode during its steps. */
  completion: Maybe<FinishEpisodePayload>;
  /** True when the run's dedupeKey matched an earlier import of it. */
  deduplicated: Maybe<Scalars['Boolean']['output']>;
  episode: Maybe<Episode>;
  /** What logSteps would answer for the steps, one result per step; null when the run had been imported and had ended before. */
  steps: Maybe<LogStepsPayload>;
};

export type ImportSourceInput = {
  /** e.g. mini-swe-agent, swe-agent, jsonl (at most 64 characters). */
  format: Scalars['String']['input'];
  /** The file name, at most 1 KB. */
  name?: InputMaybe<Scalars['String']['input']>;
  /** BLAKE3 of the source file: 64 lowercase hex digits. */
  sourceHash: Scalars['String']['input'];
};

/** PATH(seq - 1, D[0:treeSize]) of docs/LEDGER.md §4.1, against the latest signed checkpoint. */
export type InclusionProof = {
  __typename?: 'InclusionProof';
  auditPath: Maybe<Array<Scalars['String']['output']>>;
  checkpoint: Maybe<SignedTreeHead>;
  /** The event's chain hash: the leaf data. */
  eventHash: Maybe<Scalars['String']['output']>;
  /** leafHash(bytes(eventHash)) = H(0x00 || leaf data) (§4), the value the audit path starts from. */
  leafHash: Maybe<Scalars['String']['output']>;
  leafIndex: Maybe<Scalars['BigInt']['output']>;
  seq: Maybe<Scalars['BigInt']['output']>;
  treeSize: Maybe<Scalars['BigInt']['output']>;
};

/** The input broke a limit or a rule. Nothing was written. */
export type InputLimitError = Error & {
  __typename?: 'InputLimitError';
  message: Maybe<Scalars['String']['output']>;
  violations: Maybe<Array<LimitViolation>>;
};

export type InvalidStepPolicy =
  /** A step that breaks a limit refuses the whole call with an InputLimitError (the default). */
  | 'REFUSE_CALL'
  /** Such a step is REJECTED (reason invalid, with its violations) and the others are journaled. */
  | 'REJECT_STEP';

/** What logSteps does with a text field (action, observation, result output or message) past its inline limit. */
export type LargeContentMode =
  /** Keep it whole as a content-addressed blob (BLAKE3, at most 16 MB per field, BLOB_TOTAL_CAP_BYTES per tenant); the field holds a head + tail preview. */
  | 'BLOB'
  /** Refuse it as a limit violation (the default). */
  | 'REFUSE'
  /** Keep a head + tail preview, recording the original size and BLAKE3 hash in contentRefs (stored: false). */
  | 'TRUNCATE';

/** An episode's last step that ended in an error or a timeout: what went wrong, in the run's own words. */
export type LastError = {
  __typename?: 'LastError';
  /** error or timeout */
  kind: Maybe<Scalars['String']['output']>;
  /** The last non-empty line of the step's output (at most 200 characters). */
  lastLine: Maybe<Scalars['String']['output']>;
  /** errorClass: message, as the step reported it. */
  message: Maybe<Scalars['String']['output']>;
  stepNumber: Maybe<Scalars['Int']['output']>;
  tool: Maybe<Scalars['String']['output']>;
};

/** Pattern extraction of an ended episode: NONE (no candidates), PENDING, QUEUED, DONE, SKIPPED (queue full; see the ledger). */
export type LearningState =
  | 'DONE'
  | 'NONE'
  | 'PENDING'
  | 'QUEUED'
  | 'SKIPPED';

export type Lease = {
  __typename?: 'Lease';
  /** Granted amounts; null is unlimited. */
  budget: Maybe<LeaseBudget>;
  children: Maybe<Array<Lease>>;
  /** What ended episodes used, under this lease and under every lease derived from it. */
  consumed: Maybe<LeaseBudget>;
  expiresAt: Maybe<Scalars['DateTime']['output']>;
  holder: Maybe<Scalars['String']['output']>;
  id: Maybe<Scalars['ID']['output']>;
  issuer: Maybe<Scalars['String']['output']>;
  parent: Maybe<Lease>;
  /** budget - consumed - reserved, at least 0: what a new episode or child lease can take. Null where unlimited. */
  remaining: Maybe<LeaseBudget>;
  /** Held but not spent yet: the holds of running and blocked episodes, and what each usable child lease may still spend. Null where unlimited. */
  reserved: Maybe<LeaseBudget>;
  revokedAt: Maybe<Scalars['DateTime']['output']>;
  scope: Maybe<Array<Scalars['String']['output']>>;
  workItem: Maybe<WorkItem>;
};

/** An amount per lease resource; null is unlimited (or, in a budget, not limited). */
export type LeaseBudget = {
  __typename?: 'LeaseBudget';
  episodes: Maybe<Scalars['Float']['output']>;
  tokens: Maybe<Scalars['Float']['output']>;
  toolCalls: Maybe<Scalars['Float']['output']>;
  wallMs: Maybe<Scalars['Float']['output']>;
};

/** Omitted fields are unlimited (a child lease must set every field its parent limits). */
export type LeaseBudgetInput = {
  episodes?: InputMaybe<Scalars['Int']['input']>;
  tokens?: InputMaybe<Scalars['Int']['input']>;
  toolCalls?: InputMaybe<Scalars['Int']['input']>;
  wallMs?: InputMaybe<Scalars['Int']['input']>;
};

/** What the finished episode cost its lease (charged after each episode): its hold turned into what it used, the rest released. */
export type LeaseCharge = {
  __typename?: 'LeaseCharge';
  /** What it was charged, on its lease and every ancestor; wall time up to its deadline. */
  charged: Maybe<LeaseBudget>;
  /** First resource spent out (consumed >= budget). */
  exhausted: Maybe<Scalars['String']['output']>;
  /** What the episode held while it ran (0 for what the lease does not limit). */
  hold: Maybe<LeaseBudget>;
  /** False when the charge overdrew the lease (the deduction failed, INV-EP03). */
  ok: Maybe<Scalars['Boolean']['output']>;
  /** First resource whose consumption and the other holds exceed the budget. */
  overdrawn: Maybe<Scalars['String']['output']>;
  /** The unused part of the hold, available again. */
  released: Maybe<LeaseBudget>;
  /** Unreserved remaining after the charge; likewise below. */
  remainingEpisodes: Maybe<Scalars['Float']['output']>;
  remainingTokens: Maybe<Scalars['Float']['output']>;
  remainingToolCalls: Maybe<Scalars['Float']['output']>;
  remainingWallMs: Maybe<Scalars['Float']['output']>;
};

/** The lease does not allow this: revoked, expired, exhausted, or a child lease that would widen its parent. */
export type LeaseError = Error & {
  __typename?: 'LeaseError';
  leaseId: Maybe<Scalars['ID']['output']>;
  message: Maybe<Scalars['String']['output']>;
  rule: Maybe<Scalars['String']['output']>;
  violations: Maybe<Array<LimitViolation>>;
};

export type LeasePayload = {
  __typename?: 'LeasePayload';
  lease: Maybe<Lease>;
};

/** One entry of the hash chain of a tenant. hash = BLAKE3(tag || prevHash || RFC 8785 JSON); see docs/LEDGER.md. */
export type LedgerEvent = {
  __typename?: 'LedgerEvent';
  /** Exactly as hashed: ISO 8601 UTC with milliseconds. */
  createdAt: Maybe<Scalars['String']['output']>;
  episodeId: Maybe<Scalars['ID']['output']>;
  hash: Maybe<Scalars['String']['output']>;
  payload: Maybe<Scalars['JSON']['output']>;
  prevHash: Maybe<Scalars['String']['output']>;
  /** A decimal string here; a JSON number when hashed and in exports (docs/LEDGER.md §2.2). */
  seq: Maybe<Scalars['BigInt']['output']>;
  tenantId: Maybe<Scalars['ID']['output']>;
  type: Maybe<Scalars['String']['output']>;
  workItemId: Maybe<Scalars['ID']['output']>;
};

/** Events in seq order; a cursor is the decimal seq (resume with after: <last seq>). */
export type LedgerEventConnection = {
  __typename?: 'LedgerEventConnection';
  edges: Maybe<Array<LedgerEventEdge>>;
  pageInfo: Maybe<LedgerPageInfo>;
};

export type LedgerEventEdge = {
  __typename?: 'LedgerEventEdge';
  cursor: Maybe<Scalars['String']['output']>;
  node: Maybe<LedgerEvent>;
};

export type LedgerEventFilter = {
  episodeId?: InputMaybe<Scalars['ID']['input']>;
  /** Event types, e.g. episode.started, steps.logged. */
  types?: InputMaybe<Array<Scalars['String']['input']>>;
  workItemId?: InputMaybe<Scalars['ID']['input']>;
};

export type LedgerHead = {
  __typename?: 'LedgerHead';
  /** Chain hash of event seq; the genesis hash (64 zeros) for an empty ledger. */
  hash: Maybe<Scalars['String']['output']>;
  /** null only until the first checkpoint (within CHECKPOINT_INTERVAL_MS of the tenant's creation). */
  latestCheckpoint: Maybe<SignedTreeHead>;
  /** 0 for an empty ledger. */
  seq: Maybe<Scalars['BigInt']['output']>;
};

export type LedgerPageInfo = {
  __typename?: 'LedgerPageInfo';
  endCursor: Maybe<Scalars['String']['output']>;
  hasNextPage: Maybe<Scalars['Boolean']['output']>;
};

export type LedgerPublicKey = {
  __typename?: 'LedgerPublicKey';
  algorithm: Maybe<Scalars['String']['output']>;
  keyId: Maybe<Scalars['String']['output']>;
  /** Hex of the 32-byte public key. */
  publicKey: Maybe<Scalars['String']['output']>;
};

/** What verifyLedger checked (docs/LEDGER.md §7.5). Counts are of items that verified, up to the first problem. */
export type LedgerVerification = {
  __typename?: 'LedgerVerification';
  /** Events whose hash and link verified. */
  checked: Maybe<Scalars['Int']['output']>;
  /** The latest signed checkpoint. */
  checkpointTreeSize: Maybe<Scalars['BigInt']['output']>;
  /** Signed checkpoints whose signature, head hash and root verified against the stored events. */
  checkpointsChecked: Maybe<Scalars['Int']['output']>;
  firstBadSeq: Maybe<Scalars['BigInt']['output']>;
  ok: Maybe<Scalars['Boolean']['output']>;
  problem: Maybe<Scalars['String']['output']>;
  reason: Maybe<Scalars['String']['output']>;
  /** Other hashed rows (checkpoint states, critiques, outcomes, rewards, reflections, retrievals, input hashes) compared with their events. */
  rowsChecked: Maybe<Scalars['Int']['output']>;
  /** Hashed rows (an episode record, outcome, critique, reward, reflection, checkpoint state) an episode.forgotten event names with their claimed hash: checked to hold no value any more (docs/LEDGER.md §3.4). */
  rowsForgotten: Maybe<Scalars['Int']['output']>;
  /** Step rows recomputed (and their content_hash column compared) against the hashes their events carry. */
  stepsChecked: Maybe<Scalars['Int']['output']>;
  /** Of the steps checked, those whose content was forgotten (forgetSteps): a steps.forgotten event names each with its logged hash (docs/LEDGER.md §3.4). */
  stepsForgotten: Maybe<Scalars['Int']['output']>;
};

/** One input that broke a rule: the field path as sent, the limit, and what was sent. */
export type LimitViolation = {
  __typename?: 'LimitViolation';
  actual: Maybe<Scalars['String']['output']>;
  field: Maybe<Scalars['String']['output']>;
  limit: Maybe<Scalars['String']['output']>;
  message: Maybe<Scalars['String']['output']>;
};

export type LogStepPayload = {
  __typename?: 'LogStepPayload';
  budgetExhausted: Maybe<Scalars['String']['output']>;
  episode: Maybe<Episode>;
  result: Maybe<StepItemResult>;
};

export type LogStepsOptions = {
  largeContent?: InputMaybe<LargeContentMode>;
  onInvalidStep?: InputMaybe<InvalidStepPolicy>;
};

export type LogStepsPayload = {
  __typename?: 'LogStepsPayload';
  accepted: Maybe<Scalars['Int']['output']>;
  /** The resource whose budget this call exhausted, if any. */
  budgetExhausted: Maybe<Scalars['String']['output']>;
  duplicates: Maybe<Scalars['Int']['output']>;
  episode: Maybe<Episode>;
  rejected: Maybe<Scalars['Int']['output']>;
  results: Maybe<Array<StepItemResult>>;
};

/** The work item loop of episodes has stopped (or started all its max episodes): no episode starts until resumeWorkItem. Nothing changed. */
export type LoopStoppedError = Error & {
  __typename?: 'LoopStoppedError';
  message: Maybe<Scalars['String']['output']>;
  stopCondition: Maybe<StopReason>;
  workItemId: Maybe<Scalars['ID']['output']>;
};

/** What an experiment found. Holdout: the two-proportion z-test of the success rates (memory − control), a 95 % Wald interval. Interleaving: the exact sign test on the retrievals whose used items were more of one ranking's picks. */
export type MemoryImpact = {
  __typename?: 'MemoryImpact';
  arms: Maybe<Array<ArmMeasures>>;
  /** Holdout: success rate with memory − in control. */
  difference: Maybe<Scalars['Float']['output']>;
  /** 95 % interval, high end. */
  differenceHigh: Maybe<Scalars['Float']['output']>;
  /** 95 % interval, low end. */
  differenceLow: Maybe<Scalars['Float']['output']>;
  experiment: Maybe<Experiment>;
  losses: Maybe<Scalars['Int']['output']>;
  method: Maybe<Scalars['String']['output']>;
  pValue: Maybe<Scalars['Float']['output']>;
  /** The answer in one plain sentence. */
  sentence: Maybe<Scalars['String']['output']>;
  ties: Maybe<Scalars['Int']['output']>;
  /** Runs in scope since the start that asked for nothing: in no arm. */
  unasked: Maybe<ArmMeasures>;
  verdict: Maybe<ImpactVerdict>;
  /** Interleaving: retrievals the memory's picks won. */
  wins: Maybe<Scalars['Int']['output']>;
};

/** One model's calls, tokens and cost (USD). The cost is the spans' own, else tokens times the model price table (MODEL_PRICES, docs/COSTS.md). */
export type ModelUsage = {
  __typename?: 'ModelUsage';
  /** Steps that called it. */
  calls: Maybe<Scalars['Int']['output']>;
  /** USD; null when the cost of some call is unknown (no cost on its span and a model the price table does not know), never a made-up 0. */
  cost: Maybe<Scalars['Float']['output']>;
  inputTokens: Maybe<Scalars['Float']['output']>;
  /** USD of the calls whose cost is known. */
  knownCost: Maybe<Scalars['Float']['output']>;
  /** metadata.model of the steps; null for steps with tokens that name no model. */
  model: Maybe<Scalars['String']['output']>;
  outputTokens: Maybe<Scalars['Float']['output']>;
  tokens: Maybe<Scalars['Float']['output']>;
  /** Calls whose cost is unknown. */
  unknownCostCalls: Maybe<Scalars['Int']['output']>;
};

export type Mutation = {
  __typename?: 'Mutation';
  blockEpisode: Maybe<MutationBlockEpisodeResult>;
  cancelEpisode: Maybe<MutationCancelEpisodeResult>;
  completeEpisode: Maybe<MutationCompleteEpisodeResult>;
  createApiKey: Maybe<MutationCreateApiKeyResult>;
  createWorkItem: Maybe<MutationCreateWorkItemResult>;
  escalateEpisode: Maybe<MutationEscalateEpisodeResult>;
  /** Runs pattern extraction for an ended episode now (for example one whose queued extraction was skipped). */
  extractEpisodePatterns: Maybe<MutationExtractEpisodePatternsResult>;
  failEpisode: Maybe<MutationFailEpisodeResult>;
  /** Forgets an ended episode: its task, goal, context and metadata, outcome, critique, reward, reflection, checkpoint states, step content and unreferenced blobs, its retrieval index entries and the patterns only it showed. A steps.forgotten and an episode.forgotten ledger event, committed with it, name what was deleted with its hashes and the admin key that asked; the chain, proofs and bundles still verify, reporting it forgotten (docs/LEDGER.md §3.4). A forgotten run is never retrieved or listed again. */
  forgetEpisode: Maybe<MutationForgetEpisodeResult>;
  /** Deletes the content of an episode's steps (all, or those numbered) and their unreferenced blobs; a steps.forgotten ledger event, committed with it, names each step and its logged hash and the admin key that asked. The chain, proofs and bundles still verify, reporting these steps as forgotten (docs/LEDGER.md §3.4). */
  forgetSteps: Maybe<MutationForgetStepsResult>;
  /** Imports a past run whole, in one transaction: startEpisode (input.importSource required), logSteps and completeEpisode, with the same rows, the same ledger events and the same limits. Sent again, it finds the run by its dedupeKey. */
  importRun: Maybe<MutationImportRunResult>;
  /** Issues a lease on a work item; with parentLeaseId, a child lease that may only narrow its parent. */
  issueLease: Maybe<MutationIssueLeaseResult>;
  logStep: Maybe<MutationLogStepResult>;
  /** Journals many steps in one call; one result per step (accepted, duplicate, or rejected with the reason). */
  logSteps: Maybe<MutationLogStepsResult>;
  /** Pauses a running experiment (experiment.paused): its episodes are served the memory until it is resumed; what it measured stays. */
  pauseExperiment: Maybe<MutationPauseExperimentResult>;
  recordCritique: Maybe<MutationRecordCritiqueResult>;
  /** Records that the agent needed something its context pack lacked; the first miss of a stable id is a defect record. */
  recordPackMiss: Maybe<MutationRecordPackMissResult>;
  resumeEpisode: Maybe<MutationResumeEpisodeResult>;
  /** Resumes a paused experiment (experiment.resumed). */
  resumeExperiment: Maybe<MutationResumeExperimentResult>;
  /** Lets a stopped loop of episodes go on (an operator decision, in the ledger), optionally with a higher maxEpisodes. */
  resumeWorkItem: Maybe<MutationResumeWorkItemResult>;
  revokeApiKey: Maybe<MutationRevokeApiKeyResult>;
  /** Revokes a lease and every lease derived from it. */
  revokeLease: Maybe<MutationRevokeLeaseResult>;
  saveCheckpoint: Maybe<MutationSaveCheckpointResult>;
  /** Sets the tenant's retention periods (both: an omitted one returns to the server's default). A tenant.retention_set ledger event, committed with it, records them and the admin key that set them. Each from 1 to 36500 days. */
  setRetention: Maybe<MutationSetRetentionResult>;
  startEpisode: Maybe<MutationStartEpisodeResult>;
  /** Starts an experiment (an experiment.started ledger event): from now on, episodes in its scope that ask relevantEpisodes(episodeId) are assigned an arm. */
  startExperiment: Maybe<MutationStartExperimentResult>;
};


export type MutationBlockEpisodeArgs = {
  approvalRequest?: InputMaybe<Scalars['JSON']['input']>;
  episodeId: Scalars['ID']['input'];
  reason: Scalars['String']['input'];
};


export type MutationCancelEpisodeArgs = {
  episodeId: Scalars['ID']['input'];
  reason?: InputMaybe<Scalars['String']['input']>;
};


export type MutationCompleteEpisodeArgs = {
  endedAt?: InputMaybe<Scalars['DateTime']['input']>;
  episodeId: Scalars['ID']['input'];
  extractPatterns?: InputMaybe<ExtractPatternsMode>;
  outcome: OutcomeInput;
  usedRetrievals?: InputMaybe<Array<Scalars['ID']['input']>>;
};


export type MutationCreateApiKeyArgs = {
  expiresAt?: InputMaybe<Scalars['DateTime']['input']>;
  name: Scalars['String']['input'];
  scopes: Array<Scalars['String']['input']>;
};


export type MutationCreateWorkItemArgs = {
  description?: InputMaybe<Scalars['String']['input']>;
  maxEpisodes?: InputMaybe<Scalars['Int']['input']>;
  metadata?: InputMaybe<Scalars['JSON']['input']>;
  title: Scalars['String']['input'];
};


export type MutationEscalateEpisodeArgs = {
  episodeId: Scalars['ID']['input'];
  reason: Scalars['String']['input'];
};


export type MutationExtractEpisodePatternsArgs = {
  episodeId: Scalars['ID']['input'];
};


export type MutationFailEpisodeArgs = {
  episodeId: Scalars['ID']['input'];
  reason: Scalars['String']['input'];
  recoverable?: InputMaybe<Scalars['Boolean']['input']>;
};


export type MutationForgetEpisodeArgs = {
  episodeId: Scalars['ID']['input'];
  reason: Scalars['String']['input'];
};


export type MutationForgetStepsArgs = {
  episodeId: Scalars['ID']['input'];
  reason: Scalars['String']['input'];
  stepNumbers?: InputMaybe<Array<Scalars['Int']['input']>>;
};


export type MutationImportRunArgs = {
  endedAt?: InputMaybe<Scalars['DateTime']['input']>;
  input: StartEpisodeInput;
  options?: InputMaybe<LogStepsOptions>;
  outcome: OutcomeInput;
  steps: Array<StepInput>;
};


export type MutationIssueLeaseArgs = {
  budget?: InputMaybe<LeaseBudgetInput>;
  expiresAt: Scalars['DateTime']['input'];
  holder: Scalars['String']['input'];
  issuer: Scalars['String']['input'];
  parentLeaseId?: InputMaybe<Scalars['ID']['input']>;
  scope?: InputMaybe<Array<Scalars['String']['input']>>;
  workItemId: Scalars['ID']['input'];
};


export type MutationLogStepArgs = {
  episodeId: Scalars['ID']['input'];
  step: StepInput;
};


export type MutationLogStepsArgs = {
  episodeId: Scalars['ID']['input'];
  options?: InputMaybe<LogStepsOptions>;
  steps: Array<StepInput>;
};


export type MutationPauseExperimentArgs = {
  id: Scalars['ID']['input'];
};


export type MutationRecordCritiqueArgs = {
  episodeId: Scalars['ID']['input'];
  feedback?: InputMaybe<Scalars['String']['input']>;
  score?: InputMaybe<Scalars['Float']['input']>;
  verdict: Scalars['String']['input'];
  virtueScores?: InputMaybe<Array<VirtueScoreInput>>;
};


export type MutationRecordPackMissArgs = {
  episodeId: Scalars['ID']['input'];
  packHash?: InputMaybe<Scalars['String']['input']>;
  reason: Scalars['String']['input'];
  stableId: Scalars['String']['input'];
};


export type MutationResumeEpisodeArgs = {
  approved: Scalars['Boolean']['input'];
  comment?: InputMaybe<Scalars['String']['input']>;
  decidedBy?: InputMaybe<Scalars['String']['input']>;
  episodeId: Scalars['ID']['input'];
};


export type MutationResumeExperimentArgs = {
  id: Scalars['ID']['input'];
};


export type MutationResumeWorkItemArgs = {
  id: Scalars['ID']['input'];
  maxEpisodes?: InputMaybe<Scalars['Int']['input']>;
};


export type MutationRevokeApiKeyArgs = {
  id: Scalars['ID']['input'];
};


export type MutationRevokeLeaseArgs = {
  id: Scalars['ID']['input'];
};


export type MutationSaveCheckpointArgs = {
  episodeId: Scalars['ID']['input'];
  label?: InputMaybe<Scalars['String']['input']>;
  state: Scalars['JSON']['input'];
};


export type MutationSetRetentionArgs = {
  runDays?: InputMaybe<Scalars['Int']['input']>;
  stepDays?: InputMaybe<Scalars['Int']['input']>;
};


export type MutationStartEpisodeArgs = {
  input: StartEpisodeInput;
};


export type MutationStartExperimentArgs = {
  input: StartExperimentInput;
};

export type MutationBlockEpisodeResult = EpisodePayload | IllegalTransitionError | InputLimitError | NotFoundError;

export type MutationCancelEpisodeResult = FinishEpisodePayload | IllegalTransitionError | InputLimitError | NotFoundError;

export type MutationCompleteEpisodeResult = FinishEpisodePayload | IllegalTransitionError | InputLimitError | NotFoundError;

export type MutationCreateApiKeyResult = CreatedApiKey | InputLimitError;

export type MutationCreateWorkItemResult = InputLimitError | WorkItemPayload;

export type MutationEscalateEpisodeResult = FinishEpisodePayload | IllegalTransitionError | InputLimitError | NotFoundError;

export type MutationExtractEpisodePatternsResult = ExtractEpisodePatternsPayload | InputLimitError | NotFoundError;

export type MutationFailEpisodeResult = FinishEpisodePayload | IllegalTransitionError | InputLimitError | NotFoundError;

export type MutationForgetEpisodeResult = ForgetEpisodePayload | IllegalTransitionError | InputLimitError | NotFoundError;

export type MutationForgetStepsResult = ForgetStepsPayload | InputLimitError | NotFoundError;

export type MutationImportRunResult = IdempotencyConflictError | IllegalTransitionError | ImportRunPayload | InputLimitError | LeaseError | LoopStoppedError | NotFoundError;

export type MutationIssueLeaseResult = InputLimitError | LeaseError | LeasePayload | NotFoundError;

export type MutationLogStepResult = IllegalTransitionError | InputLimitError | LogStepPayload | NotFoundError;

export type MutationLogStepsResult = IllegalTransitionError | InputLimitError | LogStepsPayload | NotFoundError;

export type MutationPauseExperimentResult = Experiment | IllegalTransitionError | NotFoundError;

export type MutationRecordCritiqueResult = EpisodePayload | IllegalTransitionError | InputLimitError | NotFoundError;

export type MutationRecordPackMissResult = InputLimitError | NotFoundError | RecordPackMissPayload;

export type MutationResumeEpisodeResult = EpisodePayload | IllegalTransitionError | InputLimitError | NotFoundError;

export type MutationResumeExperimentResult = Experiment | IllegalTransitionError | NotFoundError;

export type MutationResumeWorkItemResult = InputLimitError | NotFoundError | WorkItemPayload;

export type MutationRevokeApiKeyResult = ApiKey | NotFoundError;

export type MutationRevokeLeaseResult = LeasePayload | NotFoundError;

export type MutationSaveCheckpointResult = EpisodePayload | IllegalTransitionError | InputLimitError | NotFoundError;

export type MutationSetRetentionResult = InputLimitError | TenantRetention;

export type MutationStartEpisodeResult = IdempotencyConflictError | InputLimitError | LeaseError | LoopStoppedError | NotFoundError | StartEpisodePayload;

export type MutationStartExperimentResult = Experiment | InputLimitError;

/** The event is newer than the latest signed checkpoint. Retry after retryAfterMs (checkpoint schedule: docs/LEDGER.md §5). */
export type NotCheckpointedError = Error & {
  __typename?: 'NotCheckpointedError';
  checkpointTreeSize: Maybe<Scalars['BigInt']['output']>;
  message: Maybe<Scalars['String']['output']>;
  retryAfterMs: Maybe<Scalars['Int']['output']>;
  seq: Maybe<Scalars['BigInt']['output']>;
};

export type NotFoundError = Error & {
  __typename?: 'NotFoundError';
  entity: Maybe<Scalars['String']['output']>;
  id: Maybe<Scalars['String']['output']>;
  message: Maybe<Scalars['String']['output']>;
};

/** Spans of one refusal reason since the tenant began exporting, and the latest one, named. docs/OTLP.md "Seeing refusals". */
export type OtlpRefusalCount = {
  __typename?: 'OtlpRefusalCount';
  count: Maybe<Scalars['Float']['output']>;
  /** unreadable, limit, root, pending_cap, step_rejected or late (the label of episodic_otlp_spans_refused_total). */
  kind: Maybe<Scalars['String']['output']>;
  lastAt: Maybe<Scalars['DateTime']['output']>;
  /** Why the latest one was refused (at most 1,000 characters). */
  lastReason: Maybe<Scalars['String']['output']>;
  lastSpanId: Maybe<Scalars['String']['output']>;
  /** Empty for a span that could not be read. */
  lastTraceId: Maybe<Scalars['String']['output']>;
};

export type Outcome = {
  __typename?: 'Outcome';
  artifacts: Maybe<Array<Scalars['String']['output']>>;
  completed: Maybe<Array<Scalars['String']['output']>>;
  details: Maybe<Scalars['String']['output']>;
  failed: Maybe<Array<Scalars['String']['output']>>;
  kind: Maybe<OutcomeKind>;
  reason: Maybe<Scalars['String']['output']>;
  verdict: Maybe<Scalars['String']['output']>;
};

/** success {verdict, artifacts} | partial {verdict, completed, failed, artifacts} | failure {reason, details, artifacts}. Texts at most 10 KB; lists at most 1,000 items of 1 KB. */
export type OutcomeInput = {
  artifacts?: InputMaybe<Array<Scalars['String']['input']>>;
  completed?: InputMaybe<Array<Scalars['String']['input']>>;
  details?: InputMaybe<Scalars['String']['input']>;
  failed?: InputMaybe<Array<Scalars['String']['input']>>;
  kind: OutcomeKind;
  reason?: InputMaybe<Scalars['String']['input']>;
  verdict?: InputMaybe<Scalars['String']['input']>;
};

export type OutcomeKind =
  | 'FAILURE'
  | 'PARTIAL'
  | 'SUCCESS'
  | 'UNKNOWN';

export type PageInfo = {
  __typename?: 'PageInfo';
  endCursor: Maybe<Scalars['String']['output']>;
  hasNextPage: Scalars['Boolean']['output'];
  hasPreviousPage: Scalars['Boolean']['output'];
  startCursor: Maybe<Scalars['String']['output']>;
};

export type Pattern = {
  __typename?: 'Pattern';
  /** How often the consequent holds in comparable episodes (same scope and harness) without the antecedent. */
  baselineRate: Maybe<Scalars['Float']['output']>;
  /** FILE_CHANGE and ERROR_FIX: the file the runs changed. */
  changedFile: Maybe<Scalars['String']['output']>;
  context: Maybe<PatternContext>;
  createdAt: Maybe<Scalars['DateTime']['output']>;
  /** The term (or tool, error class) a task or run is matched by; for PROCEDURE, the command. */
  cue: Maybe<Scalars['String']['output']>;
  description: Maybe<Scalars['String']['output']>;
  /** |lift|, in [0, 1]; for PROCEDURE, the share of the scope’s runs it worked in. */
  effectiveness: Maybe<Scalars['Float']['output']>;
  /** The episodes the pattern was observed in, oldest first. */
  episodes: Maybe<PatternEpisodesConnection>;
  /** PROCEDURE: the commands runs of its scope tried that usually failed there (worked in fewer than half the runs that ran them), with their counts, most often tried first: what not to run instead. Empty for the other kinds. */
  failedInstead: Maybe<Array<Scalars['String']['output']>>;
  feedbackCredit: Maybe<Scalars['Float']['output']>;
  id: Maybe<Scalars['ID']['output']>;
  key: Maybe<Scalars['String']['output']>;
  kind: Maybe<PatternKind>;
  /** successRate (shrunk) minus baselineRate, stratified by harness; null without comparable episodes, and for PROCEDURE (not compared). */
  lift: Maybe<Scalars['Float']['output']>;
  meanReward: Maybe<Scalars['Float']['output']>;
  /** Episodes of the scope with the antecedent (the term, tool or error class; for PROCEDURE, the runs that ran it). */
  occurrences: Maybe<Scalars['Int']['output']>;
  /** Where it was learnt: the domain, else language:<language>, else *. */
  scope: Maybe<Scalars['String']['output']>;
  signature: Maybe<Array<Scalars['String']['output']>>;
  status: Maybe<PatternStatus>;
  /** successes / occurrences. */
  successRate: Maybe<Scalars['Float']['output']>;
  /** Of the occurrences, those where the consequent held (the run succeeded; for FILE_CHANGE, the file changed; for PROCEDURE, it worked: a step running it succeeded). */
  successes: Maybe<Scalars['Int']['output']>;
  /** The pattern and its numbers in one sentence. */
  summary: Maybe<Scalars['String']['output']>;
  supersededAt: Maybe<Scalars['DateTime']['output']>;
  updatedAt: Maybe<Scalars['DateTime']['output']>;
};


export type PatternEpisodesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
};

/** Context of the episode that first produced the pattern. */
export type PatternContext = {
  __typename?: 'PatternContext';
  domain: Maybe<Scalars['String']['output']>;
  framework: Maybe<Scalars['String']['output']>;
  language: Maybe<Scalars['String']['output']>;
  tags: Maybe<Array<Scalars['String']['output']>>;
};

/** One observation of a pattern: the episode, whether it succeeded, its reward, and whether that run kept the pattern. */
export type PatternEpisode = {
  __typename?: 'PatternEpisode';
  episode: Maybe<Episode>;
  kept: Maybe<Scalars['Boolean']['output']>;
  observedAt: Maybe<Scalars['DateTime']['output']>;
  reward: Maybe<Scalars['Float']['output']>;
  success: Maybe<Scalars['Boolean']['output']>;
};

export type PatternEpisodesConnection = {
  __typename?: 'PatternEpisodesConnection';
  edges: Array<PatternEpisodesConnectionEdge>;
  pageInfo: PageInfo;
};

export type PatternEpisodesConnectionEdge = {
  __typename?: 'PatternEpisodesConnectionEdge';
  cursor: Scalars['String']['output'];
  node: PatternEpisode;
};

/** One extraction run, as its patterns.extracted ledger event records it: candidates = kept + rejected. */
export type PatternExtraction = {
  __typename?: 'PatternExtraction';
  activated: Maybe<Scalars['Int']['output']>;
  candidates: Maybe<Scalars['Int']['output']>;
  confirmed: Maybe<Scalars['Int']['output']>;
  kept: Maybe<Scalars['Int']['output']>;
  mode: Maybe<Scalars['String']['output']>;
  /** The patterns kept. */
  patterns: Maybe<Array<Pattern>>;
  rejected: Maybe<PatternRejections>;
  revived: Maybe<Scalars['Int']['output']>;
  superseded: Maybe<Scalars['Int']['output']>;
};

export type PatternFilter = {
  /** Patterns observed in this episode. */
  episodeId?: InputMaybe<Scalars['ID']['input']>;
  /** Any of these kinds. */
  kind?: InputMaybe<Array<PatternKind>>;
  minEffectiveness?: InputMaybe<Scalars['Float']['input']>;
  /** Any of these statuses; default ACTIVE. */
  status?: InputMaybe<Array<PatternStatus>>;
};

/** FILE_CHANGE: tasks mentioning a term change a file; TASK_OUTCOME: tasks mentioning a term succeed more or less often; TOOL_OUTCOME: runs using a tool; ERROR_OUTCOME: runs hitting an error class or name; ERROR_FIX: runs whose failed steps showed an error name changed a file (served to tasks mentioning the error); PROCEDURE: a command that worked in most runs of a repository that ran it, normalised (`python tests/runtests.py`, `npm test`): how to run its tests or build it (served to tasks of that domain). */
export type PatternKind =
  | 'ERROR_FIX'
  | 'ERROR_OUTCOME'
  | 'FILE_CHANGE'
  | 'PROCEDURE'
  | 'TASK_OUTCOME'
  | 'TOOL_OUTCOME';

export type PatternRejections = {
  __typename?: 'PatternRejections';
  /** Lift over comparable episodes below the bar. */
  lowLift: Maybe<Scalars['Int']['output']>;
  /** Too few episodes of the same scope and harness without it to compare with. */
  noComparableEpisodes: Maybe<Scalars['Int']['output']>;
  /** Too few episodes with the antecedent (or, for a file pattern, with the file changed too). */
  tooFewOccurrences: Maybe<Scalars['Int']['output']>;
  /** Its cue term is in more than 20 % of the scope’s tasks: too common to say anything about one task (the idf floor). */
  uninformativeCue: Maybe<Scalars['Int']['output']>;
};

/** total = relevance × (0.5 + 0.5 strength) + 0.1 feedback; relevance = 0.5 cue + 0.5 scope, floor 0.5 (docs/LEARNING.md). */
export type PatternScore = {
  __typename?: 'PatternScore';
  feedback: Maybe<Scalars['Float']['output']>;
  /** Over comparable episodes without the antecedent; negative: a warning. */
  lift: Maybe<Scalars['Float']['output']>;
  /** How well the pattern fits the task: the task mentions its cue, its domain (or language) is the scope. */
  relevance: Maybe<Scalars['Float']['output']>;
  /** min(1, |lift| / 0.5). */
  strength: Maybe<Scalars['Float']['output']>;
  total: Maybe<Scalars['Float']['output']>;
};

/** ACTIVE: its counts meet the bar now (support, comparable episodes, lift; docs/LEARNING.md); CANDIDATE: counts kept, bar never met; SUPERSEDED: met the bar once, no longer does. */
export type PatternStatus =
  | 'ACTIVE'
  | 'CANDIDATE'
  | 'SUPERSEDED';

export type Query = {
  __typename?: 'Query';
  apiKeys: Maybe<Array<ApiKey>>;
  /** A blob a step of the viewer's tenant references, by its BLAKE3 hash (64 lowercase hex digits). Its size counts against the request's MAX_RESPONSE_BYTES before it is read; GET /blobs/<hash> streams one of any size. */
  blob: Maybe<QueryBlobResult>;
  consistencyProof: Maybe<QueryConsistencyProofResult>;
  /** Runs, outcomes, spend, step latency, tool errors, budget exhaustions, patterns and retrievals over a time range, per hour or day. */
  dashboard: Maybe<QueryDashboardResult>;
  episode: Maybe<QueryEpisodeResult>;
  /** The episode's events (with its lease.charged) and step rows, with inclusion proofs against the latest signed checkpoint (docs/LEDGER.md §6). */
  episodeProofBundle: Maybe<QueryEpisodeProofBundleResult>;
  /** One step in full (parameters, result, observation, world state), for a row the monitor expands. Its content counts against the request's MAX_RESPONSE_BYTES at its stored size before it is read. */
  episodeStep: Maybe<QueryEpisodeStepResult>;
  episodes: Maybe<QueryEpisodesConnection>;
  /** The tenant's experiments, newest first (at most 100). */
  experiments: Maybe<Array<Experiment>>;
  /** The stored values events hash (outcomes, critiques, rewards, reflections, checkpoint states, retrieval results), for an offline verifier: `episodic export` carries them (docs/LEDGER.md §6.2). */
  hashedRows: Maybe<QueryHashedRowsResult>;
  inclusionProof: Maybe<QueryInclusionProofResult>;
  lease: Maybe<QueryLeaseResult>;
  /** Every signed checkpoint of the tenant, oldest first: compare them with an export to detect a cut-off tail or rewritten history (docs/LEDGER.md §5, §7). */
  ledgerCheckpoints: Maybe<QueryLedgerCheckpointsResult>;
  ledgerEvents: Maybe<QueryLedgerEventsResult>;
  ledgerHead: Maybe<LedgerHead>;
  /** The key that signs checkpoints. Trust it only as far as you trust this connection (docs/LEDGER.md §5.2). */
  ledgerPublicKey: Maybe<LedgerPublicKey>;
  /** Does the memory help? Per arm the counts and means, and the difference with its interval, p-value and a plain sentence. */
  memoryImpact: Maybe<QueryMemoryImpactResult>;
  /** Spans /v1/traces refused for this tenant, per reason, the latest reason first (an exporter's default log level does not show them). */
  otlpRefusals: Maybe<Array<OtlpRefusalCount>>;
  pattern: Maybe<QueryPatternResult>;
  /** Patterns of this tenant, most effective first. */
  patterns: Maybe<QueryPatternsConnection>;
  /** Completed episodes ranked by the signals of RelevanceScore (its description gives the formula). Records a receipt (retrieval.served). */
  relevantEpisodes: Maybe<QueryRelevantEpisodesResult>;
  /** Where to look: the files that runs of similar tasks changed (ranked as relevantEpisodes ranks runs, failures included), weighted by similarity and outcome, with the files the task names. Records a receipt (retrieval.served). */
  relevantFiles: Maybe<QueryRelevantFilesResult>;
  /** Active patterns relevant to the task (it mentions their term; its domain or language is their scope), ranked by relevance and lift, with a relevance floor. Records a receipt (retrieval.served). */
  relevantPatterns: Maybe<QueryRelevantPatternsResult>;
  /** The tenant's retention periods (docs/LEDGER.md §3.4). */
  retention: Maybe<TenantRetention>;
  retrievalReceipt: Maybe<QueryRetrievalReceiptResult>;
  /** Retrieval receipts, newest first; pass the createdAt of the last one as before for the next page. */
  retrievalReceipts: Maybe<QueryRetrievalReceiptsResult>;
  /** Re-hashes the stored range, every hashed row its events cover, and every signed checkpoint within it (docs/LEDGER.md §7.5). */
  verifyLedger: Maybe<QueryVerifyLedgerResult>;
  /** The tenant that owns the API key of this request. */
  viewer: Maybe<Tenant>;
  /** The API key of this request: its scopes say which operations it may call (the MCP server lists tools by them). */
  viewerKey: Maybe<ApiKey>;
  workItem: Maybe<QueryWorkItemResult>;
};


export type QueryBlobArgs = {
  hash: Scalars['String']['input'];
};


export type QueryConsistencyProofArgs = {
  fromSize: Scalars['BigInt']['input'];
  toSize?: InputMaybe<Scalars['BigInt']['input']>;
};


export type QueryDashboardArgs = {
  filter: DashboardFilter;
};


export type QueryEpisodeArgs = {
  id: Scalars['ID']['input'];
};


export type QueryEpisodeProofBundleArgs = {
  episodeId: Scalars['ID']['input'];
};


export type QueryEpisodeStepArgs = {
  episodeId: Scalars['ID']['input'];
  stepNumber: Scalars['Int']['input'];
};


export type QueryEpisodesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<EpisodeFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
};


export type QueryHashedRowsArgs = {
  refs: Array<HashedRowRef>;
};


export type QueryInclusionProofArgs = {
  seq: Scalars['BigInt']['input'];
};


export type QueryLeaseArgs = {
  id: Scalars['ID']['input'];
};


export type QueryLedgerCheckpointsArgs = {
  afterTreeSize?: InputMaybe<Scalars['BigInt']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};


export type QueryLedgerEventsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<LedgerEventFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
};


export type QueryMemoryImpactArgs = {
  experimentId: Scalars['ID']['input'];
};


export type QueryPatternArgs = {
  id: Scalars['ID']['input'];
};


export type QueryPatternsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<PatternFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
};


export type QueryRelevantEpisodesArgs = {
  episodeId?: InputMaybe<Scalars['ID']['input']>;
  filter?: InputMaybe<RelevantEpisodeFilter>;
  includeFailures?: InputMaybe<Scalars['Boolean']['input']>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  task: RetrievalTaskInput;
};


export type QueryRelevantFilesArgs = {
  filter?: InputMaybe<RelevantEpisodeFilter>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  task: RetrievalTaskInput;
};


export type QueryRelevantPatternsArgs = {
  context?: InputMaybe<RetrievalContextInput>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  task?: InputMaybe<RetrievalTaskInput>;
};


export type QueryRetrievalReceiptArgs = {
  id: Scalars['ID']['input'];
};


export type QueryRetrievalReceiptsArgs = {
  before?: InputMaybe<Scalars['DateTime']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};


export type QueryVerifyLedgerArgs = {
  fromSeq?: InputMaybe<Scalars['BigInt']['input']>;
  toSeq?: InputMaybe<Scalars['BigInt']['input']>;
};


export type QueryWorkItemArgs = {
  id: Scalars['ID']['input'];
};

export type QueryBlobResult = Blob | NotFoundError | ResponseBudgetError;

export type QueryConsistencyProofResult = ConsistencyProof | InputLimitError;

export type QueryDashboardResult = Dashboard | InputLimitError;

export type QueryEpisodeProofBundleResult = EpisodeProofBundle | NotCheckpointedError | NotFoundError;

export type QueryEpisodeResult = Episode | NotFoundError;

export type QueryEpisodeStepResult = NotFoundError | ResponseBudgetError | Step;

export type QueryEpisodesConnection = {
  __typename?: 'QueryEpisodesConnection';
  edges: Array<QueryEpisodesConnectionEdge>;
  pageInfo: PageInfo;
};

export type QueryEpisodesConnectionEdge = {
  __typename?: 'QueryEpisodesConnectionEdge';
  cursor: Scalars['String']['output'];
  node: Episode;
};

export type QueryHashedRowsResult = HashedRowList | InputLimitError;

export type QueryInclusionProofResult = InclusionProof | InputLimitError | NotCheckpointedError | NotFoundError;

export type QueryLeaseResult = Lease | NotFoundError;

export type QueryLedgerCheckpointsResult = InputLimitError | SignedTreeHeadPage;

export type QueryLedgerEventsResult = InputLimitError | LedgerEventConnection;

export type QueryMemoryImpactResult = MemoryImpact | NotFoundError;

export type QueryPatternResult = NotFoundError | Pattern;

export type QueryPatternsConnection = {
  __typename?: 'QueryPatternsConnection';
  edges: Array<QueryPatternsConnectionEdge>;
  pageInfo: PageInfo;
};

export type QueryPatternsConnectionEdge = {
  __typename?: 'QueryPatternsConnectionEdge';
  cursor: Scalars['String']['output'];
  node: Pattern;
};

export type QueryRelevantEpisodesResult = InputLimitError | NotFoundError | RelevantEpisodes;

export type QueryRelevantFilesResult = InputLimitError | RelevantFiles;

export type QueryRelevantPatternsResult = InputLimitError | RelevantPatterns;

export type QueryRetrievalReceiptResult = NotFoundError | RetrievalReceipt;

export type QueryRetrievalReceiptsResult = InputLimitError | QueryRetrievalReceiptsSuccess;

export type QueryRetrievalReceiptsSuccess = {
  __typename?: 'QueryRetrievalReceiptsSuccess';
  data: Array<RetrievalReceipt>;
};

export type QueryVerifyLedgerResult = InputLimitError | LedgerVerification;

export type QueryWorkItemResult = NotFoundError | WorkItem;

export type RecordPackMissPayload = {
  __typename?: 'RecordPackMissPayload';
  /** True only for the first miss of this stable id in the episode. */
  defectRecorded: Maybe<Scalars['Boolean']['output']>;
  episode: Maybe<Episode>;
  occurrences: Maybe<Scalars['Int']['output']>;
};

/** Derived from the steps, outcome and critique; at most 5 items each. */
export type Reflection = {
  __typename?: 'Reflection';
  improvements: Maybe<Array<Scalars['String']['output']>>;
  insights: Maybe<Array<Scalars['String']['output']>>;
  successes: Maybe<Array<Scalars['String']['output']>>;
};

/** total = evidence × (1 + 0.05 reward + 0.02 recency + 0.10 feedback): evidence first. evidence is the tenant's learned ranker's (e^(its score − the best candidate's)) when it has one, else (0.40 contextMatch + 0.43 similarity) / 0.83 (docs/LEARNING.md). */
export type RelevanceScore = {
  __typename?: 'RelevanceScore';
  /** 0.5 × BM25 (b 1) of the query against the change the episode left: its changed files, their module names and the scopes and definitions it changed. */
  change: Maybe<Scalars['Float']['output']>;
  contextMatch: Maybe<Scalars['Float']['output']>;
  /** Each feature of the learned ranker with its contribution (0 for every feature when the fixed formula ranked). */
  contributions: Maybe<Array<FeatureContribution>>;
  /** The task evidence in [0, 1]; reward, recency and feedback only scale it. */
  evidence: Maybe<Scalars['Float']['output']>;
  /** Query-relative credit in [-1, 1]: reported uses of this episode (usedRetrievals) applied as far as the query that served it resembles this one (docs/LEARNING.md). */
  feedback: Maybe<Scalars['Float']['output']>;
  /** The largest resemblance of any reported use's query to this one, in [0, 1]. */
  feedbackResemblance: Maybe<Scalars['Float']['output']>;
  /** Reported uses that counted: those by queries resembling this one (idf-weighted share of their terms at least 0.4). */
  feedbackUses: Maybe<Scalars['Int']['output']>;
  /** Whether the tenant's learned ranker gave the evidence (else the fixed formula). */
  learned: Maybe<Scalars['Boolean']['output']>;
  recency: Maybe<Scalars['Float']['output']>;
  reward: Maybe<Scalars['Float']['output']>;
  /** max(textRank, trigramSimilarity) */
  similarity: Maybe<Scalars['Float']['output']>;
  /** The calibrated chance, in [0, 1], that this run is useful to the task (that it changed a file the task's run will change), fitted on the tenant's own history; the same scale for every query, and never higher below in the list (docs/LEARNING.md). */
  strength: Maybe<Scalars['Float']['output']>;
  /** The strength in a word: strong (>= 0.5), moderate (>= 0.25), weak (>= 0.1), none. */
  strengthWord: Maybe<Scalars['String']['output']>;
  /** BM25 (k1 1.2, b 0.75) of the query against the task description. */
  taskText: Maybe<Scalars['Float']['output']>;
  /** (taskText + work + change) / the best candidate's, in [0, 1]. */
  textRank: Maybe<Scalars['Float']['output']>;
  /** The ranking total, relative to the best candidate (the top hit is always near 1): see strength for how good a match it is. */
  total: Maybe<Scalars['Float']['output']>;
  trigramSimilarity: Maybe<Scalars['Float']['output']>;
  /** 0.5 × BM25 (b 1) of the query against what the episode did: files and symbols it changed, its commands, errors and tools. */
  work: Maybe<Scalars['Float']['output']>;
};

/** Hard filters, applied before ranking. */
export type RelevantEpisodeFilter = {
  agent?: InputMaybe<Scalars['String']['input']>;
  endedAfter?: InputMaybe<Scalars['DateTime']['input']>;
  /** Normalised reward at least this. */
  minReward?: InputMaybe<Scalars['Float']['input']>;
};

export type RelevantEpisodes = {
  __typename?: 'RelevantEpisodes';
  /** Completed episodes, best first; with includeFailures, failed ones ranked among them (marked failed). */
  episodes: Maybe<Array<ScoredEpisode>>;
  /** Pass it to completeEpisode(usedRetrievals) to credit what helped. Null for a key without write scope: nothing is recorded. */
  retrievalId: Maybe<Scalars['ID']['output']>;
  /** Similar failed episodes (includeFailures). */
  warnings: Maybe<Array<ScoredEpisode>>;
};

/** A file runs of similar tasks changed (docs/LEARNING.md, relevantFiles). */
export type RelevantFile = {
  __typename?: 'RelevantFile';
  /** The runs that changed it, best first. */
  evidence: Array<Episode>;
  /** Of those, runs that failed. */
  failed: Scalars['Int']['output'];
  path: Scalars['String']['output'];
  /** Of those, runs that succeeded. */
  resolved: Scalars['Int']['output'];
  /** Runs among the 50 most similar that changed the file. */
  runs: Scalars['Int']['output'];
  /** vote / the best vote + 0.5 × path match / the best match: vote = Σ over the 20 best-ranked runs that changed it of text similarity × outcome (resolved 1, partial 0.8, failed 0.6) / sqrt(files the run changed); path match = the idf-weighted words of its path the task mentions (docs/LEARNING.md). */
  score: Scalars['Float']['output'];
};

export type RelevantFiles = {
  __typename?: 'RelevantFiles';
  /** Best first. */
  files: Array<RelevantFile>;
  /** Pass it to completeEpisode(usedRetrievals) to credit the evidence runs. Null for a key without write scope: nothing is recorded. */
  retrievalId: Maybe<Scalars['ID']['output']>;
};

export type RelevantPatterns = {
  __typename?: 'RelevantPatterns';
  patterns: Maybe<Array<ScoredPattern>>;
  /** Null for a key without write scope: nothing is recorded. */
  retrievalId: Maybe<Scalars['ID']['output']>;
};

/** Reading this content would pass the byte budget of one request (MAX_RESPONSE_BYTES); nothing of it was read. Download it with GET /blobs/<hash> (Range supported), or read it in a request of its own. */
export type ResponseBudgetError = Error & {
  __typename?: 'ResponseBudgetError';
  /** The budget that refused it: MAX_RESPONSE_BYTES. */
  budget: Maybe<Scalars['String']['output']>;
  /** Bytes of large content one request may read. */
  limit: Maybe<Scalars['Int']['output']>;
  message: Maybe<Scalars['String']['output']>;
  /** The stored size of the content refused. */
  requested: Maybe<Scalars['Int']['output']>;
};

export type RetrievalContextInput = {
  /** Accepted for symmetry with TaskContext; ranking does not use it. */
  complexity?: InputMaybe<Complexity>;
  domain?: InputMaybe<Scalars['String']['input']>;
  framework?: InputMaybe<Scalars['String']['input']>;
  language?: InputMaybe<Scalars['String']['input']>;
  tags?: InputMaybe<Array<Scalars['String']['input']>>;
};

/** A completion that used retrievals, and the credit it gave what they served (a retrieval.feedback ledger event). */
export type RetrievalCredit = {
  __typename?: 'RetrievalCredit';
  createdAt: Maybe<Scalars['DateTime']['output']>;
  episode: Maybe<Episode>;
  episodesCredited: Maybe<Scalars['Int']['output']>;
  outcome: Maybe<Scalars['String']['output']>;
  patternsCredited: Maybe<Scalars['Int']['output']>;
  retrievalIds: Maybe<Array<Scalars['ID']['output']>>;
  seq: Maybe<Scalars['BigInt']['output']>;
  /** +1 success, -1 failure, in between for partial. */
  target: Maybe<Scalars['Float']['output']>;
};

export type RetrievalFeedback = {
  __typename?: 'RetrievalFeedback';
  /** Served episodes credited: for a success that reports artifacts, those that changed one of its files (the others get target 0). */
  confirmed: Maybe<Scalars['Int']['output']>;
  /** Episodes credited or debited. */
  episodes: Maybe<Scalars['Int']['output']>;
  /** Patterns credited or debited. */
  patterns: Maybe<Scalars['Int']['output']>;
  retrievalIds: Maybe<Array<Scalars['ID']['output']>>;
  /** +1 success, -1 failure; credits move 0.3 of the way towards it. */
  target: Maybe<Scalars['Float']['output']>;
  /** Uses recorded (one per retrieval and episode it served): ranking applies each to later queries that resemble the retrieval's query. */
  uses: Maybe<Scalars['Int']['output']>;
};

/** What one relevantEpisodes / relevantPatterns call served, best first. */
export type RetrievalReceipt = {
  __typename?: 'RetrievalReceipt';
  /** The experiment arm that served it: memory, control or interleaved; null outside an experiment. */
  arm: Maybe<Scalars['String']['output']>;
  createdAt: Maybe<Scalars['DateTime']['output']>;
  credits: Maybe<Array<RetrievalCredit>>;
  episodes: Maybe<Array<Episode>>;
  experimentId: Maybe<Scalars['ID']['output']>;
  id: Maybe<Scalars['ID']['output']>;
  /** episodes, patterns or files (relevantFiles: its episodeIds are the evidence runs) */
  kind: Maybe<Scalars['String']['output']>;
  patterns: Maybe<Array<Pattern>>;
  queryHash: Maybe<Scalars['String']['output']>;
  resultsHash: Maybe<Scalars['String']['output']>;
  warnings: Maybe<Array<Episode>>;
};

export type RetrievalTaskInput = {
  context?: InputMaybe<RetrievalContextInput>;
  /** Any language: full-text (simple configuration) and trigram similarity. */
  description: Scalars['String']['input'];
  taskType?: InputMaybe<Scalars['String']['input']>;
};

/** total = base × efficiency × complexityBonus × qualityMultiplier + learningBonus; normalized = total / 3.2 in [0, 1] (docs/LEARNING.md). */
export type Reward = {
  __typename?: 'Reward';
  base: Maybe<Scalars['Float']['output']>;
  complexityBonus: Maybe<Scalars['Float']['output']>;
  efficiency: Maybe<Scalars['Float']['output']>;
  learningBonus: Maybe<Scalars['Float']['output']>;
  normalized: Maybe<Scalars['Float']['output']>;
  qualityMultiplier: Maybe<Scalars['Float']['output']>;
  total: Maybe<Scalars['Float']['output']>;
};

export type ScoredEpisode = {
  __typename?: 'ScoredEpisode';
  episode: Maybe<Episode>;
  /** A failed episode: evidence of what did not work. */
  failed: Maybe<Scalars['Boolean']['output']>;
  score: Maybe<RelevanceScore>;
  /** A failed episode's outcome reason and details. */
  whatWentWrong: Maybe<Scalars['String']['output']>;
};

export type ScoredPattern = {
  __typename?: 'ScoredPattern';
  pattern: Maybe<Pattern>;
  score: Maybe<PatternScore>;
};

/** A checkpoint: the Merkle root over events 1..treeSize, signed with Ed25519 (docs/LEDGER.md §5). */
export type SignedTreeHead = {
  __typename?: 'SignedTreeHead';
  headHash: Maybe<Scalars['String']['output']>;
  issuedAt: Maybe<Scalars['String']['output']>;
  keyId: Maybe<Scalars['String']['output']>;
  rootHash: Maybe<Scalars['String']['output']>;
  signature: Maybe<Scalars['String']['output']>;
  tenantId: Maybe<Scalars['ID']['output']>;
  /** A decimal string here; a JSON number in the signed message and in exports (§2.2). */
  treeSize: Maybe<Scalars['BigInt']['output']>;
};

/** Signed checkpoints in treeSize order; resume with afterTreeSize: the last treeSize. */
export type SignedTreeHeadPage = {
  __typename?: 'SignedTreeHeadPage';
  checkpoints: Maybe<Array<SignedTreeHead>>;
  hasNextPage: Maybe<Scalars['Boolean']['output']>;
};

export type StartEpisodeInput = {
  agent?: InputMaybe<Scalars['String']['input']>;
  budget?: InputMaybe<BudgetInput>;
  context?: InputMaybe<TaskContextInput>;
  /** The context pack the agent runs with; the episode ends with a run receipt. */
  contextPack?: InputMaybe<ContextPackInput>;
  /** Repeating a start with the same key returns the same episode. */
  dedupeKey?: InputMaybe<Scalars['String']['input']>;
  /** Requested number (a restarted loop); must exceed the last one issued. */
  episodeNumber?: InputMaybe<Scalars['Int']['input']>;
  /** Text or JSON, at most 64 KB, no NUL bytes. */
  goalSpec?: InputMaybe<Scalars['JSON']['input']>;
  /** Importing a past run: the file it came from (recorded in the episode.started event). Without startedAt the run's times are unknown (timesKnown false): no wall time, no speed credit, neutral recency. */
  importSource?: InputMaybe<ImportSourceInput>;
  /** The lease this episode runs under; its work item is implied. */
  leaseId?: InputMaybe<Scalars['ID']['input']>;
  maxAttempts?: InputMaybe<Scalars['Int']['input']>;
  metadata?: InputMaybe<Scalars['JSON']['input']>;
  mode?: InputMaybe<EpisodeMode>;
  onBudgetExhausted?: InputMaybe<BudgetExhaustedPolicy>;
  parentEpisodeId?: InputMaybe<Scalars['ID']['input']>;
  /** Importing a past run: when it really started (not in the future). The episode is historical: its wall time, reward and reflection use the run's own times, and its episode.started event says it was imported. */
  startedAt?: InputMaybe<Scalars['DateTime']['input']>;
  /** At most 256 KB, not blank. */
  taskDescription: Scalars['String']['input'];
  taskType: Scalars['String']['input'];
  workItemId?: InputMaybe<Scalars['ID']['input']>;
};

export type StartEpisodePayload = {
  __typename?: 'StartEpisodePayload';
  /** True when dedupeKey matched an earlier start with the same input. */
  deduplicated: Maybe<Scalars['Boolean']['output']>;
  episode: Maybe<Episode>;
};

export type StartExperimentInput = {
  control?: InputMaybe<ControlRanking>;
  /** Holdout: from 0.01 to 0.9. */
  controlShare?: InputMaybe<Scalars['Float']['input']>;
  kind?: InputMaybe<ExperimentKind>;
  minSample?: InputMaybe<Scalars['Int']['input']>;
  name: Scalars['String']['input'];
  scope?: InputMaybe<ExperimentScopeInput>;
  /** Default: a random one (stored, so assignments stay reproducible). */
  seed?: InputMaybe<Scalars['String']['input']>;
};

export type Step = {
  __typename?: 'Step';
  action: Maybe<Scalars['String']['output']>;
  argsHash: Maybe<Scalars['String']['output']>;
  /** BLAKE3 of the RFC 8785 JSON of hashedContent (docs/LEDGER.md §3.2), covering the hash of every blob it references (contentRefs). The fields above are a view (times as DateTime, result split into resultKind and result): check this hash against hashedContent, not against them. */
  contentHash: Maybe<Scalars['String']['output']>;
  contentRefs: Maybe<Array<StepContentRef>>;
  cost: Maybe<Scalars['Float']['output']>;
  /** When the step was journaled. */
  createdAt: Maybe<Scalars['DateTime']['output']>;
  endedAt: Maybe<Scalars['DateTime']['output']>;
  /** When forgetSteps deleted this step's content (its steps.forgotten ledger event names it); null while it is kept. */
  forgottenAt: Maybe<Scalars['DateTime']['output']>;
  /** Exactly the members contentHash covers, as hashed: contentHash = BLAKE3(RFC 8785 JSON of this value), for steps with blobs, truncated fields or imported times too. Null once the content is forgotten (forgottenAt). */
  hashedContent: Maybe<Scalars['JSON']['output']>;
  id: Maybe<Scalars['ID']['output']>;
  kind: Maybe<Scalars['String']['output']>;
  latencyMs: Maybe<Scalars['Int']['output']>;
  metadata: Maybe<Scalars['JSON']['output']>;
  /** At most 10 KB inline; a longer one kept as a blob or truncated holds a head + tail preview (see contentRefs). */
  observation: Maybe<Scalars['String']['output']>;
  /** Redacted copy; argsHash is the BLAKE3 of the original. */
  parameters: Maybe<Scalars['JSON']['output']>;
  result: Maybe<Scalars['JSON']['output']>;
  /** success, error or timeout */
  resultKind: Maybe<Scalars['String']['output']>;
  sideEffectKey: Maybe<Scalars['String']['output']>;
  /** When the step really ran (an imported run); null when journaled live. */
  startedAt: Maybe<Scalars['DateTime']['output']>;
  stepNumber: Maybe<Scalars['Int']['output']>;
  tokens: Maybe<Scalars['Int']['output']>;
  tool: Maybe<Scalars['String']['output']>;
  worldAfter: Maybe<Scalars['JSON']['output']>;
  worldBefore: Maybe<Scalars['JSON']['output']>;
};

/** A step field past its inline limit: the field holds a head + tail preview; the whole text is a blob (stored) or only its hash and size are kept (truncated). */
export type StepContentRef = {
  __typename?: 'StepContentRef';
  /** The whole text when stored (read on demand), charged at sizeBytes to the request's MAX_RESPONSE_BYTES: past it, a RESPONSE_TOO_LARGE error and nothing read. Large ones: GET /blobs/<hash>. */
  content: Maybe<Scalars['String']['output']>;
  /** action, observation, result.output or result.message */
  field: Maybe<Scalars['String']['output']>;
  /** BLAKE3 of the whole text (UTF-8), lowercase hex. */
  hash: Maybe<Scalars['String']['output']>;
  sizeBytes: Maybe<Scalars['Int']['output']>;
  /** false: truncated on request, only the hash and size are kept. */
  stored: Maybe<Scalars['Boolean']['output']>;
};

export type StepInput = {
  /** At most 4 KB inline; up to 16 MB with largeContent BLOB or TRUNCATE. */
  action?: InputMaybe<Scalars['String']['input']>;
  cost?: InputMaybe<Scalars['Float']['input']>;
  /** Not in the future, not before startedAt. An imported run measures wall time by these. */
  endedAt?: InputMaybe<Scalars['DateTime']['input']>;
  /** tool_call, llm_call, observation, ... (snake_case) */
  kind?: InputMaybe<Scalars['String']['input']>;
  latencyMs?: InputMaybe<Scalars['Int']['input']>;
  /** At most 64 KB. */
  metadata?: InputMaybe<Scalars['JSON']['input']>;
  /** At most 10 KB inline; up to 16 MB with largeContent BLOB or TRUNCATE. */
  observation?: InputMaybe<Scalars['String']['input']>;
  /** At most 1 MB; stored redacted with a BLAKE3 hash of the original. */
  parameters?: InputMaybe<Scalars['JSON']['input']>;
  result?: InputMaybe<StepResultInput>;
  /** Repeating a key returns the original step instead of a second one. At most 256 characters. */
  sideEffectKey?: InputMaybe<Scalars['String']['input']>;
  /** When the step really ran (importing a past run): not in the future, not before its episode started. */
  startedAt?: InputMaybe<Scalars['DateTime']['input']>;
  tokens?: InputMaybe<Scalars['Int']['input']>;
  tool?: InputMaybe<Scalars['String']['input']>;
  /** At most 1 MB. */
  worldAfter?: InputMaybe<Scalars['JSON']['input']>;
  /** At most 1 MB. */
  worldBefore?: InputMaybe<Scalars['JSON']['input']>;
};

export type StepItemResult = {
  __typename?: 'StepItemResult';
  /** Position of the step in the request. */
  index: Maybe<Scalars['Int']['output']>;
  message: Maybe<Scalars['String']['output']>;
  /** budget_exhausted, step_limit, episode_size_limit, blob_cap, time_order, or invalid (onInvalidStep REJECT_STEP: see violations) */
  reason: Maybe<Scalars['String']['output']>;
  status: Maybe<StepItemStatus>;
  /** The step as stored (a duplicate's is the original): its content counts against the request's MAX_RESPONSE_BYTES before it is read. */
  step: Maybe<Step>;
  stepNumber: Maybe<Scalars['Int']['output']>;
  /** Why an invalid step was rejected: each field and its limit. */
  violations: Maybe<Array<LimitViolation>>;
};

export type StepItemStatus =
  | 'ACCEPTED'
  | 'DUPLICATE'
  | 'REJECTED';

/** success {output} | error {message, errorClass, output} | timeout */
export type StepResultInput = {
  /** At most 100 characters. */
  errorClass?: InputMaybe<Scalars['String']['input']>;
  kind: StepResultKind;
  /** ERROR: at most 10 KB inline; up to 16 MB with largeContent BLOB or TRUNCATE. */
  message?: InputMaybe<Scalars['String']['input']>;
  /** SUCCESS or ERROR (an error keeps its full output). At most 1 MB inline; up to 16 MB with largeContent BLOB or TRUNCATE. */
  output?: InputMaybe<Scalars['String']['input']>;
};

export type StepResultKind =
  | 'ERROR'
  | 'SUCCESS'
  | 'TIMEOUT';

/** One steps.logged ledger event and the steps it covers. */
export type StepsLoggedEvent = {
  __typename?: 'StepsLoggedEvent';
  episodeId: Maybe<Scalars['ID']['output']>;
  seq: Maybe<Scalars['BigInt']['output']>;
  /** Their content counts against MAX_RESPONSE_BYTES before it is read, each event on a budget of its own (a subscription's events are answers of their own). */
  steps: Maybe<Array<Step>>;
};

/** Why an episode, or a work item loop of episodes, stopped: completed, budget exhausted, max episodes, blocked, escalated, cancelled, failed or error. */
export type StopReason = {
  __typename?: 'StopReason';
  canContinue: Maybe<Scalars['Boolean']['output']>;
  isSuccessful: Maybe<Scalars['Boolean']['output']>;
  /** completed, budget_exhausted, max_episodes, blocked, escalated, error, cancelled, failed */
  kind: Maybe<Scalars['String']['output']>;
  reason: Maybe<Scalars['String']['output']>;
  recoverable: Maybe<Scalars['Boolean']['output']>;
  resource: Maybe<Scalars['String']['output']>;
};

/** Live views of the ledger. A subscription that ends early says, in extensions.resumeAfterSeq, where to resume. */
export type Subscription = {
  __typename?: 'Subscription';
  /** The episode as it is now, then again each time one of its ledger events commits. */
  episodeUpdated: Maybe<Episode>;
  /** Events of your tenant in seq order: a replay after afterSeq, then live, with no gap and no duplicate. */
  ledgerEvents: Maybe<LedgerEvent>;
  /** Each batch of steps journaled for the episode, with the steps. */
  stepsLogged: Maybe<StepsLoggedEvent>;
};


/** Live views of the ledger. A subscription that ends early says, in extensions.resumeAfterSeq, where to resume. */
export type SubscriptionEpisodeUpdatedArgs = {
  id: Scalars['ID']['input'];
};


/** Live views of the ledger. A subscription that ends early says, in extensions.resumeAfterSeq, where to resume. */
export type SubscriptionLedgerEventsArgs = {
  afterSeq?: InputMaybe<Scalars['BigInt']['input']>;
  filter?: InputMaybe<LedgerEventFilter>;
};


/** Live views of the ledger. A subscription that ends early says, in extensions.resumeAfterSeq, where to resume. */
export type SubscriptionStepsLoggedArgs = {
  afterSeq?: InputMaybe<Scalars['BigInt']['input']>;
  episodeId: Scalars['ID']['input'];
};

export type TaskContext = {
  __typename?: 'TaskContext';
  complexity: Maybe<Complexity>;
  domain: Maybe<Scalars['String']['output']>;
  framework: Maybe<Scalars['String']['output']>;
  language: Maybe<Scalars['String']['output']>;
  tags: Maybe<Array<Scalars['String']['output']>>;
};

export type TaskContextInput = {
  complexity?: InputMaybe<Complexity>;
  domain?: InputMaybe<Scalars['String']['input']>;
  framework?: InputMaybe<Scalars['String']['input']>;
  language?: InputMaybe<Scalars['String']['input']>;
  tags?: InputMaybe<Array<Scalars['String']['input']>>;
};

export type Tenant = {
  __typename?: 'Tenant';
  createdAt: Maybe<Scalars['DateTime']['output']>;
  id: Maybe<Scalars['ID']['output']>;
  name: Maybe<Scalars['String']['output']>;
};

/** The tenant's retention periods, in days after a run ended: its own (null: the server's STEP_RETENTION_DAYS / RUN_RETENTION_DAYS) and what applies. A sweep forgets what is past them, recorded in the ledger (docs/LEDGER.md §3.4). */
export type TenantRetention = {
  __typename?: 'TenantRetention';
  /** The period applied to whole runs; null: kept. */
  effectiveRunDays: Maybe<Scalars['Int']['output']>;
  /** The period applied to step content; null: kept. */
  effectiveStepDays: Maybe<Scalars['Int']['output']>;
  /** The tenant's own period for whole runs; null: the server's. */
  runDays: Maybe<Scalars['Int']['output']>;
  /** The tenant's own period for step content; null: the server's. */
  stepDays: Maybe<Scalars['Int']['output']>;
};

export type ToolStats = {
  __typename?: 'ToolStats';
  calls: Maybe<Scalars['Int']['output']>;
  /** (errors + timeouts) / calls */
  errorRate: Maybe<Scalars['Float']['output']>;
  errors: Maybe<Scalars['Int']['output']>;
  timeouts: Maybe<Scalars['Int']['output']>;
  tool: Maybe<Scalars['String']['output']>;
};

export type VirtueScore = {
  __typename?: 'VirtueScore';
  name: Maybe<Scalars['String']['output']>;
  score: Maybe<Scalars['Float']['output']>;
};

export type VirtueScoreInput = {
  name: Scalars['String']['input'];
  score: Scalars['Float']['input'];
};

export type WorkItem = {
  __typename?: 'WorkItem';
  createdAt: Maybe<Scalars['DateTime']['output']>;
  description: Maybe<Scalars['String']['output']>;
  episodes: Maybe<WorkItemEpisodesConnection>;
  id: Maybe<Scalars['ID']['output']>;
  /** Highest episode number issued; the next is higher. */
  lastEpisodeNumber: Maybe<Scalars['Int']['output']>;
  leases: Maybe<Array<Lease>>;
  /** How many episodes the loop may run in all; null is unlimited. */
  maxEpisodes: Maybe<Scalars['Int']['output']>;
  metadata: Maybe<Scalars['JSON']['output']>;
  /** Why the loop of episodes stopped, decided by the server when an episode ended; null while it may go on. No episode starts while set. */
  stopCondition: Maybe<StopReason>;
  stoppedAt: Maybe<Scalars['DateTime']['output']>;
  title: Maybe<Scalars['String']['output']>;
};


export type WorkItemEpisodesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
};

export type WorkItemEpisodesConnection = {
  __typename?: 'WorkItemEpisodesConnection';
  edges: Array<WorkItemEpisodesConnectionEdge>;
  pageInfo: PageInfo;
};

export type WorkItemEpisodesConnectionEdge = {
  __typename?: 'WorkItemEpisodesConnectionEdge';
  cursor: Scalars['String']['output'];
  node: Episode;
};

export type WorkItemPayload = {
  __typename?: 'WorkItemPayload';
  workItem: Maybe<WorkItem>;
};
