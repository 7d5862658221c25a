// Domain errors: expected failures, returned as typed members of result unions (clients branch on
// __typename); the GraphQL layer (src/schema/base.ts) gives them their types. Everything else is
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

export interface LimitViolation {
  field: string;
  limit: string;
  actual: string | null;
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

/** Converts the pure validators' violations (numeric limits) into the API's shape. */
export function toViolations(list: Array<{ field: string; limit: number | string; actual?: number; message: string }>): LimitViolation[] {
  return list.map((v) => ({ field: v.field, limit: String(v.limit), actual: v.actual === undefined ? null : String(v.actual), message: v.message }));
}

export function throwIfViolations(list: Array<{ field: string; limit: number | string; actual?: number; message: string }>): void {
  if (list.length) throw new InputLimitError(toViolations(list));
}
