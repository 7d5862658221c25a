/* eslint-disable */
import * as types from './graphql';



/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query Viewer { viewer { name } }\n": typeof types.ViewerDocument,
    "\n  query Dashboard($filter: DashboardFilter!) {\n    dashboard(filter: $filter) {\n      __typename\n      ... on Dashboard {\n        from bucketSeconds steps latencyP50 latencyP95\n        totals { runs ended successes partials failures successRate tokens cost budgetExhaustions patternsLearned retrievalsServed retrievalsCredited }\n        series {\n          start runs running blocked completed failed cancelled escalated successes partials failures tokens cost budgetExhaustions\n          patternsLearned retrievalsServed retrievalsCredited steps latencyP50 latencyP95\n        }\n        tools { tool calls errors timeouts errorRate }\n        budgetExhaustions { resource count }\n        usageByModel { ...ModelUsageLine }\n      }\n      ... on InputLimitError { message }\n    }\n    otlpRefusals { kind count lastAt lastTraceId lastSpanId lastReason }\n  }\n": typeof types.DashboardDocument,
    "\n  fragment EpisodePage on Episode {\n    id taskDescription taskType status mode agent startedAt endedAt timesKnown usedCost goalSpec approvalRequest blockedReason metadata stepCount\n    costKnown usageByModel { ...ModelUsageLine }\n    retrievalCredits { seq retrievalIds target outcome episodesCredited patternsCredited createdAt }\n    context { language framework complexity domain tags }\n    budgetUsage { resource used limit fraction }\n    stopReason { kind reason resource recoverable isSuccessful canContinue }\n    outcome { kind verdict artifacts completed failed reason details }\n    critique { verdict score feedback virtueScores { name score } }\n    checkpoints { id label stepNumber createdAt state }\n    reward { total normalized base efficiency qualityMultiplier complexityBonus learningBonus }\n    reflection { successes improvements insights }\n  }\n": typeof types.EpisodePageFragmentDoc,
    "\n  query Episode($id: ID!) {\n    episode(id: $id) { __typename ... on Episode { ...EpisodePage } ... on NotFoundError { message } }\n    patterns(first: 50, filter: { episodeId: $id }) { edges { node { id kind summary lift successRate occurrences } } }\n  }\n": typeof types.EpisodeDocument,
    "\n  subscription EpisodeUpdated($id: ID!) { episodeUpdated(id: $id) { ...EpisodePage } }\n": typeof types.EpisodeUpdatedDocument,
    "\n  subscription Steps($episodeId: ID!, $afterSeq: BigInt) {\n    stepsLogged(episodeId: $episodeId, afterSeq: $afterSeq) { seq steps { stepNumber kind tool action resultKind latencyMs tokens observation } }\n  }\n": typeof types.StepsDocument,
    "\n  query Episodes($filter: EpisodeFilter, $first: Int, $after: String) {\n    episodes(filter: $filter, first: $first, after: $after) {\n      edges { node { id taskDescription taskType status stepCount usedTokens startedAt context { domain tags } outcome { kind } } }\n      pageInfo { hasNextPage endCursor }\n    }\n  }\n": typeof types.EpisodesDocument,
    "\n  query Experiments { experiments { id name kind status controlShare control minSample startedAt pausedAt scopeAgent scopeTaskType scopeWorkItemId } }\n": typeof types.ExperimentsDocument,
    "\n  query MemoryImpact($id: ID!) {\n    memoryImpact(experimentId: $id) {\n      __typename\n      ... on MemoryImpact {\n        verdict method sentence difference differenceLow differenceHigh pValue wins losses ties\n        experiment { id name minSample kind }\n        arms { ...ArmRow }\n        unasked { ...ArmRow }\n      }\n      ... on NotFoundError { message }\n    }\n  }\n": typeof types.MemoryImpactDocument,
    "\n  fragment ArmRow on ArmMeasures { arm assigned ended successes successRate meanReward meanSteps meanTokens meanCost meanWallMs }\n": typeof types.ArmRowFragmentDoc,
    "\n  fragment LedgerEventFields on LedgerEvent { tenantId seq type episodeId workItemId payload createdAt prevHash hash }\n": typeof types.LedgerEventFieldsFragmentDoc,
    "\n  query LedgerHead { ledgerHead { seq } }\n": typeof types.LedgerHeadDocument,
    "\n  query EventAt($after: String) {\n    ledgerEvents(after: $after, first: 1) {\n      __typename\n      ... on LedgerEventConnection { edges { node { ...LedgerEventFields } } }\n      ... on InputLimitError { message }\n    }\n  }\n": typeof types.EventAtDocument,
    "\n  subscription Ledger($afterSeq: BigInt) { ledgerEvents(afterSeq: $afterSeq) { ...LedgerEventFields } }\n": typeof types.LedgerDocument,
    "\n  fragment ModelUsageLine on ModelUsage { model calls inputTokens outputTokens tokens cost knownCost }\n": typeof types.ModelUsageLineFragmentDoc,
    "\n  query Patterns($first: Int) {\n    patterns(first: $first) {\n      edges {\n        node {\n          id kind description summary failedInstead signature occurrences successes successRate effectiveness meanReward lift feedbackCredit createdAt\n          context { domain language }\n        }\n      }\n    }\n  }\n": typeof types.PatternsDocument,
    "\n  query PatternEpisodes($id: ID!) {\n    pattern(id: $id) {\n      __typename\n      ... on Pattern { episodes(first: 50) { edges { node { success reward kept observedAt episode { id taskDescription status } } } } }\n      ... on NotFoundError { message }\n    }\n  }\n": typeof types.PatternEpisodesDocument,
    "\n  query Proof($id: ID!) {\n    episodeProofBundle(episodeId: $id) {\n      __typename\n      ... on EpisodeProofBundle { bundle eventCount }\n      ... on NotFoundError { message }\n      ... on NotCheckpointedError { message retryAfterMs }\n    }\n    ledgerPublicKey { keyId publicKey }\n  }\n": typeof types.ProofDocument,
    "\n  query EpisodeSpans($id: ID!, $first: Int) {\n    episode(id: $id) {\n      __typename\n      ... on Episode { steps(first: $first) { edges { node { stepNumber kind tool action startedAt endedAt latencyMs tokens resultKind metadata result } } } }\n    }\n  }\n": typeof types.EpisodeSpansDocument,
};
const documents: Documents = {
    "\n  query Viewer { viewer { name } }\n": types.ViewerDocument,
    "\n  query Dashboard($filter: DashboardFilter!) {\n    dashboard(filter: $filter) {\n      __typename\n      ... on Dashboard {\n        from bucketSeconds steps latencyP50 latencyP95\n        totals { runs ended successes partials failures successRate tokens cost budgetExhaustions patternsLearned retrievalsServed retrievalsCredited }\n        series {\n          start runs running blocked completed failed cancelled escalated successes partials failures tokens cost budgetExhaustions\n          patternsLearned retrievalsServed retrievalsCredited steps latencyP50 latencyP95\n        }\n        tools { tool calls errors timeouts errorRate }\n        budgetExhaustions { resource count }\n        usageByModel { ...ModelUsageLine }\n      }\n      ... on InputLimitError { message }\n    }\n    otlpRefusals { kind count lastAt lastTraceId lastSpanId lastReason }\n  }\n": types.DashboardDocument,
    "\n  fragment EpisodePage on Episode {\n    id taskDescription taskType status mode agent startedAt endedAt timesKnown usedCost goalSpec approvalRequest blockedReason metadata stepCount\n    costKnown usageByModel { ...ModelUsageLine }\n    retrievalCredits { seq retrievalIds target outcome episodesCredited patternsCredited createdAt }\n    context { language framework complexity domain tags }\n    budgetUsage { resource used limit fraction }\n    stopReason { kind reason resource recoverable isSuccessful canContinue }\n    outcome { kind verdict artifacts completed failed reason details }\n    critique { verdict score feedback virtueScores { name score } }\n    checkpoints { id label stepNumber createdAt state }\n    reward { total normalized base efficiency qualityMultiplier complexityBonus learningBonus }\n    reflection { successes improvements insights }\n  }\n": types.EpisodePageFragmentDoc,
    "\n  query Episode($id: ID!) {\n    episode(id: $id) { __typename ... on Episode { ...EpisodePage } ... on NotFoundError { message } }\n    patterns(first: 50, filter: { episodeId: $id }) { edges { node { id kind summary lift successRate occurrences } } }\n  }\n": types.EpisodeDocument,
    "\n  subscription EpisodeUpdated($id: ID!) { episodeUpdated(id: $id) { ...EpisodePage } }\n": types.EpisodeUpdatedDocument,
    "\n  subscription Steps($episodeId: ID!, $afterSeq: BigInt) {\n    stepsLogged(episodeId: $episodeId, afterSeq: $afterSeq) { seq steps { stepNumber kind tool action resultKind latencyMs tokens observation } }\n  }\n": types.StepsDocument,
    "\n  query Episodes($filter: EpisodeFilter, $first: Int, $after: String) {\n    episodes(filter: $filter, first: $first, after: $after) {\n      edges { node { id taskDescription taskType status stepCount usedTokens startedAt context { domain tags } outcome { kind } } }\n      pageInfo { hasNextPage endCursor }\n    }\n  }\n": types.EpisodesDocument,
    "\n  query Experiments { experiments { id name kind status controlShare control minSample startedAt pausedAt scopeAgent scopeTaskType scopeWorkItemId } }\n": types.ExperimentsDocument,
    "\n  query MemoryImpact($id: ID!) {\n    memoryImpact(experimentId: $id) {\n      __typename\n      ... on MemoryImpact {\n        verdict method sentence difference differenceLow differenceHigh pValue wins losses ties\n        experiment { id name minSample kind }\n        arms { ...ArmRow }\n        unasked { ...ArmRow }\n      }\n      ... on NotFoundError { message }\n    }\n  }\n": types.MemoryImpactDocument,
    "\n  fragment ArmRow on ArmMeasures { arm assigned ended successes successRate meanReward meanSteps meanTokens meanCost meanWallMs }\n": types.ArmRowFragmentDoc,
    "\n  fragment LedgerEventFields on LedgerEvent { tenantId seq type episodeId workItemId payload createdAt prevHash hash }\n": types.LedgerEventFieldsFragmentDoc,
    "\n  query LedgerHead { ledgerHead { seq } }\n": types.LedgerHeadDocument,
    "\n  query EventAt($after: String) {\n    ledgerEvents(after: $after, first: 1) {\n      __typename\n      ... on LedgerEventConnection { edges { node { ...LedgerEventFields } } }\n      ... on InputLimitError { message }\n    }\n  }\n": types.EventAtDocument,
    "\n  subscription Ledger($afterSeq: BigInt) { ledgerEvents(afterSeq: $afterSeq) { ...LedgerEventFields } }\n": types.LedgerDocument,
    "\n  fragment ModelUsageLine on ModelUsage { model calls inputTokens outputTokens tokens cost knownCost }\n": types.ModelUsageLineFragmentDoc,
    "\n  query Patterns($first: Int) {\n    patterns(first: $first) {\n      edges {\n        node {\n          id kind description summary failedInstead signature occurrences successes successRate effectiveness meanReward lift feedbackCredit createdAt\n          context { domain language }\n        }\n      }\n    }\n  }\n": types.PatternsDocument,
    "\n  query PatternEpisodes($id: ID!) {\n    pattern(id: $id) {\n      __typename\n      ... on Pattern { episodes(first: 50) { edges { node { success reward kept observedAt episode { id taskDescription status } } } } }\n      ... on NotFoundError { message }\n    }\n  }\n": types.PatternEpisodesDocument,
    "\n  query Proof($id: ID!) {\n    episodeProofBundle(episodeId: $id) {\n      __typename\n      ... on EpisodeProofBundle { bundle eventCount }\n      ... on NotFoundError { message }\n      ... on NotCheckpointedError { message retryAfterMs }\n    }\n    ledgerPublicKey { keyId publicKey }\n  }\n": types.ProofDocument,
    "\n  query EpisodeSpans($id: ID!, $first: Int) {\n    episode(id: $id) {\n      __typename\n      ... on Episode { steps(first: $first) { edges { node { stepNumber kind tool action startedAt endedAt latencyMs tokens resultKind metadata result } } } }\n    }\n  }\n": types.EpisodeSpansDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Viewer { viewer { name } }\n"): typeof import('./graphql').ViewerDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Dashboard($filter: DashboardFilter!) {\n    dashboard(filter: $filter) {\n      __typename\n      ... on Dashboard {\n        from bucketSeconds steps latencyP50 latencyP95\n        totals { runs ended successes partials failures successRate tokens cost budgetExhaustions patternsLearned retrievalsServed retrievalsCredited }\n        series {\n          start runs running blocked completed failed cancelled escalated successes partials failures tokens cost budgetExhaustions\n          patternsLearned retrievalsServed retrievalsCredited steps latencyP50 latencyP95\n        }\n        tools { tool calls errors timeouts errorRate }\n        budgetExhaustions { resource count }\n        usageByModel { ...ModelUsageLine }\n      }\n      ... on InputLimitError { message }\n    }\n    otlpRefusals { kind count lastAt lastTraceId lastSpanId lastReason }\n  }\n"): typeof import('./graphql').DashboardDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment EpisodePage on Episode {\n    id taskDescription taskType status mode agent startedAt endedAt timesKnown usedCost goalSpec approvalRequest blockedReason metadata stepCount\n    costKnown usageByModel { ...ModelUsageLine }\n    retrievalCredits { seq retrievalIds target outcome episodesCredited patternsCredited createdAt }\n    context { language framework complexity domain tags }\n    budgetUsage { resource used limit fraction }\n    stopReason { kind reason resource recoverable isSuccessful canContinue }\n    outcome { kind verdict artifacts completed failed reason details }\n    critique { verdict score feedback virtueScores { name score } }\n    checkpoints { id label stepNumber createdAt state }\n    reward { total normalized base efficiency qualityMultiplier complexityBonus learningBonus }\n    reflection { successes improvements insights }\n  }\n"): typeof import('./graphql').EpisodePageFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Episode($id: ID!) {\n    episode(id: $id) { __typename ... on Episode { ...EpisodePage } ... on NotFoundError { message } }\n    patterns(first: 50, filter: { episodeId: $id }) { edges { node { id kind summary lift successRate occurrences } } }\n  }\n"): typeof import('./graphql').EpisodeDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription EpisodeUpdated($id: ID!) { episodeUpdated(id: $id) { ...EpisodePage } }\n"): typeof import('./graphql').EpisodeUpdatedDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription Steps($episodeId: ID!, $afterSeq: BigInt) {\n    stepsLogged(episodeId: $episodeId, afterSeq: $afterSeq) { seq steps { stepNumber kind tool action resultKind latencyMs tokens observation } }\n  }\n"): typeof import('./graphql').StepsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Episodes($filter: EpisodeFilter, $first: Int, $after: String) {\n    episodes(filter: $filter, first: $first, after: $after) {\n      edges { node { id taskDescription taskType status stepCount usedTokens startedAt context { domain tags } outcome { kind } } }\n      pageInfo { hasNextPage endCursor }\n    }\n  }\n"): typeof import('./graphql').EpisodesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Experiments { experiments { id name kind status controlShare control minSample startedAt pausedAt scopeAgent scopeTaskType scopeWorkItemId } }\n"): typeof import('./graphql').ExperimentsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query MemoryImpact($id: ID!) {\n    memoryImpact(experimentId: $id) {\n      __typename\n      ... on MemoryImpact {\n        verdict method sentence difference differenceLow differenceHigh pValue wins losses ties\n        experiment { id name minSample kind }\n        arms { ...ArmRow }\n        unasked { ...ArmRow }\n      }\n      ... on NotFoundError { message }\n    }\n  }\n"): typeof import('./graphql').MemoryImpactDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ArmRow on ArmMeasures { arm assigned ended successes successRate meanReward meanSteps meanTokens meanCost meanWallMs }\n"): typeof import('./graphql').ArmRowFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment LedgerEventFields on LedgerEvent { tenantId seq type episodeId workItemId payload createdAt prevHash hash }\n"): typeof import('./graphql').LedgerEventFieldsFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query LedgerHead { ledgerHead { seq } }\n"): typeof import('./graphql').LedgerHeadDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query EventAt($after: String) {\n    ledgerEvents(after: $after, first: 1) {\n      __typename\n      ... on LedgerEventConnection { edges { node { ...LedgerEventFields } } }\n      ... on InputLimitError { message }\n    }\n  }\n"): typeof import('./graphql').EventAtDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription Ledger($afterSeq: BigInt) { ledgerEvents(afterSeq: $afterSeq) { ...LedgerEventFields } }\n"): typeof import('./graphql').LedgerDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ModelUsageLine on ModelUsage { model calls inputTokens outputTokens tokens cost knownCost }\n"): typeof import('./graphql').ModelUsageLineFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Patterns($first: Int) {\n    patterns(first: $first) {\n      edges {\n        node {\n          id kind description summary failedInstead signature occurrences successes successRate effectiveness meanReward lift feedbackCredit createdAt\n          context { domain language }\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').PatternsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PatternEpisodes($id: ID!) {\n    pattern(id: $id) {\n      __typename\n      ... on Pattern { episodes(first: 50) { edges { node { success reward kept observedAt episode { id taskDescription status } } } } }\n      ... on NotFoundError { message }\n    }\n  }\n"): typeof import('./graphql').PatternEpisodesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Proof($id: ID!) {\n    episodeProofBundle(episodeId: $id) {\n      __typename\n      ... on EpisodeProofBundle { bundle eventCount }\n      ... on NotFoundError { message }\n      ... on NotCheckpointedError { message retryAfterMs }\n    }\n    ledgerPublicKey { keyId publicKey }\n  }\n"): typeof import('./graphql').ProofDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query EpisodeSpans($id: ID!, $first: Int) {\n    episode(id: $id) {\n      __typename\n      ... on Episode { steps(first: $first) { edges { node { stepNumber kind tool action startedAt endedAt latencyMs tokens resultKind metadata result } } } }\n    }\n  }\n"): typeof import('./graphql').EpisodeSpansDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
