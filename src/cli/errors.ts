/** A failure the CLI reports as one line with a stable exit code (1 runtime, 2 usage/not found). */
export class CliError extends Error {
  constructor(message: string, readonly exitCode: number) {
    super(message);
  }
}
