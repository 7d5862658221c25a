// The error members of the API's result unions, as the client's documents select them.

import type { EpisodeStopReason, LimitViolation } from './types-objects.ts';

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
