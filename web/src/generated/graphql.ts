/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type Complexity =
  | 'COMPLEX'
  | 'MODERATE'
  | 'SIMPLE';

/** What a holdout's control arm is served (or what an interleaving drafts against): NOTHING, FIXED_FORMULA (the ranking without the learned model), BM25 (the same candidates by BM25 over everything a run left, alone). */
export type ControlRanking =
  | 'BM25'
  | 'FIXED_FORMULA'
  | 'NOTHING';

export type DashboardFilter = {
  domain?: string | null | undefined;
  /** Omitted: all time, from the hour of the tenant's first run. */
  from?: string | null | undefined;
  taskType?: string | null | undefined;
  /** Exclusive; at most 3653 days after from. Omitted: the end of the current hour, or for all time (from omitted too) the end of the hour of the tenant's latest run. */
  to?: string | null | undefined;
};

export type EpisodeFilter = {
  agent?: string | null | undefined;
  domain?: string | null | undefined;
  language?: string | null | undefined;
  outcome?: OutcomeKind | null | undefined;
  /** The runs of one session: the episode's metadata.sessionId (OTLP: session.id, else gen_ai.conversation.id; docs/OTLP.md). */
  sessionId?: string | null | undefined;
  startedAfter?: string | null | undefined;
  startedBefore?: string | null | undefined;
  /** Any of these statuses. */
  status?: Array<EpisodeStatus> | null | undefined;
  /** Episodes carrying all of these tags. */
  tags?: Array<string> | null | undefined;
  taskType?: string | null | undefined;
  /** Case-insensitive match in the task description. */
  text?: string | null | undefined;
  workItemId?: string | null | undefined;
};

export type EpisodeMode =
  | 'DRY_RUN'
  | 'LIVE';

export type EpisodeStatus =
  | 'BLOCKED'
  | 'CANCELLED'
  | 'COMPLETED'
  | 'ESCALATED'
  | 'FAILED'
  | 'RUNNING';

/** HOLDOUT serves a seeded share of episodes the control arm; INTERLEAVE serves every episode both rankings merged (team draft). */
export type ExperimentKind =
  | 'HOLDOUT'
  | 'INTERLEAVE';

export type ExperimentStatus =
  | 'PAUSED'
  | 'RUNNING';

/** TOO_FEW_RUNS until the minimum sample; then RAISED or LOWERED when p < 0.05, else NO_DIFFERENCE. */
export type ImpactVerdict =
  | 'LOWERED'
  | 'NO_DIFFERENCE'
  | 'RAISED'
  | 'TOO_FEW_RUNS';

export type OutcomeKind =
  | 'FAILURE'
  | 'PARTIAL'
  | 'SUCCESS'
  | 'UNKNOWN';

/** FILE_CHANGE: tasks mentioning a term change a file; TASK_OUTCOME: tasks mentioning a term succeed more or less often; TOOL_OUTCOME: runs using a tool; ERROR_OUTCOME: runs hitting an error class or name; ERROR_FIX: runs whose failed steps showed an error name changed a file (served to tasks mentioning the error); PROCEDURE: a command that worked in most runs of a repository that ran it, normalised (`python tests/runtests.py`, `npm test`): how to run its tests or build it (served to tasks of that domain). */
export type PatternKind =
  | 'ERROR_FIX'
  | 'ERROR_OUTCOME'
  | 'FILE_CHANGE'
  | 'PROCEDURE'
  | 'TASK_OUTCOME'
  | 'TOOL_OUTCOME';

export type ViewerQueryVariables = Exact<{ [key: string]: never; }>;


export type ViewerQuery = { viewer: { name: string | null } | null };

export type DashboardQueryVariables = Exact<{
  filter: DashboardFilter;
}>;


export type DashboardQuery = { dashboard:
    | { __typename: 'Dashboard', from: string | null, bucketSeconds: number | null, steps: number | null, latencyP50: number | null, latencyP95: number | null, totals: { runs: number | null, ended: number | null, successes: number | null, partials: number | null, failures: number | null, successRate: number | null, tokens: number | null, cost: number | null, budgetExhaustions: number | null, patternsLearned: number | null, retrievalsServed: number | null, retrievalsCredited: number | null } | null, series: Array<{ start: string | null, runs: number | null, running: number | null, blocked: number | null, completed: number | null, failed: number | null, cancelled: number | null, escalated: number | null, successes: number | null, partials: number | null, failures: number | null, tokens: number | null, cost: number | null, budgetExhaustions: number | null, patternsLearned: number | null, retrievalsServed: number | null, retrievalsCredited: number | null, steps: number | null, latencyP50: number | null, latencyP95: number | null }> | null, tools: Array<{ tool: string | null, calls: number | null, errors: number | null, timeouts: number | null, errorRate: number | null }> | null, budgetExhaustions: Array<{ resource: string | null, count: number | null }> | null, usageByModel: Array<{ model: string | null, calls: number | null, inputTokens: number | null, outputTokens: number | null, tokens: number | null, cost: number | null, knownCost: number | null }> | null }
    | { __typename: 'InputLimitError', message: string | null }
   | null, otlpRefusals: Array<{ kind: string | null, count: number | null, lastAt: string | null, lastTraceId: string | null, lastSpanId: string | null, lastReason: string | null }> | null };

export type EpisodePageFragment = { id: string | null, taskDescription: string | null, taskType: string | null, status: EpisodeStatus | null, mode: EpisodeMode | null, agent: string | null, startedAt: string | null, endedAt: string | null, timesKnown: boolean | null, usedCost: number | null, goalSpec: unknown, approvalRequest: unknown, blockedReason: string | null, metadata: unknown, stepCount: number | null, costKnown: boolean | null, usageByModel: Array<{ model: string | null, calls: number | null, inputTokens: number | null, outputTokens: number | null, tokens: number | null, cost: number | null, knownCost: number | null }> | null, retrievalCredits: Array<{ seq: string | null, retrievalIds: Array<string> | null, target: number | null, outcome: string | null, episodesCredited: number | null, patternsCredited: number | null, createdAt: string | null }> | null, context: { language: string | null, framework: string | null, complexity: Complexity | null, domain: string | null, tags: Array<string> | null } | null, budgetUsage: Array<{ resource: string | null, used: number | null, limit: number | null, fraction: number | null }> | null, stopReason: { kind: string | null, reason: string | null, resource: string | null, recoverable: boolean | null, isSuccessful: boolean | null, canContinue: boolean | null } | null, outcome: { kind: OutcomeKind | null, verdict: string | null, artifacts: Array<string> | null, completed: Array<string> | null, failed: Array<string> | null, reason: string | null, details: string | null } | null, critique: { verdict: string | null, score: number | null, feedback: string | null, virtueScores: Array<{ name: string | null, score: number | null }> | null } | null, checkpoints: Array<{ id: string | null, label: string | null, stepNumber: number | null, createdAt: string | null, state: unknown }> | null, reward: { total: number | null, normalized: number | null, base: number | null, efficiency: number | null, qualityMultiplier: number | null, complexityBonus: number | null, learningBonus: number | null } | null, reflection: { successes: Array<string> | null, improvements: Array<string> | null, insights: Array<string> | null } | null };

export type EpisodeQueryVariables = Exact<{
  id: string;
}>;


export type EpisodeQuery = { episode:
    | { __typename: 'Episode', id: string | null, taskDescription: string | null, taskType: string | null, status: EpisodeStatus | null, mode: EpisodeMode | null, agent: string | null, startedAt: string | null, endedAt: string | null, timesKnown: boolean | null, usedCost: number | null, goalSpec: unknown, approvalRequest: unknown, blockedReason: string | null, metadata: unknown, stepCount: number | null, costKnown: boolean | null, usageByModel: Array<{ model: string | null, calls: number | null, inputTokens: number | null, outputTokens: number | null, tokens: number | null, cost: number | null, knownCost: number | null }> | null, retrievalCredits: Array<{ seq: string | null, retrievalIds: Array<string> | null, target: number | null, outcome: string | null, episodesCredited: number | null, patternsCredited: number | null, createdAt: string | null }> | null, context: { language: string | null, framework: string | null, complexity: Complexity | null, domain: string | null, tags: Array<string> | null } | null, budgetUsage: Array<{ resource: string | null, used: number | null, limit: number | null, fraction: number | null }> | null, stopReason: { kind: string | null, reason: string | null, resource: string | null, recoverable: boolean | null, isSuccessful: boolean | null, canContinue: boolean | null } | null, outcome: { kind: OutcomeKind | null, verdict: string | null, artifacts: Array<string> | null, completed: Array<string> | null, failed: Array<string> | null, reason: string | null, details: string | null } | null, critique: { verdict: string | null, score: number | null, feedback: string | null, virtueScores: Array<{ name: string | null, score: number | null }> | null } | null, checkpoints: Array<{ id: string | null, label: string | null, stepNumber: number | null, createdAt: string | null, state: unknown }> | null, reward: { total: number | null, normalized: number | null, base: number | null, efficiency: number | null, qualityMultiplier: number | null, complexityBonus: number | null, learningBonus: number | null } | null, reflection: { successes: Array<string> | null, improvements: Array<string> | null, insights: Array<string> | null } | null }
    | { __typename: 'NotFoundError', message: string | null }
   | null, patterns: { edges: Array<{ node: { id: string | null, kind: PatternKind | null, summary: string | null, lift: number | null, successRate: number | null, occurrences: number | null } }> } | null };

export type EpisodeUpdatedSubscriptionVariables = Exact<{
  id: string;
}>;


export type EpisodeUpdatedSubscription = { episodeUpdated: { id: string | null, taskDescription: string | null, taskType: string | null, status: EpisodeStatus | null, mode: EpisodeMode | null, agent: string | null, startedAt: string | null, endedAt: string | null, timesKnown: boolean | null, usedCost: number | null, goalSpec: unknown, approvalRequest: unknown, blockedReason: string | null, metadata: unknown, stepCount: number | null, costKnown: boolean | null, usageByModel: Array<{ model: string | null, calls: number | null, inputTokens: number | null, outputTokens: number | null, tokens: number | null, cost: number | null, knownCost: number | null }> | null, retrievalCredits: Array<{ seq: string | null, retrievalIds: Array<string> | null, target: number | null, outcome: string | null, episodesCredited: number | null, patternsCredited: number | null, createdAt: string | null }> | null, context: { language: string | null, framework: string | null, complexity: Complexity | null, domain: string | null, tags: Array<string> | null } | null, budgetUsage: Array<{ resource: string | null, used: number | null, limit: number | null, fraction: number | null }> | null, stopReason: { kind: string | null, reason: string | null, resource: string | null, recoverable: boolean | null, isSuccessful: boolean | null, canContinue: boolean | null } | null, outcome: { kind: OutcomeKind | null, verdict: string | null, artifacts: Array<string> | null, completed: Array<string> | null, failed: Array<string> | null, reason: string | null, details: string | null } | null, critique: { verdict: string | null, score: number | null, feedback: string | null, virtueScores: Array<{ name: string | null, score: number | null }> | null } | null, checkpoints: Array<{ id: string | null, label: string | null, stepNumber: number | null, createdAt: string | null, state: unknown }> | null, reward: { total: number | null, normalized: number | null, base: number | null, efficiency: number | null, qualityMultiplier: number | null, complexityBonus: number | null, learningBonus: number | null } | null, reflection: { successes: Array<string> | null, improvements: Array<string> | null, insights: Array<string> | null } | null } | null };

export type StepsSubscriptionVariables = Exact<{
  episodeId: string;
  afterSeq?: string | null | undefined;
}>;


export type StepsSubscription = { stepsLogged: { seq: string | null, steps: Array<{ stepNumber: number | null, kind: string | null, tool: string | null, action: string | null, resultKind: string | null, latencyMs: number | null, tokens: number | null, observation: string | null }> | null } | null };

export type EpisodesQueryVariables = Exact<{
  filter?: EpisodeFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type EpisodesQuery = { episodes: { edges: Array<{ node: { id: string | null, taskDescription: string | null, taskType: string | null, status: EpisodeStatus | null, stepCount: number | null, usedTokens: string | null, startedAt: string | null, context: { domain: string | null, tags: Array<string> | null } | null, outcome: { kind: OutcomeKind | null } | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } | null };

export type ExperimentsQueryVariables = Exact<{ [key: string]: never; }>;


export type ExperimentsQuery = { experiments: Array<{ id: string | null, name: string | null, kind: ExperimentKind | null, status: ExperimentStatus | null, controlShare: number | null, control: ControlRanking | null, minSample: number | null, startedAt: string | null, pausedAt: string | null, scopeAgent: string | null, scopeTaskType: string | null, scopeWorkItemId: string | null }> | null };

export type MemoryImpactQueryVariables = Exact<{
  id: string;
}>;


export type MemoryImpactQuery = { memoryImpact:
    | { __typename: 'MemoryImpact', verdict: ImpactVerdict | null, method: string | null, sentence: string | null, difference: number | null, differenceLow: number | null, differenceHigh: number | null, pValue: number | null, wins: number | null, losses: number | null, ties: number | null, experiment: { id: string | null, name: string | null, minSample: number | null, kind: ExperimentKind | null } | null, arms: Array<{ arm: string | null, assigned: number | null, ended: number | null, successes: number | null, successRate: number | null, meanReward: number | null, meanSteps: number | null, meanTokens: number | null, meanCost: number | null, meanWallMs: number | null }> | null, unasked: { arm: string | null, assigned: number | null, ended: number | null, successes: number | null, successRate: number | null, meanReward: number | null, meanSteps: number | null, meanTokens: number | null, meanCost: number | null, meanWallMs: number | null } | null }
    | { __typename: 'NotFoundError', message: string | null }
   | null };

export type ArmRowFragment = { arm: string | null, assigned: number | null, ended: number | null, successes: number | null, successRate: number | null, meanReward: number | null, meanSteps: number | null, meanTokens: number | null, meanCost: number | null, meanWallMs: number | null };

export type LedgerEventFieldsFragment = { tenantId: string | null, seq: string | null, type: string | null, episodeId: string | null, workItemId: string | null, payload: unknown, createdAt: string | null, prevHash: string | null, hash: string | null };

export type LedgerHeadQueryVariables = Exact<{ [key: string]: never; }>;


export type LedgerHeadQuery = { ledgerHead: { seq: string | null } | null };

export type EventAtQueryVariables = Exact<{
  after?: string | null | undefined;
}>;


export type EventAtQuery = { ledgerEvents:
    | { __typename: 'InputLimitError', message: string | null }
    | { __typename: 'LedgerEventConnection', edges: Array<{ node: { tenantId: string | null, seq: string | null, type: string | null, episodeId: string | null, workItemId: string | null, payload: unknown, createdAt: string | null, prevHash: string | null, hash: string | null } | null }> | null }
   | null };

export type LedgerSubscriptionVariables = Exact<{
  afterSeq?: string | null | undefined;
}>;


export type LedgerSubscription = { ledgerEvents: { tenantId: string | null, seq: string | null, type: string | null, episodeId: string | null, workItemId: string | null, payload: unknown, createdAt: string | null, prevHash: string | null, hash: string | null } | null };

export type ModelUsageLineFragment = { model: string | null, calls: number | null, inputTokens: number | null, outputTokens: number | null, tokens: number | null, cost: number | null, knownCost: number | null };

export type PatternsQueryVariables = Exact<{
  first?: number | null | undefined;
}>;


export type PatternsQuery = { patterns: { edges: Array<{ node: { id: string | null, kind: PatternKind | null, description: string | null, summary: string | null, failedInstead: Array<string> | null, signature: Array<string> | null, occurrences: number | null, successes: number | null, successRate: number | null, effectiveness: number | null, meanReward: number | null, lift: number | null, feedbackCredit: number | null, createdAt: string | null, context: { domain: string | null, language: string | null } | null } }> } | null };

export type PatternEpisodesQueryVariables = Exact<{
  id: string;
}>;


export type PatternEpisodesQuery = { pattern:
    | { __typename: 'NotFoundError', message: string | null }
    | { __typename: 'Pattern', episodes: { edges: Array<{ node: { success: boolean | null, reward: number | null, kept: boolean | null, observedAt: string | null, episode: { id: string | null, taskDescription: string | null, status: EpisodeStatus | null } | null } }> } | null }
   | null };

export type ProofQueryVariables = Exact<{
  id: string;
}>;


export type ProofQuery = { episodeProofBundle:
    | { __typename: 'EpisodeProofBundle', bundle: unknown, eventCount: number | null }
    | { __typename: 'NotCheckpointedError', message: string | null, retryAfterMs: number | null }
    | { __typename: 'NotFoundError', message: string | null }
   | null, ledgerPublicKey: { keyId: string | null, publicKey: string | null } | null };

export type EpisodeSpansQueryVariables = Exact<{
  id: string;
  first?: number | null | undefined;
}>;


export type EpisodeSpansQuery = { episode:
    | { __typename: 'Episode', steps: { edges: Array<{ node: { stepNumber: number | null, kind: string | null, tool: string | null, action: string | null, startedAt: string | null, endedAt: string | null, latencyMs: number | null, tokens: number | null, resultKind: string | null, metadata: unknown, result: unknown } }> } | null }
    | { __typename: 'NotFoundError' }
   | null };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const ModelUsageLineFragmentDoc = new TypedDocumentString(`
    fragment ModelUsageLine on ModelUsage {
  model
  calls
  inputTokens
  outputTokens
  tokens
  cost
  knownCost
}
    `, {"fragmentName":"ModelUsageLine"}) as unknown as TypedDocumentString<ModelUsageLineFragment, unknown>;
export const EpisodePageFragmentDoc = new TypedDocumentString(`
    fragment EpisodePage on Episode {
  id
  taskDescription
  taskType
  status
  mode
  agent
  startedAt
  endedAt
  timesKnown
  usedCost
  goalSpec
  approvalRequest
  blockedReason
  metadata
  stepCount
  costKnown
  usageByModel {
    ...ModelUsageLine
  }
  retrievalCredits {
    seq
    retrievalIds
    target
    outcome
    episodesCredited
    patternsCredited
    createdAt
  }
  context {
    language
    framework
    complexity
    domain
    tags
  }
  budgetUsage {
    resource
    used
    limit
    fraction
  }
  stopReason {
    kind
    reason
    resource
    recoverable
    isSuccessful
    canContinue
  }
  outcome {
    kind
    verdict
    artifacts
    completed
    failed
    reason
    details
  }
  critique {
    verdict
    score
    feedback
    virtueScores {
      name
      score
    }
  }
  checkpoints {
    id
    label
    stepNumber
    createdAt
    state
  }
  reward {
    total
    normalized
    base
    efficiency
    qualityMultiplier
    complexityBonus
    learningBonus
  }
  reflection {
    successes
    improvements
    insights
  }
}
    fragment ModelUsageLine on ModelUsage {
  model
  calls
  inputTokens
  outputTokens
  tokens
  cost
  knownCost
}`, {"fragmentName":"EpisodePage"}) as unknown as TypedDocumentString<EpisodePageFragment, unknown>;
export const ArmRowFragmentDoc = new TypedDocumentString(`
    fragment ArmRow on ArmMeasures {
  arm
  assigned
  ended
  successes
  successRate
  meanReward
  meanSteps
  meanTokens
  meanCost
  meanWallMs
}
    `, {"fragmentName":"ArmRow"}) as unknown as TypedDocumentString<ArmRowFragment, unknown>;
export const LedgerEventFieldsFragmentDoc = new TypedDocumentString(`
    fragment LedgerEventFields on LedgerEvent {
  tenantId
  seq
  type
  episodeId
  workItemId
  payload
  createdAt
  prevHash
  hash
}
    `, {"fragmentName":"LedgerEventFields"}) as unknown as TypedDocumentString<LedgerEventFieldsFragment, unknown>;
export const ViewerDocument = new TypedDocumentString(`
    query Viewer {
  viewer {
    name
  }
}
    `) as unknown as TypedDocumentString<ViewerQuery, ViewerQueryVariables>;
export const DashboardDocument = new TypedDocumentString(`
    query Dashboard($filter: DashboardFilter!) {
  dashboard(filter: $filter) {
    __typename
    ... on Dashboard {
      from
      bucketSeconds
      steps
      latencyP50
      latencyP95
      totals {
        runs
        ended
        successes
        partials
        failures
        successRate
        tokens
        cost
        budgetExhaustions
        patternsLearned
        retrievalsServed
        retrievalsCredited
      }
      series {
        start
        runs
        running
        blocked
        completed
        failed
        cancelled
        escalated
        successes
        partials
        failures
        tokens
        cost
        budgetExhaustions
        patternsLearned
        retrievalsServed
        retrievalsCredited
        steps
        latencyP50
        latencyP95
      }
      tools {
        tool
        calls
        errors
        timeouts
        errorRate
      }
      budgetExhaustions {
        resource
        count
      }
      usageByModel {
        ...ModelUsageLine
      }
    }
    ... on InputLimitError {
      message
    }
  }
  otlpRefusals {
    kind
    count
    lastAt
    lastTraceId
    lastSpanId
    lastReason
  }
}
    fragment ModelUsageLine on ModelUsage {
  model
  calls
  inputTokens
  outputTokens
  tokens
  cost
  knownCost
}`) as unknown as TypedDocumentString<DashboardQuery, DashboardQueryVariables>;
export const EpisodeDocument = new TypedDocumentString(`
    query Episode($id: ID!) {
  episode(id: $id) {
    __typename
    ... on Episode {
      ...EpisodePage
    }
    ... on NotFoundError {
      message
    }
  }
  patterns(first: 50, filter: {episodeId: $id}) {
    edges {
      node {
        id
        kind
        summary
        lift
        successRate
        occurrences
      }
    }
  }
}
    fragment EpisodePage on Episode {
  id
  taskDescription
  taskType
  status
  mode
  agent
  startedAt
  endedAt
  timesKnown
  usedCost
  goalSpec
  approvalRequest
  blockedReason
  metadata
  stepCount
  costKnown
  usageByModel {
    ...ModelUsageLine
  }
  retrievalCredits {
    seq
    retrievalIds
    target
    outcome
    episodesCredited
    patternsCredited
    createdAt
  }
  context {
    language
    framework
    complexity
    domain
    tags
  }
  budgetUsage {
    resource
    used
    limit
    fraction
  }
  stopReason {
    kind
    reason
    resource
    recoverable
    isSuccessful
    canContinue
  }
  outcome {
    kind
    verdict
    artifacts
    completed
    failed
    reason
    details
  }
  critique {
    verdict
    score
    feedback
    virtueScores {
      name
      score
    }
  }
  checkpoints {
    id
    label
    stepNumber
    createdAt
    state
  }
  reward {
    total
    normalized
    base
    efficiency
    qualityMultiplier
    complexityBonus
    learningBonus
  }
  reflection {
    successes
    improvements
    insights
  }
}
fragment ModelUsageLine on ModelUsage {
  model
  calls
  inputTokens
  outputTokens
  tokens
  cost
  knownCost
}`) as unknown as TypedDocumentString<EpisodeQuery, EpisodeQueryVariables>;
export const EpisodeUpdatedDocument = new TypedDocumentString(`
    subscription EpisodeUpdated($id: ID!) {
  episodeUpdated(id: $id) {
    ...EpisodePage
  }
}
    fragment EpisodePage on Episode {
  id
  taskDescription
  taskType
  status
  mode
  agent
  startedAt
  endedAt
  timesKnown
  usedCost
  goalSpec
  approvalRequest
  blockedReason
  metadata
  stepCount
  costKnown
  usageByModel {
    ...ModelUsageLine
  }
  retrievalCredits {
    seq
    retrievalIds
    target
    outcome
    episodesCredited
    patternsCredited
    createdAt
  }
  context {
    language
    framework
    complexity
    domain
    tags
  }
  budgetUsage {
    resource
    used
    limit
    fraction
  }
  stopReason {
    kind
    reason
    resource
    recoverable
    isSuccessful
    canContinue
  }
  outcome {
    kind
    verdict
    artifacts
    completed
    failed
    reason
    details
  }
  critique {
    verdict
    score
    feedback
    virtueScores {
      name
      score
    }
  }
  checkpoints {
    id
    label
    stepNumber
    createdAt
    state
  }
  reward {
    total
    normalized
    base
    efficiency
    qualityMultiplier
    complexityBonus
    learningBonus
  }
  reflection {
    successes
    improvements
    insights
  }
}
fragment ModelUsageLine on ModelUsage {
  model
  calls
  inputTokens
  outputTokens
  tokens
  cost
  knownCost
}`) as unknown as TypedDocumentString<EpisodeUpdatedSubscription, EpisodeUpdatedSubscriptionVariables>;
export const StepsDocument = new TypedDocumentString(`
    subscription Steps($episodeId: ID!, $afterSeq: BigInt) {
  stepsLogged(episodeId: $episodeId, afterSeq: $afterSeq) {
    seq
    steps {
      stepNumber
      kind
      tool
      action
      resultKind
      latencyMs
      tokens
      observation
    }
  }
}
    `) as unknown as TypedDocumentString<StepsSubscription, StepsSubscriptionVariables>;
export const EpisodesDocument = new TypedDocumentString(`
    query Episodes($filter: EpisodeFilter, $first: Int, $after: String) {
  episodes(filter: $filter, first: $first, after: $after) {
    edges {
      node {
        id
        taskDescription
        taskType
        status
        stepCount
        usedTokens
        startedAt
        context {
          domain
          tags
        }
        outcome {
          kind
        }
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    `) as unknown as TypedDocumentString<EpisodesQuery, EpisodesQueryVariables>;
export const ExperimentsDocument = new TypedDocumentString(`
    query Experiments {
  experiments {
    id
    name
    kind
    status
    controlShare
    control
    minSample
    startedAt
    pausedAt
    scopeAgent
    scopeTaskType
    scopeWorkItemId
  }
}
    `) as unknown as TypedDocumentString<ExperimentsQuery, ExperimentsQueryVariables>;
export const MemoryImpactDocument = new TypedDocumentString(`
    query MemoryImpact($id: ID!) {
  memoryImpact(experimentId: $id) {
    __typename
    ... on MemoryImpact {
      verdict
      method
      sentence
      difference
      differenceLow
      differenceHigh
      pValue
      wins
      losses
      ties
      experiment {
        id
        name
        minSample
        kind
      }
      arms {
        ...ArmRow
      }
      unasked {
        ...ArmRow
      }
    }
    ... on NotFoundError {
      message
    }
  }
}
    fragment ArmRow on ArmMeasures {
  arm
  assigned
  ended
  successes
  successRate
  meanReward
  meanSteps
  meanTokens
  meanCost
  meanWallMs
}`) as unknown as TypedDocumentString<MemoryImpactQuery, MemoryImpactQueryVariables>;
export const LedgerHeadDocument = new TypedDocumentString(`
    query LedgerHead {
  ledgerHead {
    seq
  }
}
    `) as unknown as TypedDocumentString<LedgerHeadQuery, LedgerHeadQueryVariables>;
export const EventAtDocument = new TypedDocumentString(`
    query EventAt($after: String) {
  ledgerEvents(after: $after, first: 1) {
    __typename
    ... on LedgerEventConnection {
      edges {
        node {
          ...LedgerEventFields
        }
      }
    }
    ... on InputLimitError {
      message
    }
  }
}
    fragment LedgerEventFields on LedgerEvent {
  tenantId
  seq
  type
  episodeId
  workItemId
  payload
  createdAt
  prevHash
  hash
}`) as unknown as TypedDocumentString<EventAtQuery, EventAtQueryVariables>;
export const LedgerDocument = new TypedDocumentString(`
    subscription Ledger($afterSeq: BigInt) {
  ledgerEvents(afterSeq: $afterSeq) {
    ...LedgerEventFields
  }
}
    fragment LedgerEventFields on LedgerEvent {
  tenantId
  seq
  type
  episodeId
  workItemId
  payload
  createdAt
  prevHash
  hash
}`) as unknown as TypedDocumentString<LedgerSubscription, LedgerSubscriptionVariables>;
export const PatternsDocument = new TypedDocumentString(`
    query Patterns($first: Int) {
  patterns(first: $first) {
    edges {
      node {
        id
        kind
        description
        summary
        failedInstead
        signature
        occurrences
        successes
        successRate
        effectiveness
        meanReward
        lift
        feedbackCredit
        createdAt
        context {
          domain
          language
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<PatternsQuery, PatternsQueryVariables>;
export const PatternEpisodesDocument = new TypedDocumentString(`
    query PatternEpisodes($id: ID!) {
  pattern(id: $id) {
    __typename
    ... on Pattern {
      episodes(first: 50) {
        edges {
          node {
            success
            reward
            kept
            observedAt
            episode {
              id
              taskDescription
              status
            }
          }
        }
      }
    }
    ... on NotFoundError {
      message
    }
  }
}
    `) as unknown as TypedDocumentString<PatternEpisodesQuery, PatternEpisodesQueryVariables>;
export const ProofDocument = new TypedDocumentString(`
    query Proof($id: ID!) {
  episodeProofBundle(episodeId: $id) {
    __typename
    ... on EpisodeProofBundle {
      bundle
      eventCount
    }
    ... on NotFoundError {
      message
    }
    ... on NotCheckpointedError {
      message
      retryAfterMs
    }
  }
  ledgerPublicKey {
    keyId
    publicKey
  }
}
    `) as unknown as TypedDocumentString<ProofQuery, ProofQueryVariables>;
export const EpisodeSpansDocument = new TypedDocumentString(`
    query EpisodeSpans($id: ID!, $first: Int) {
  episode(id: $id) {
    __typename
    ... on Episode {
      steps(first: $first) {
        edges {
          node {
            stepNumber
            kind
            tool
            action
            startedAt
            endedAt
            latencyMs
            tokens
            resultKind
            metadata
            result
          }
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<EpisodeSpansQuery, EpisodeSpansQueryVariables>;