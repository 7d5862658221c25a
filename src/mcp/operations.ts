// The GraphQL operations the MCP tools run, each with its root field aliased `result` (as the
// typed client's documents are, so both executors answer with data.result). They select only what
// a tool shows an agent: the task, the outcome, the files, what went wrong, the retrieval id.
import { errors } from '../client/documents.ts';

const CONTEXT = 'context { language framework domain tags }';
const OUTCOME = 'outcome { kind verdict artifacts completed failed reason details }';
const BRIEF_EPISODE = `id status taskDescription taskType agent ${CONTEXT} ${OUTCOME} stepCount startedAt endedAt`;
const SCORED = `episode { ${BRIEF_EPISODE} reflection { improvements } } score { total strength strengthWord } failed whatWentWrong`;
const STEP = 'stepNumber kind tool action observation tokens latencyMs resultKind result';

export const OPERATIONS = {
  viewerKey: 'query ViewerKey { result: viewerKey { id name scopes } }',
  relevantEpisodes: `query RelevantEpisodes($task: RetrievalTaskInput!, $limit: Int, $includeFailures: Boolean, $episodeId: ID) {
    result: relevantEpisodes(task: $task, limit: $limit, includeFailures: $includeFailures, episodeId: $episodeId) { ${errors('InputLimitError')}
      ... on RelevantEpisodes { retrievalId episodes { ${SCORED} } warnings { ${SCORED} } } } }`,
  relevantFiles: `query RelevantFiles($task: RetrievalTaskInput!, $limit: Int) {
    result: relevantFiles(task: $task, limit: $limit) { ${errors('InputLimitError')}
      ... on RelevantFiles { retrievalId files { path score runs resolved failed evidence { id taskDescription ${OUTCOME} } } } } }`,
  relevantPatterns: `query RelevantPatterns($task: RetrievalTaskInput!, $limit: Int) {
    result: relevantPatterns(task: $task, limit: $limit) { ${errors('InputLimitError')}
      ... on RelevantPatterns { retrievalId patterns { pattern { id kind summary failedInstead description cue changedFile occurrences successRate lift } score { total } } } } }`,
  episode: `query Episode($id: ID!, $steps: Int) { result: episode(id: $id) { ${errors('NotFoundError')}
    ... on Episode { ${BRIEF_EPISODE} stopReason { kind reason resource } reflection { successes improvements insights }
      steps(first: $steps) { edges { node { ${STEP} } } pageInfo { hasNextPage } } } } }`,
  startEpisode: `mutation StartEpisode($input: StartEpisodeInput!) { result: startEpisode(input: $input) {
    ${errors('IdempotencyConflictError', 'InputLimitError', 'LeaseError', 'LoopStoppedError', 'NotFoundError')}
    ... on StartEpisodePayload { deduplicated episode { id status taskType ${CONTEXT} } } } }`,
  logSteps: `mutation LogSteps($episodeId: ID!, $steps: [StepInput!]!) { result: logSteps(episodeId: $episodeId, steps: $steps) {
    ${errors('IllegalTransitionError', 'InputLimitError', 'NotFoundError')}
    ... on LogStepsPayload { accepted duplicates rejected budgetExhausted
      results { index status stepNumber reason message violations { field limit actual message } } episode { id status stepCount } } } }`,
  completeEpisode: `mutation CompleteEpisode($episodeId: ID!, $outcome: OutcomeInput!, $usedRetrievals: [ID!]) {
    result: completeEpisode(episodeId: $episodeId, outcome: $outcome, usedRetrievals: $usedRetrievals) {
      ${errors('IllegalTransitionError', 'InputLimitError', 'NotFoundError')}
      ... on FinishEpisodePayload { episode { id status ${OUTCOME} reward { normalized } } } } }`,
} as const;
