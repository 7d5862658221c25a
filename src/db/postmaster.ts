// The embedded PostgreSQL's process, managed so it never outlives the server that started it:
// it runs in its own process group (Ctrl-C in a terminal reaches the server, which finishes its
// requests before stopping it), a small watchdog stops it if the server dies without doing so
// (SIGKILL, an OOM kill), and a start finds and stops a postmaster a dead server left behind in
// our data folder instead of failing on its port.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { join } from 'node:path';

const READY = 'database system is ready to accept connections';

export interface PostmasterOptions {
  postgres: string;
  pgDir: string;
  port: number;
  flags: string[];
  /** uid/gid to run as (root runs PostgreSQL as the `postgres` user). */
  user?: { uid: number; gid: number };
  log: (line: string) => void;
}

export interface Postmaster {
  pid: number;
  /** Settles when the process has exited, by stop() or otherwise. */
  exited: Promise<void>;
  stop(): Promise<void>;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The process's command line, or '' when it is gone or cannot be read. */
export function commandLine(pid: number): string {
  const proc = `/proc/${pid}/cmdline`;
  try {
    if (existsSync('/proc/self/cmdline')) return readFileSync(proc, 'utf8').split('\0').join(' ');
    return execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

/** The pid in the first line of a pid file, if the file exists and holds one. */
export function readPidFile(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  for (const until = Date.now() + timeoutMs; Date.now() < until; ) {
    if (!isAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return !isAlive(pid);
}

/**
 * A postmaster.pid left in our data folder: if its process is a postgres serving this folder (its
 * server was killed), stop it (fast shutdown, then SIGKILL after 30 s); otherwise the file is
 * stale (the pid is gone or now belongs to another program) and is removed.
 */
export async function clearLeftoverPostmaster(pgDir: string, log: (line: string) => void): Promise<void> {
  const pidFile = join(pgDir, 'postmaster.pid');
  const pid = readPidFile(pidFile);
  if (pid === undefined) return;
  const cmd = isAlive(pid) ? commandLine(pid) : '';
  if (!/postgres/.test(cmd) || !cmd.includes(pgDir)) {
    await rm(pidFile, { force: true });
    log(`removed a stale ${pidFile} (pid ${pid} is not a PostgreSQL of this folder)`);
    return;
  }
  log(`stopping the PostgreSQL (pid ${pid}) a previous server left running in ${pgDir}`);
  process.kill(pid, 'SIGINT');
  if (!(await waitForExit(pid, 30_000))) {
    process.kill(pid, 'SIGKILL');
    await waitForExit(pid, 5_000);
  }
}

/** True when something accepts TCP connections on 127.0.0.1:port. */
export function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.setTimeout(1_000);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('timeout', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/**
 * A detached shell that waits for the server process to end, then stops the postmaster if it is
 * still the one in our pid file. It costs one `sleep` a second; stop() ends it.
 */
function startWatchdog(serverPid: number, postmasterPid: number, pgDir: string): ChildProcess {
  const script = `while kill -0 "$1" 2>/dev/null; do sleep 1; done; [ "$(head -n 1 "$3/postmaster.pid" 2>/dev/null)" = "$2" ] && kill -INT "$2"`;
  const child = spawn('sh', ['-c', script, 'episodic-pg-watchdog', String(serverPid), String(postmasterPid), pgDir], { detached: true, stdio: 'ignore' });
  child.unref();
  return child;
}

export function startPostmaster(opts: PostmasterOptions): Promise<Postmaster> {
  const child = spawn(opts.postgres, ['-D', opts.pgDir, '-p', String(opts.port), ...opts.flags], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(opts.user ?? {}),
  });
  let lastLines = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      // Drained for the server's whole life: a full pipe would block PostgreSQL's logging.
      lastLines = (lastLines + chunk.toString('utf8')).slice(-2_000);
      if (!lastLines.includes(READY) || !child.pid) return;
      lastLines = '';
      const watchdog = startWatchdog(process.pid, child.pid, opts.pgDir);
      resolve({
        pid: child.pid,
        exited,
        async stop() {
          if (watchdog.pid && isAlive(watchdog.pid)) process.kill(watchdog.pid, 'SIGTERM');
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
          await exited;
        },
      });
    };
    child.stderr?.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => {
      const detail = lastLines
        .trim()
        .split('\n')
        .filter((l) => /FATAL|ERROR|could not/.test(l))
        .pop();
      reject(new Error(`PostgreSQL exited with code ${code}${detail ? `: ${detail.trim()}` : ''}`));
    });
  });
}

/** Waits before the next restart: 100 ms doubling to 1 s (a restart that fails costs little; ready again within seconds matters). */
const RESTART_BACKOFF_MS = { first: 100, max: 1_000 };

/**
 * Ends what is left of a postmaster that died without stopping its backends (SIGKILL, OOM kill):
 * they run in its process group and keep its shared memory attached, so PostgreSQL refuses to start
 * on the folder until each one notices its parent is gone (seconds, longer on a loaded machine).
 * Killing them loses nothing committed: crash recovery replays the WAL, as it would after they exit.
 */
function endOrphanedBackends(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // No process is left in the group.
  }
}

/**
 * Keeps the postmaster running: when it exits without stop() (a SIGKILL, an OOM kill, a crash), it
 * is started again on the same folder and port, with backoff, and each attempt is logged. Its
 * orphaned backends are ended first (endOrphanedBackends), so the first attempt usually starts. PostgreSQL's
 * crash recovery replays the WAL: every committed (acknowledged) write is there after the restart.
 */
export function supervisePostmaster(opts: PostmasterOptions, first: Postmaster): Pick<Postmaster, 'stop'> {
  let current = first;
  let stopping = false;
  const restart = async (gone: Postmaster) => {
    opts.log(`embedded PostgreSQL (pid ${gone.pid}) exited unexpectedly; restarting it`);
    await gone.stop(); // ends its watchdog
    endOrphanedBackends(gone.pid);
    for (let wait = RESTART_BACKOFF_MS.first; !stopping; wait = Math.min(wait * 2, RESTART_BACKOFF_MS.max)) {
      await new Promise((r) => setTimeout(r, wait));
      if (stopping) return;
      try {
        current = await startPostmaster(opts);
      } catch (err) {
        opts.log(`embedded PostgreSQL did not restart (${err instanceof Error ? err.message : String(err)}); trying again`);
        continue;
      }
      opts.log(`embedded PostgreSQL restarted (pid ${current.pid})`);
      if (stopping) await current.stop();
      else watch(current);
      return;
    }
  };
  const watch = (postmaster: Postmaster) => {
    void postmaster.exited.then(() => (stopping ? undefined : restart(postmaster)));
  };
  watch(first);
  return {
    async stop() {
      stopping = true;
      await current.stop();
    },
  };
}
