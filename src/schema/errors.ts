// Expected failures, returned as typed members of result unions (clients branch on __typename).
// Everything else is unexpected and masked by yoga.
export abstract class DomainError extends Error {}

export class NotFoundError extends DomainError {
  override name = 'NotFoundError';
  constructor(readonly entity: string, readonly id: string) {
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
