// The `episodic` binary (bin/episodic.mjs runs its compiled form): runCli (run.ts) on the process's
// own streams, with Ctrl-C and SIGTERM handed to the commands that wait on them (tail). The exit
// code is set, not forced, so output still buffered in a pipe is written before the process ends.
import { runCli } from './run.ts';

function onInterrupt(stop: () => void): () => void {
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return () => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  };
}

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  // A getter: process.stdin opens a handle on first use, and only `log` reads it.
  get stdin() {
    return process.stdin;
  },
  onInterrupt,
});
