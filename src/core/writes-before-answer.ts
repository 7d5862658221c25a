// Writes a request started but did not wait for, so that its answer could be read meanwhile (a
// retrieval's receipt commits while the answer's episodes are read). The answer leaves only after
// every one has committed (src/http/writes-before-answer.ts): an acknowledged id is never one whose
// write is still in flight or failed.

export class WritesBeforeAnswer {
  readonly #pending: Promise<void>[] = [];
  #failure: { error: unknown } | undefined;

  /** The write is awaited before the answer; its failure is kept (never an unhandled rejection). */
  add(write: Promise<unknown>): void {
    this.#pending.push(
      write.then(
        () => undefined,
        (error: unknown) => {
          this.#failure ??= { error };
        },
      ),
    );
  }

  /** No write was added: the answer need not wait (most requests start none). */
  get none(): boolean {
    return this.#pending.length === 0 && !this.#failure;
  }

  /** Resolves when every write added so far (and any added meanwhile) has settled; the first failure, if one failed. */
  async settled(): Promise<{ error: unknown } | undefined> {
    while (this.#pending.length > 0) await Promise.all(this.#pending.splice(0));
    return this.#failure;
  }
}
