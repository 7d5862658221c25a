// Start and stop as real life does them, through `npm start` (the script a user runs): a server
// killed with SIGKILL, npm itself sent SIGTERM (as a process manager or `timeout` does), a
// PostgreSQL left behind, a stale pid file, and a port that belongs to another program. Processes
// are found by the pid files in this test's own data folder; nothing else is ever signalled.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.ts';
import { type ServerProcess, startServerProcess, startWithNpm } from '../support/process.ts';

const run = promisify(execFile);
const SERVING = /Episodic serving GraphQL on http:\/\/localhost:(\d+)\/graphql/;

let dataDir: string;
let env: Record<string, string>;
const started: ServerProcess[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'episodic-lifecycle-'));
  env = { EPISODIC_DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()), PORT: String(await freePort()) };
});
afterAll(async () => {
  await Promise.all(started.map((p) => p.stop('SIGTERM')));
  // Only processes of this folder: a pid file can outlive its process (a SIGKILLed server, a failed
  // start), and with pid_max 32768 its number is soon another process's, e.g. another file's server.
  for (const pid of [pidIn('server.pid'), pidIn('pgdata/postmaster.pid'), ...watchdogs()]) if (pid && ofThisFolder(pid)) process.kill(pid, 'SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

function pidIn(file: string): number | undefined {
  const path = join(dataDir, file);
  return existsSync(path) ? Number(readFileSync(path, 'utf8').split('\n')[0]) : undefined;
}

/** True when the process is alive and its command line or environment names this test's data folder. */
function ofThisFolder(pid: number): boolean {
  try {
    return [`/proc/${pid}/cmdline`, `/proc/${pid}/environ`].some((file) => readFileSync(file, 'utf8').includes(dataDir));
  } catch {
    return false;
  }
}

/** Watchdog shells started for this test's data folder (their command line names it). */
function watchdogs(): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
        return cmd.includes('episodic-pg-watchdog') && cmd.includes(dataDir);
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function until(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) if (check()) return;
  throw new Error(`timed out waiting until ${what}`);
}

async function serving(): Promise<ServerProcess> {
  const proc = startWithNpm(env);
  started.push(proc);
  await proc.waitFor(SERVING, 150_000);
  expect((await fetch(`http://127.0.0.1:${env.PORT}/readyz`)).status).toBe(200);
  return proc;
}

describe('npm start survives real life', { timeout: 400_000 }, () => {
  it('SIGKILL of the server: its PostgreSQL stops by itself and npm start comes back', async () => {
    const first = await serving();
    const server = pidIn('server.pid');
    const postgres = pidIn('pgdata/postmaster.pid');
    expect(server).toBeGreaterThan(0);
    expect(postgres).toBeGreaterThan(0);
    process.kill(server as number, 'SIGKILL');
    await first.exited();
    await until('the orphaned PostgreSQL stopped', () => !ofThisFolder(postgres as number));
    const second = await serving();
    expect(second.output()).not.toContain('initialising embedded PostgreSQL');
    await second.stop('SIGTERM');
  });

  it('a PostgreSQL left running (server and watchdog both killed) is stopped and replaced at the next start', async () => {
    const first = await serving();
    const postgres = pidIn('pgdata/postmaster.pid') as number;
    for (const pid of watchdogs()) process.kill(pid, 'SIGKILL');
    process.kill(pidIn('server.pid') as number, 'SIGKILL');
    await first.exited();
    expect(ofThisFolder(postgres)).toBe(true);
    const second = await serving();
    expect(second.output()).toContain(`stopping the PostgreSQL (pid ${postgres}) a previous server left running`);
    expect(ofThisFolder(postgres)).toBe(false);
    await second.stop('SIGTERM');
  });

  it("operator commands join the running server's PostgreSQL; SIGTERM to the npm process leaves no server and no PostgreSQL", async () => {
    const proc = await serving();
    const cli = (...args: string[]) => run(process.execPath, ['bin/episodic.mjs', ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
    expect((await cli('tenants', 'create', 'acme')).stdout).toMatch(/^created tenant acme \(/);
    const key = JSON.parse((await cli('keys', 'create', '--tenant', 'acme', '--scopes', 'read', '--expires', '30d', '--json')).stdout);
    expect(key).toMatchObject({ tenant: 'acme', scopes: ['read'], token: expect.stringMatching(/^epk_/) });
    // Without the server's EMBEDDED_PG_PORT (a free port, not the default): the port is read from postmaster.pid.
    const defaultPort = await run(process.execPath, ['bin/episodic.mjs', 'keys', 'list', '--tenant', 'acme', '--json'], {
      env: { PATH: process.env.PATH ?? '', EPISODIC_DATA_DIR: dataDir },
    });
    expect(JSON.parse(defaultPort.stdout)).toEqual([expect.objectContaining({ id: key.id })]);
    const server = pidIn('server.pid') as number;
    const postgres = pidIn('pgdata/postmaster.pid') as number;
    expect(ofThisFolder(server) && ofThisFolder(postgres)).toBe(true);
    proc.child.kill('SIGTERM');
    await proc.exited();
    await until('the server and its PostgreSQL exited', () => !ofThisFolder(server) && !ofThisFolder(postgres));
    expect(watchdogs()).toEqual([]);
    expect(existsSync(join(dataDir, 'server.pid'))).toBe(false);
  });

  it('a stale postmaster.pid naming another process is removed, and that process is left alone', async () => {
    // This test process is alive and is not a PostgreSQL of the folder.
    await writeFile(join(dataDir, 'pgdata', 'postmaster.pid'), `${process.pid}\n${join(dataDir, 'pgdata')}\n`);
    const proc = await serving();
    expect(proc.output()).toContain('removed a stale');
    expect(await proc.stop('SIGINT')).toBe(0);
  });

  it('one clear line when the PostgreSQL port belongs to another program', async () => {
    const other = createServer(() => undefined);
    const port = await freePort();
    await new Promise<void>((r) => other.listen(port, '127.0.0.1', r));
    try {
      const proc = startServerProcess({ ...env, EMBEDDED_PG_PORT: String(port) });
      expect(await proc.exited()).toBe(1);
      expect(proc.stderr().trim().split('\n')).toEqual([
        `episodic: port ${port} on 127.0.0.1 is used by another program, not by the embedded PostgreSQL of ${join(dataDir, 'pgdata')}; set EMBEDDED_PG_PORT to a free port`,
      ]);
    } finally {
      other.close();
    }
  });
});
