// Domain errors: expected failures, returned as typed members of result unions (clients branch on
// __typename); the GraphQL layer (src/graphql/base.ts) gives them their types. Everything else is
// unexpected and masked by yoga. Errors that carry a domain type live with it (LoopStoppedError
// in src/leases/errors.ts).

export abstract class DomainError extends Error {}

export class NotFoundError extends DomainError {
  override name = 'NotFoundError';
  constructor(
    readonly entity: string,
    readonly id: string,
  ) {
    super(`${entity} ${id} was not found`);
  }
}

/**
 * One input that broke a rule, as every validator returns it: the field by the dotted path the
 * client sent (e.g. 'input.steps.3.observation'), the limit (a number, or the rule in words) and,
 * what was sent (a size, a count, the value refused). The one violation type of the service; the API prints
 * `limit` and `actual` as strings (src/graphql/base.ts).
 */
export interface LimitViolation {
  field: string;
  limit: number | string;
  actual?: number | string | null;
  message: string;
}

export class InputLimitError extends DomainError {
  override name = 'InputLimitError';
  constructor(readonly violations: LimitViolation[]) {
    super(violations.map((v) => v.message).join('; '));
  }
}

export class IllegalTransitionError extends DomainError {
  override name = 'IllegalTransitionError';
  constructor(
    readonly from: string,
    readonly action: string,
    readonly allowed: string[],
    message: string,
  ) {
    super(message);
  }
}

export class IdempotencyConflictError extends DomainError {
  override name = 'IdempotencyConflictError';
  constructor(
    readonly dedupeKey: string,
    readonly existingEpisodeId: string,
  ) {
    super(`dedupeKey "${dedupeKey}" was already used for episode ${existingEpisodeId} with different input`);
  }
}

export class LeaseError extends DomainError {
  override name = 'LeaseError';
  constructor(
    readonly leaseId: string,
    readonly rule: string,
    message: string,
    readonly violations: LimitViolation[] = [],
  ) {
    super(message);
  }
}

export function throwIfViolations(list: LimitViolation[]): void {
  if (list.length) throw new InputLimitError(list);
}
