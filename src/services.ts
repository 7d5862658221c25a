// The long-lived parts a request needs, created once per process in main.ts (or per test).
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';

export interface Services {
  config: Config;
  db: Database;
  log: Logger;
}
