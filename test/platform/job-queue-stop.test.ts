// Stopping the job queue waits for every job handler of this process, including one that a fetch
// sent before stop() started afterwards, and for the completion pg-boss 10 sends (unawaited) when a
// handler returns. Closing the pool under them failed that completion with a rejection no one
// caught: an unhandled rejection that failed a whole CI run with every test green.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { handlerOf, startJobQueue, stopJobQueue } from '../../src/jobs/queue.ts';
import { createLogger } from '../../src/log.ts';
import { createEmptyDatabase, type TestDatabase } from '../support/db.ts';
import { sourceFiles } from '../support/source-files.ts';

let database: TestDatabase;
let db: Database;
beforeAll(async () => {
  database = await createEmptyDatabase();
  db = createDatabase(database.url, 4);
  await migrate(db.pool);
});
afterAll(() => database.drop());

it('waits for a handler that started after stop() began, and for its completion, before the pool closes', async () => {
  const queue = await startJobQueue(db.pool, createLogger('silent'));
  await queue.createQueue('late');
  const id = await queue.send('late', { n: 1 });
  const [job] = await queue.fetch('late');
  expect(job?.id).toBe(id);

  // As pg-boss's worker does with jobs its last fetch returned: run the handler, then complete
  // the job without awaiting the statement.
  const handler = handlerOf(queue, async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return 'done';
  });
  const completion: Promise<unknown>[] = [];
  const worker = handler([]).then(() => completion.push(queue.complete('late', String(id))));
  await stopJobQueue(queue, 10_000);
  await db.close();
  await worker;
  await expect(Promise.all(completion)).resolves.toBeDefined();

  const check = new pg.Client({ connectionString: database.url });
  await check.connect();
  try {
    const { rows } = await check.query<{ state: string }>('SELECT state FROM pgboss.job WHERE id = $1', [id]);
    expect(rows).toEqual([{ state: 'completed' }]);
  } finally {
    await check.end();
  }
});

it('drops a statement pg-boss sends after the stop: it never reaches the closed pool', async () => {
  const own = createDatabase(database.url, 2);
  const queue = await startJobQueue(own.pool, createLogger('silent'));
  await queue.createQueue('after-stop');
  await stopJobQueue(queue, 10_000);
  await own.close();
  const rejected: unknown[] = [];
  const onRejection = (reason: unknown) => rejected.push(reason);
  process.on('unhandledRejection', onRejection);
  try {
    // As pg-boss completes a job whose handler returned after the last look: unawaited.
    const completion = queue.complete('after-stop', '00000000-0000-4000-8000-000000000000');
    const settled = await Promise.race([
      completion.then(
        () => 'settled',
        () => 'rejected',
      ),
      new Promise((r) => setTimeout(() => r('pending'), 200)),
    ]);
    expect(settled).toBe('pending');
    expect(rejected).toEqual([]);
  } finally {
    process.off('unhandledRejection', onRejection);
  }
});

it('every job handler in src/ is registered through handlerOf', () => {
  const sources = sourceFiles(join(import.meta.dirname, '../../src')).map((f) => readFileSync(f, 'utf8'));
  const workers = sources.reduce((n, s) => n + (s.match(/\bqueue\.work[<(]/g)?.length ?? 0), 0);
  const tracked = sources.reduce((n, s) => n + (s.match(/\bhandlerOf\(queue,/g)?.length ?? 0), 0);
  expect(workers).toBeGreaterThan(0);
  expect(tracked).toBe(workers);
});
