// An import that stopped because the server could not be reached or went away part way: the
// runs it had done, of how many, so the CLI can say where it stopped. Importing again resumes
// (a run's start is found by its file's hash, its steps by their position).
import type { EpisodicError } from '../client/errors.ts';

export class ImportInterruptedError extends Error {
  constructor(
    readonly lost: EpisodicError,
    readonly done: number,
    readonly total: number,
  ) {
    super(
      done === 0
        ? `${lost.message}; 0 of ${total} run(s) imported`
        : `the server went away during the import after ${done} of ${total} run(s): ${lost.message}; importing again resumes`,
    );
  }
}
