// The ledger's domain errors (their GraphQL types are registered in graphql.ts). A proof is only
// given against a signed checkpoint, and reads never sign one (docs/LEDGER.md §5): an event newer
// than the latest checkpoint waits for the schedule.
import { DomainError } from '../../core/errors.ts';

export class NotCheckpointedError extends DomainError {
  override name = 'NotCheckpointedError';
  constructor(
    readonly seq: number,
    readonly checkpointTreeSize: number | null,
    readonly retryAfterMs: number,
  ) {
    super(`seq ${seq} is not covered by a signed checkpoint yet (latest covers ${checkpointTreeSize ?? 'none'}); the next is due within ${retryAfterMs} ms`);
  }
}
