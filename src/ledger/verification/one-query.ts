// One verification's queries, one at a time in the order asked, so that it holds one pooled
// connection (VERIFY_LEDGER_TOTAL_CONCURRENCY counts on it) while its page reads and its row
// checks interleave. Once stopped (the verification has its verdict), queued queries start not.
export class OneQueryAtATime {
  stopped = false;
  private last: Promise<unknown> = Promise.resolve();

  /** The query's result once those asked before have finished; null if the queue stopped first. */
  run<T>(query: () => Promise<T>): Promise<T | null> {
    const run = this.last.then(() => (this.stopped ? null : query()));
    this.last = run.catch(() => undefined);
    return run;
  }
}
