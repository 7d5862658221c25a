// The calls an import makes per run, selecting only what the import reads: importRun, one call for
// the whole run; the three calls it stands for (a run of more steps than one call takes). The client's own
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
  importRun: `mutation ImportRun($input: StartEpisodeInput!, $steps: [StepInput!]!, $options: LogStepsOptions, $outcome: OutcomeInput!, $endedAt: DateTime) {
    result: importRun(input: $input, steps: $steps, options: $options, outcome: $outcome, endedAt: $endedAt) {
    ${errors('IdempotencyConflictError', 'InputLimitError', 'LeaseError', 'LoopStoppedError', 'NotFoundError', 'IllegalTransitionError')}
    ... on ImportRunPayload { deduplicated episode { id status outcome { kind } }
      steps { accepted duplicates rejected budgetExhausted results { index status stepNumber reason message } } completion { __typename } } } }`,
} as const;
