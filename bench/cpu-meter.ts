// CPU time of the processes a bench phase runs on (issue 50: where the victim's time goes when the
// attacker's work keeps the cores busy): this process (the server) and the PostgreSQL backends of
// the bench's database, read from /proc (Linux; elsewhere, and for a database on another machine,
// the PostgreSQL figure is null).
import { readFileSync } from 'node:fs';
import type pg from 'pg';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** utime + stime of `pid` in ms, or null when /proc does not have it. */
function cpuOf(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return null;
  }
}

async function backendCpu(pool: pg.Pool): Promise<Map<number, number | null>> {
  const { rows } = await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()');
  return new Map(rows.map((r) => [r.pid, cpuOf(r.pid)]));
}

export interface CpuReading {
  /** ms of CPU per second of the phase: this process, and the database's backends (null when unreadable). */
  server: number;
  postgres: number | null;
}

/**
 * Measures from `atMs` (Date.now() time; the victim's start) until `stop()`: CPU per second.
 * Backends that connect later are counted from their start.
 */
export function cpuMeterAt(pool: pg.Pool, atMs: number): { stop(): Promise<CpuReading> } {
  const begun = new Promise<{ started: number; server: NodeJS.CpuUsage; backends: Map<number, number | null> }>((resolve, reject) => {
    setTimeout(
      () => {
        const started = performance.now();
        const server = process.cpuUsage();
        backendCpu(pool).then((backends) => resolve({ started, server, backends }), reject);
      },
      Math.max(0, atMs - Date.now()),
    );
  });
  return {
    async stop() {
      const { started, server, backends } = await begun;
      const used = process.cpuUsage(server);
      let postgres: number | null = 0;
      for (const [pid, now] of await backendCpu(pool)) {
        const before = backends.get(pid) ?? 0;
        if (now === null || before === null) postgres = null;
        else if (postgres !== null) postgres += now - before;
      }
      const seconds = (performance.now() - started) / 1000;
      return { server: (used.user + used.system) / 1000 / seconds, postgres: postgres === null ? null : postgres / seconds };
    },
  };
}
