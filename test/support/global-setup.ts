// One PostgreSQL for the whole run: embedded by default, or TEST_DATABASE_URL. Each test file
// creates its own database on it (test/support/db.ts), so files run in parallel without sharing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { testDatabaseUrl } from '../../src/config.ts';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../src/db/embedded.ts';
import { freePort } from './ports.ts';

let embedded: EmbeddedServer | undefined;
let dataDir: string | undefined;

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

export async function setup(project: TestProject) {
  let url = testDatabaseUrl();
  if (!url) {
    dataDir = await mkdtemp(join(tmpdir(), 'episodic-test-'));
    embedded = await startEmbeddedPostgres({ dataDir, port: await freePort(), database: 'episodic_test' });
    url = embedded.url;
  }
  project.provide('databaseUrl', url);
}

export async function teardown() {
  await embedded?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}
