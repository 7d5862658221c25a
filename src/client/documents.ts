// The GraphQL documents the client sends. Each union selection names only its own members;
// NotFoundError.id is aliased to notFoundId because it is a String where Episode.id is an ID.
// The tests select errors with these same selections (test/lifecycle/support.ts).
export const ERROR_SELECTIONS = {
  InputLimitError: '... on InputLimitError { violations { field limit actual message } }',
  IllegalTransitionError: '... on IllegalTransitionError { from action allowed }',
  LeaseError: '... on LeaseError { leaseId rule violations { field limit actual message } }',
  IdempotencyConflictError: '... on IdempotencyConflictError { dedupeKey existingEpisodeId }',
  NotFoundError: '... on NotFoundError { entity notFoundId: id }',
  NotCheckpointedError: '... on NotCheckpointedError { seq checkpointTreeSize retryAfterMs }',
  LoopStoppedError: '... on LoopStoppedError { workItemId stopCondition { kind reason resource recoverable isSuccessful canContinue } }',
} as const;

export type ErrorName = keyof typeof ERROR_SELECTIONS;

/** __typename, the message, and the fields of each error type (only members of the result union may be named). */
export function errors(...types: ErrorName[]): string {
  return `__typename ... on Error { message } ${types.map((t) => ERROR_SELECTIONS[t]).join(' ')}`;
}

const TRANSITION = errors('IllegalTransitionError', 'InputLimitError', 'NotFoundError');

export const EPISODE_FIELDS = `id status phase episodeNumber taskDescription taskType agent dedupeKey mode attempt maxAttempts
  stepCount usedTokens usedToolCalls usedCost goalSpec metadata blockedReason approvalRequest startedAt endedAt timesKnown wallTimeMs deadlineAt forgottenAt
  context { language framework complexity domain tags }
  outcome { kind verdict artifacts completed failed reason details }
  stopReason { kind reason resource recoverable isSuccessful canContinue }
  budgetUsage { resource used limit remaining fraction }
  critique { verdict score feedback virtueScores { name score } }
  checkpoints { id label state stepNumber createdAt }
  workItem { id lastEpisodeNumber } lease { id }`;

export const STEP_FIELDS = `id stepNumber kind tool action parameters argsHash contentHash result resultKind observation latencyMs
  tokens cost sideEffectKey worldBefore worldAfter metadata startedAt endedAt contentRefs { field hash sizeBytes stored } createdAt`;

const LEDGER_EVENT_FIELDS = 'seq type episodeId workItemId payload createdAt prevHash hash tenantId';

const STEP_RESULT_FIELDS = 'index status stepNumber reason message step { id stepNumber } violations { field limit actual message }';
const AMOUNTS = '{ episodes toolCalls tokens wallMs }';
const LEASE_FIELDS = `id issuer holder scope expiresAt revokedAt budget ${AMOUNTS} consumed ${AMOUNTS} reserved ${AMOUNTS} remaining ${AMOUNTS}
  workItem { id } parent { id }`;
const LEASE_CHARGE_FIELDS = `ok exhausted overdrawn hold ${AMOUNTS} charged ${AMOUNTS} released ${AMOUNTS}
  remainingEpisodes remainingToolCalls remainingTokens remainingWallMs`;
const STOP_FIELDS = 'kind reason resource recoverable isSuccessful canContinue';
const WORK_ITEM_FIELDS = `id title description lastEpisodeNumber maxEpisodes stopCondition { ${STOP_FIELDS} } stoppedAt createdAt`;
const API_KEY_FIELDS = 'id name prefix scopes createdAt expiresAt revokedAt lastUsedAt';
const TREE_HEAD_FIELDS = 'treeSize rootHash headHash issuedAt signature keyId tenantId';

const SCORED_EPISODE = `episode { ${EPISODE_FIELDS} } score { total similarity textRank taskText work change trigramSimilarity contextMatch reward recency feedback feedbackUses feedbackResemblance } failed whatWentWrong`;
const EPISODE_PAYLOAD = `${TRANSITION} ... on EpisodePayload { episode { ${EPISODE_FIELDS} } }`;
const FINISH_PAYLOAD = `${TRANSITION} ... on FinishEpisodePayload { episode { ${EPISODE_FIELDS} } leaseCharge { ${LEASE_CHARGE_FIELDS} } stopCondition { ${STOP_FIELDS} } }`;

const RETENTION_FIELDS = 'stepDays runDays effectiveStepDays effectiveRunDays';

export const DOCUMENTS = {
  startEpisode: `mutation StartEpisode($input: StartEpisodeInput!) { result: startEpisode(input: $input) {
    ${errors('IdempotencyConflictError', 'InputLimitError', 'LeaseError', 'LoopStoppedError', 'NotFoundError')}
    ... on StartEpisodePayload { deduplicated episode { ${EPISODE_FIELDS} } } } }`,
  logSteps: `mutation LogSteps($episodeId: ID!, $steps: [StepInput!]!, $options: LogStepsOptions) { result: logSteps(episodeId: $episodeId, steps: $steps, options: $options) {
    ${TRANSITION} ... on LogStepsPayload { accepted duplicates rejected budgetExhausted results { ${STEP_RESULT_FIELDS} } episode { ${EPISODE_FIELDS} } } } }`,
  logStep: `mutation LogStep($episodeId: ID!, $step: StepInput!) { result: logStep(episodeId: $episodeId, step: $step) {
    ${TRANSITION} ... on LogStepPayload { budgetExhausted result { ${STEP_RESULT_FIELDS} } episode { ${EPISODE_FIELDS} } } } }`,
  completeEpisode: `mutation CompleteEpisode($episodeId: ID!, $outcome: OutcomeInput!, $usedRetrievals: [ID!], $endedAt: DateTime) {
    result: completeEpisode(episodeId: $episodeId, outcome: $outcome, usedRetrievals: $usedRetrievals, endedAt: $endedAt) { ${FINISH_PAYLOAD} } }`,
  blob: `query Blob($hash: String!) { result: blob(hash: $hash) { ${errors('NotFoundError')} ... on Blob { hash sizeBytes content } } }`,
  failEpisode: `mutation FailEpisode($episodeId: ID!, $reason: String!, $recoverable: Boolean) {
    result: failEpisode(episodeId: $episodeId, reason: $reason, recoverable: $recoverable) { ${FINISH_PAYLOAD} } }`,
  escalateEpisode: `mutation EscalateEpisode($episodeId: ID!, $reason: String!) { result: escalateEpisode(episodeId: $episodeId, reason: $reason) { ${FINISH_PAYLOAD} } }`,
  cancelEpisode: `mutation CancelEpisode($episodeId: ID!, $reason: String) { result: cancelEpisode(episodeId: $episodeId, reason: $reason) { ${FINISH_PAYLOAD} } }`,
  blockEpisode: `mutation BlockEpisode($episodeId: ID!, $reason: String!, $approvalRequest: JSON) {
    result: blockEpisode(episodeId: $episodeId, reason: $reason, approvalRequest: $approvalRequest) { ${EPISODE_PAYLOAD} } }`,
  resumeEpisode: `mutation ResumeEpisode($episodeId: ID!, $approved: Boolean!, $decidedBy: String, $comment: String) {
    result: resumeEpisode(episodeId: $episodeId, approved: $approved, decidedBy: $decidedBy, comment: $comment) { ${EPISODE_PAYLOAD} } }`,
  recordCritique: `mutation RecordCritique($episodeId: ID!, $verdict: String!, $score: Float, $feedback: String, $virtueScores: [VirtueScoreInput!]) {
    result: recordCritique(episodeId: $episodeId, verdict: $verdict, score: $score, feedback: $feedback, virtueScores: $virtueScores) { ${EPISODE_PAYLOAD} } }`,
  saveCheckpoint: `mutation SaveCheckpoint($episodeId: ID!, $label: String, $state: JSON!) {
    result: saveCheckpoint(episodeId: $episodeId, label: $label, state: $state) { ${EPISODE_PAYLOAD} } }`,
  createWorkItem: `mutation CreateWorkItem($title: String!, $description: String, $metadata: JSON, $maxEpisodes: Int) {
    result: createWorkItem(title: $title, description: $description, metadata: $metadata, maxEpisodes: $maxEpisodes) { ${errors('InputLimitError')} ... on WorkItemPayload { workItem { ${WORK_ITEM_FIELDS} } } } }`,
  resumeWorkItem: `mutation ResumeWorkItem($id: ID!, $maxEpisodes: Int) {
    result: resumeWorkItem(id: $id, maxEpisodes: $maxEpisodes) { ${errors('InputLimitError', 'NotFoundError')} ... on WorkItemPayload { workItem { ${WORK_ITEM_FIELDS} } } } }`,
  issueLease: `mutation IssueLease($workItemId: ID!, $issuer: String!, $holder: String!, $expiresAt: DateTime!, $budget: LeaseBudgetInput, $scope: [String!], $parentLeaseId: ID) {
    result: issueLease(workItemId: $workItemId, issuer: $issuer, holder: $holder, expiresAt: $expiresAt, budget: $budget, scope: $scope, parentLeaseId: $parentLeaseId) {
      ${errors('InputLimitError', 'LeaseError', 'NotFoundError')} ... on LeasePayload { lease { ${LEASE_FIELDS} } } } }`,
  revokeLease: `mutation RevokeLease($id: ID!) { result: revokeLease(id: $id) { ${errors('NotFoundError')} ... on LeasePayload { lease { ${LEASE_FIELDS} } } } }`,
  createApiKey: `mutation CreateApiKey($name: String!, $scopes: [String!]!, $expiresAt: DateTime) {
    result: createApiKey(name: $name, scopes: $scopes, expiresAt: $expiresAt) { ${errors('InputLimitError')} ... on CreatedApiKey { token key { ${API_KEY_FIELDS} } } } }`,
  revokeApiKey: `mutation RevokeApiKey($id: ID!) { result: revokeApiKey(id: $id) { ${errors('NotFoundError')} ... on ApiKey { ${API_KEY_FIELDS} } } }`,
  forgetEpisode: `mutation ForgetEpisode($episodeId: ID!, $reason: String!) { result: forgetEpisode(episodeId: $episodeId, reason: $reason) { ${errors('InputLimitError', 'NotFoundError', 'IllegalTransitionError')} ... on ForgetEpisodePayload { episodeId forgotten stepsForgotten blobsDeleted rowsForgotten } } }`,
  forgetSteps: `mutation ForgetSteps($episodeId: ID!, $stepNumbers: [Int!], $reason: String!) { result: forgetSteps(episodeId: $episodeId, stepNumbers: $stepNumbers, reason: $reason) { ${errors('InputLimitError', 'NotFoundError')} ... on ForgetStepsPayload { episodeId forgotten blobsDeleted } } }`,
  apiKeys: `query ApiKeys { result: apiKeys { ${API_KEY_FIELDS} } }`,
  retention: `query Retention { result: retention { ${RETENTION_FIELDS} } }`,
  setRetention: `mutation SetRetention($stepDays: Int, $runDays: Int) { result: setRetention(stepDays: $stepDays, runDays: $runDays) { ${errors('InputLimitError')} ... on TenantRetention { ${RETENTION_FIELDS} } } }`,
  episode: `query Episode($id: ID!) { result: episode(id: $id) { ${errors('NotFoundError')} ... on Episode { ${EPISODE_FIELDS} } } }`,
  episodeSteps: `query EpisodeSteps($id: ID!, $first: Int, $after: String) { result: episode(id: $id) { ${errors('NotFoundError')}
    ... on Episode { steps(first: $first, after: $after) { edges { cursor node { ${STEP_FIELDS} } } pageInfo { hasNextPage endCursor } } } } }`,
  episodes: `query Episodes($filter: EpisodeFilter, $first: Int, $after: String) { result: episodes(filter: $filter, first: $first, after: $after) {
    edges { cursor node { ${EPISODE_FIELDS} } } pageInfo { hasNextPage endCursor } } }`,
  lease: `query Lease($id: ID!) { result: lease(id: $id) { ${errors('NotFoundError')} ... on Lease { ${LEASE_FIELDS} } } }`,
  workItem: `query WorkItem($id: ID!) { result: workItem(id: $id) { ${errors('NotFoundError')} ... on WorkItem { ${WORK_ITEM_FIELDS} } } }`,
  ledgerEvents: `query LedgerEvents($after: String, $first: Int, $filter: LedgerEventFilter) { result: ledgerEvents(after: $after, first: $first, filter: $filter) {
    ${errors('InputLimitError')} ... on LedgerEventConnection { edges { node { ${LEDGER_EVENT_FIELDS} } } pageInfo { hasNextPage endCursor } } } }`,
  ledgerHead: `query LedgerHead { result: ledgerHead { seq hash latestCheckpoint { ${TREE_HEAD_FIELDS} } } }`,
  episodeProofBundle: `query EpisodeProofBundle($episodeId: ID!) { result: episodeProofBundle(episodeId: $episodeId) {
    ${errors('NotFoundError', 'NotCheckpointedError')} ... on EpisodeProofBundle { bundle eventCount stepCount treeHead { ${TREE_HEAD_FIELDS} } } } }`,
  ledgerCheckpoints: `query LedgerCheckpoints($afterTreeSize: BigInt, $first: Int) { result: ledgerCheckpoints(afterTreeSize: $afterTreeSize, first: $first) {
    ${errors('InputLimitError')} ... on SignedTreeHeadPage { checkpoints { ${TREE_HEAD_FIELDS} } hasNextPage } } }`,
  consistencyProof: `query ConsistencyProof($fromSize: BigInt!, $toSize: BigInt) { result: consistencyProof(fromSize: $fromSize, toSize: $toSize) {
    ${errors('InputLimitError')} ... on ConsistencyProof { fromSize toSize fromRoot toRoot proof } } }`,
  hashedRows: `query HashedRows($refs: [HashedRowRef!]!) { result: hashedRows(refs: $refs) { ${errors('InputLimitError')} ... on HashedRowList { rows { kind id value } } } }`,
  verifyLedger: `query VerifyLedger($fromSeq: BigInt, $toSeq: BigInt) { result: verifyLedger(fromSeq: $fromSeq, toSeq: $toSeq) {
    ${errors('InputLimitError')} ... on LedgerVerification { ok checked stepsChecked stepsForgotten rowsChecked rowsForgotten checkpointsChecked firstBadSeq problem reason checkpointTreeSize } } }`,
  relevantEpisodes: `query RelevantEpisodes($task: RetrievalTaskInput!, $limit: Int, $filter: RelevantEpisodeFilter, $includeFailures: Boolean) {
    result: relevantEpisodes(task: $task, limit: $limit, filter: $filter, includeFailures: $includeFailures) { ${errors('InputLimitError')}
      ... on RelevantEpisodes { retrievalId episodes { ${SCORED_EPISODE} } warnings { ${SCORED_EPISODE} } } } }`,
  relevantFiles: `query RelevantFiles($task: RetrievalTaskInput!, $limit: Int, $filter: RelevantEpisodeFilter) {
    result: relevantFiles(task: $task, limit: $limit, filter: $filter) { ${errors('InputLimitError')}
      ... on RelevantFiles { retrievalId files { path score runs resolved failed evidence { ${EPISODE_FIELDS} } } } } }`,
  ledgerPublicKey: 'query LedgerPublicKey { result: ledgerPublicKey { algorithm keyId publicKey } }',
  viewer: 'query Viewer { result: viewer { id name } }',
  subscribeLedger: `subscription LedgerEvents($afterSeq: BigInt, $filter: LedgerEventFilter) { ledgerEvents(afterSeq: $afterSeq, filter: $filter) { ${LEDGER_EVENT_FIELDS} } }`,
} as const;
