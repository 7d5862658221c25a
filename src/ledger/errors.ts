// The ledger's typed errors. A proof is only given against a signed checkpoint, and reads never
// sign one (docs/LEDGER.md §5): an event newer than the latest checkpoint waits for the schedule.
import { builder } from '../builder.ts';
import { DomainError } from '../core/errors.ts';
import { ErrorInterface } from '../schema/base.ts';

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

builder.objectType(NotCheckpointedError, {
  name: 'NotCheckpointedError',
  description: 'The event is newer than the latest signed checkpoint. Retry after retryAfterMs (checkpoint schedule: docs/LEDGER.md §5).',
  interfaces: [ErrorInterface],
  isTypeOf: (v) => v instanceof NotCheckpointedError,
  fields: (t) => ({
    seq: t.field({ type: 'BigInt', resolve: (e) => e.seq }),
    checkpointTreeSize: t.field({ type: 'BigInt', nullable: true, resolve: (e) => e.checkpointTreeSize }),
    retryAfterMs: t.exposeInt('retryAfterMs'),
  }),
});
