// The errors of work items and leases that carry their own domain types.
import { DomainError } from '../core/errors.ts';
import type { StopReason } from '../stops/stop-reason.ts';

/** The work item's loop of episodes has stopped (budget exhausted, the holon's stop, or max episodes reached): no new episode starts. */
export class LoopStoppedError extends DomainError {
  override name = 'LoopStoppedError';
  constructor(
    readonly workItemId: string,
    readonly stopCondition: StopReason,
    message: string,
  ) {
    super(message);
  }
}
