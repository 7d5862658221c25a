// What the tests read from the environment (the service's own settings are src/config.ts's).

/** Tests use this server instead of starting an embedded one when it is set. */
export function testDatabaseUrl(source: NodeJS.ProcessEnv = process.env): string | undefined {
  return source.TEST_DATABASE_URL || undefined;
}

/** The archive of real runs test/web/real-runs.test.ts imports, when it is not in a shared/data folder above the repository. */
export function testRealRunsArchive(source: NodeJS.ProcessEnv = process.env): string | undefined {
  return source.EPISODIC_REAL_RUNS_ARCHIVE || undefined;
}

/** Tests that need Redis run only where one is configured. */
export function testRedisUrl(source: NodeJS.ProcessEnv = process.env): string | undefined {
  return source.REDIS_URL || undefined;
}
