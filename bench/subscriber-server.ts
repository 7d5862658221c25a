// One server process for bench/subscribers.ts: the real app on DATABASE_URL, plus what the
// benchmark asks over IPC: when each ledger event committed here, and this process's memory.
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.ts';
import { must } from '../src/core/must.ts';
import { createDatabase } from '../src/db/client.ts';
import { createLogger } from '../src/log.ts';
import { createApp } from '../src/server.ts';
import { createServices, stopServices } from '../src/services.ts';

/** A wall clock with sub-millisecond resolution that other processes on this machine share. */
const wallClock = () => performance.timeOrigin + performance.now();

const config = loadConfig({
  NODE_ENV: 'production',
  PORT: '0',
  DATABASE_URL: process.env.DATABASE_URL,
  LOG_LEVEL: 'warn',
  DB_POOL_MAX: '20',
  SUBSCRIPTIONS_PER_CONNECTION: '10',
});
const db = createDatabase(must(config.databaseUrl), config.dbPoolMax);
const services = await createServices(config, db, createLogger(config.logLevel));
/** seq, commit time: pairs, flat. */
const commits: number[] = [];
services.writer.onCommit((_tenantId, events) => {
  const at = wallClock();
  for (const e of events) commits.push(e.seq, at);
});
const app = createApp(services);
await app.start();
must(process.send)({ type: 'ready', url: app.url() });

/** Started with --expose-gc: live heap is measured after a full collection. */
const collectGarbage = must((globalThis as { gc?: () => void }).gc);

process.on('message', async (m: { type: string; gc?: boolean }) => {
  if (m.type === 'stats') {
    if (m.gc) collectGarbage();
    const cpu = process.cpuUsage();
    const { rss, heapUsed } = process.memoryUsage();
    must(process.send)({ type: 'stats', rss, heapUsed, cpuMs: (cpu.user + cpu.system) / 1000, subscribers: services.ledgerBus.subscribers, commits });
  } else if (m.type === 'stop') {
    await app.stop();
    await stopServices(services);
    await db.close();
    process.exit(0);
  }
});
