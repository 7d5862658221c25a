// The three calls an import makes per run, selecting only what the import reads. The client's own
// documents select the whole episode (its checkpoints, work item and lease among them), which cost
// the server four more queries per call, three calls per run; an import reads the id, the status
// and the outcome. The answers keep the client's types, with the unselected fields absent.
import { errors } from '../client/documents.ts';

const TRANSITION = errors('IllegalTransitionError', 'InputLimitError', 'NotFoundError');

export const IMPORT_DOCUMENTS = {
  startEpisode: `mutation ImportStartEpisode($input: StartEpisodeInput!) { result: startEpisode(input: $input) {
    ${errors('IdempotencyConflictError', 'InputLimitError', 'LeaseError', 'LoopStoppedError', 'NotFoundError')}
    ... on StartEpisodePayload { deduplicated episode { id status outcome { kind } } } } }`,
  logSteps: `mutation ImportLogSteps($episodeId: ID!, $steps: [StepInput!]!, $options: LogStepsOptions) {
    result: logSteps(episodeId: $episodeId, steps: $steps, options: $options) {
    ${TRANSITION} ... on LogStepsPayload { accepted duplicates rejected budgetExhausted results { index status stepNumber reason message } episode { id status } } } }`,
  completeEpisode: `mutation ImportCompleteEpisode($episodeId: ID!, $outcome: OutcomeInput!, $endedAt: DateTime) {
    result: completeEpisode(episodeId: $episodeId, outcome: $outcome, endedAt: $endedAt) { ${TRANSITION} ... on FinishEpisodePayload { episode { id status } } } }`,
} as const;
