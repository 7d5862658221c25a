// The byte budget of one request: large stored content (blobs, Step.contentRefs { content }) is
// charged at its stored size, read from its row, before its bytes are read. The node limit and
// armor's cost limit bound the shape of a request, not the size of stored values: 30 aliases of a
// 16 MB blob took 477 MB and 2 GB of server memory in one request before this budget. Pure: no I/O.
import { DomainError } from '../core/errors.ts';

/** A read that would take the request past MAX_RESPONSE_BYTES; nothing of it was read. */
export class ResponseBudgetError extends DomainError {
  override name = 'ResponseBudgetError';
  constructor(
    readonly what: string,
    /** MAX_RESPONSE_BYTES. */
    readonly limit: number,
    /** The stored size of the refused read. */
    readonly requested: number,
    /** Bytes this request had already been granted. */
    readonly spent: number,
  ) {
    super(
      `${what} holds ${requested} bytes; with the ${spent} bytes this request already reads it would pass MAX_RESPONSE_BYTES (${limit} bytes per request). Download large content with GET /blobs/<hash> (Range supported), or ask for it in its own request.`,
    );
  }
}

export class ResponseBudget {
  private spent = 0;

  constructor(readonly limit: number) {}

  get used(): number {
    return this.spent;
  }

  /** Grants `bytes` to the request, or throws (and grants nothing) when they would pass the limit. */
  charge(bytes: number, what: string): void {
    if (this.spent + bytes > this.limit) throw new ResponseBudgetError(what, this.limit, bytes, this.spent);
    this.spent += bytes;
  }
}
