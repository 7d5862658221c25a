// What a CLI run reads and writes, handed in rather than taken from `process`: the binary
// (main.ts) passes the process's streams and signals, the tests pass buffers and run commands
// in-process, many per second, without a Node start each.
import type { Readable, Writable } from 'node:stream';

export interface CliIo {
  stdout: Writable;
  /** isTTY decides whether progress bars are drawn. */
  stderr: Writable & { isTTY?: boolean };
  stdin: Readable;
  /** The environment configuration is read from (config.ts); absent, config.ts reads the process's own. */
  env?: NodeJS.ProcessEnv;
  /** Calls stop on Ctrl-C / SIGTERM until the returned function is called (tail ends cleanly on them). */
  onInterrupt(stop: () => void): () => void;
}
