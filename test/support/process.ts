// Runs the real server entry point as a child process: node directly, or through `npm start`.
// Directly, node runs dist/server/main.js, which the run's global setup compiled from the sources
// under test (scripts/build.mjs --server): through tsx every start spent about 5 s of CPU
// transpiling and resolving modules, about 2 s without. `npm start` still runs the sources
// through tsx, as a user's does.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { must } from '../../src/core/must.ts';

export interface ServerProcess {
  child: ChildProcess;
  output(): string;
  stderr(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  exited(): Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const SERVER_BUILD = resolve(import.meta.dirname, '../../dist/server/main.js');

export function startServerProcess(env: Record<string, string>): ServerProcess {
  if (!existsSync(SERVER_BUILD)) throw new Error(`${SERVER_BUILD} is missing: run \`node scripts/build.mjs --server\` (the test run's global setup does)`);
  return spawnServer(process.execPath, [SERVER_BUILD], env);
}

/** `npm start` itself (the script a user runs), with the node that runs this test first on PATH. */
export function startWithNpm(env: Record<string, string>): ServerProcess {
  const path = `${dirname(process.execPath)}:${process.env.PATH ?? ''}`;
  return spawnServer('npm', ['start', '--silent'], { PATH: path, ...env });
}

/**
 * What a process that printed nothing was doing, from /proc: its state (R running, S sleeping, D
 * waiting on I/O, T stopped, Z zombie), the CPU it used and the kernel function it waits in.
 */
function processState(pid: number | undefined): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const wchan = readFileSync(`/proc/${pid}/wchan`, 'utf8');
    return `pid ${pid} state ${stat[0]}, CPU ${(Number(stat[11]) + Number(stat[12])) * 10} ms, waiting in ${wchan || '-'}`;
  } catch {
    return `pid ${pid}: no /proc entry`;
  }
}

function spawnServer(command: string, args: string[], env: Record<string, string>): ServerProcess {
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  must(child.stdout).on('data', (d) => (out += d));
  must(child.stderr).on('data', (d) => (err += d));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    stderr: () => err,
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const started = Date.now();
        const poll = setInterval(() => {
          if (pattern.test(out)) return (clearInterval(poll), resolve());
          // A process killed by a signal has no exit code, only a signal code.
          const ended = child.exitCode !== null || child.signalCode !== null;
          if (ended || Date.now() - started > timeoutMs) {
            clearInterval(poll);
            const how = ended ? `it exited: code ${child.exitCode}, signal ${child.signalCode}` : `after ${timeoutMs} ms ${processState(child.pid)}`;
            reject(new Error(`server did not print ${pattern} (${how}); stdout: ${out.slice(-2000)} stderr: ${err.slice(-2000)}`));
          }
        }, 50);
      });
    },
    exited: () => exit,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exit;
    },
  };
}
