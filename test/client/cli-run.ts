// The `episodic` CLI for tests, two ways behind one interface: in-process (runCli on buffers, a
// few milliseconds a command) for behaviour, and the real binary (node bin/episodic.mjs) where the
// process itself is under test: its exit code, signals, a real stdin pipe, the process's env.
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { runCli } from '../../src/cli/run.ts';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** What the command reads on stdin (empty when absent). */
  stdin?: string;
  /** The whole environment the command sees (the binary gets PATH and HOME besides). */
  env: Record<string, string>;
}

export interface RunningCli {
  stdout(): string;
  stderr(): string;
  /** Ctrl-C: SIGINT to the binary; in-process, what main.ts does on SIGINT. */
  interrupt(): void;
  exited: Promise<CliResult>;
}

function textSink(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

/** Runs the CLI in this process. */
export function startInProcess(argv: string[], opts: CliOptions): RunningCli {
  const stdout = textSink();
  const stderr = textSink();
  const interruptHandlers = new Set<() => void>();
  const exited = runCli(argv, {
    stdout: stdout.stream,
    stderr: stderr.stream,
    stdin: Readable.from(opts.stdin ? [Buffer.from(opts.stdin)] : []),
    env: opts.env,
    onInterrupt(stop) {
      interruptHandlers.add(stop);
      return () => interruptHandlers.delete(stop);
    },
  }).then((code) => ({ code, stdout: stdout.text(), stderr: stderr.text() }));
  return {
    stdout: stdout.text,
    stderr: stderr.text,
    interrupt() {
      for (const stop of interruptHandlers) stop();
      interruptHandlers.clear();
    },
    exited,
  };
}

/** Runs the compiled binary as a child process, stdin a pipe. */
export function spawnBinary(argv: string[], opts: CliOptions): RunningCli {
  const child = spawn(process.execPath, ['bin/episodic.mjs', ...argv], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...opts.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end(opts.stdin ?? '');
  const exited = new Promise<CliResult>((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  return { stdout: () => stdout, stderr: () => stderr, interrupt: () => child.kill('SIGINT'), exited };
}
