// The long-lived parts a request needs (Services: what every resolver reads as ctx.services),
// created once per process (or per test server).
import type { Logger } from 'pino';
import { KeyCache } from './auth/key-cache.ts';
import type { Config } from './config.ts';
import { must } from './core/must.ts';
import type { Database } from './db/client.ts';
import type { JobQueue } from './jobs/queue.ts';
import { startJobQueue, stopJobQueue } from './jobs/queue.ts';
import type { LearningJobs } from './learning/jobs.ts';
import { startLearningWorkers } from './learning/jobs.ts';
import type { LedgerBus } from './ledger/fanout/bus.ts';
import { createLedgerBus } from './ledger/fanout/bus.ts';
import { LedgerReads } from './ledger/fanout/live-reads.ts';
import { CheckpointPublisher, TreeCache } from './ledger/store/checkpoints.ts';
import { loadSigner } from './ledger/store/signer.ts';
import { stopForBudget } from './lifecycle/budget-stop.ts';
import { startDeadlineWorkers } from './lifecycle/deadlines.ts';
import { ImportBatcher } from './lifecycle/import-batch.ts';
import { Retention } from './lifecycle/retention.ts';
import { indexStatisticsRefresher } from './retrieval/index-statistics.ts';
import { startRankerRefits } from './retrieval/ranker-jobs.ts';
import { StepIngestor } from './steps/ingest.ts';
import { DEFAULT_REDACTED_KEYS } from './steps/redact.ts';
import type { Writer } from './write.ts';
import { createWriter } from './write.ts';

/** The long-lived parts a request needs: built once per process by createServices. */
export interface Services {
  config: Config;
  db: Database;
  log: Logger;
  writer: Writer;
  ingest: StepIngestor;
  /** importRun's group commit. */
  imports: ImportBatcher;
  jobs: JobQueue;
  /** Pattern extraction on the job queue. */
  learning: LearningJobs;
  redactKeys: readonly string[];
  checkpoints: CheckpointPublisher;
  /** Announces ledger growth to subscribers in every process. */
  ledgerBus: LedgerBus;
  /** Ledger reads of live subscribers (shared between subscribers woken by the same commit). */
  ledgerReads: LedgerReads;
  /** API keys of recent requests (revocations by this process forget them at commit). */
  keys: KeyCache;
  /** Forgets the step content of runs past STEP_RETENTION_DAYS. */
  retention: Retention;
}

export async function createServices(config: Config, db: Database, log: Logger): Promise<Services> {
  const redactKeys = config.redactKeys ?? DEFAULT_REDACTED_KEYS;
  const writer = createWriter(db.pool, redactKeys);
  const ingest = new StepIngestor(db.pool, writer, { ...config.groupCommit, maxPendingRows: config.ingestMaxPendingRows }, stopForBudget);
  const ledgerBus = createLedgerBus(config, db.pool, log);
  await ledgerBus.start();
  writer.onCommit((tenantId, events) => ledgerBus.publish(tenantId, must(events[events.length - 1]).seq));
  const jobs = await startJobQueue(db.pool, log);
  await startDeadlineWorkers(jobs, db.pool, writer, log, config.jobPollSeconds);
  const refits = await startRankerRefits(jobs, db.pool, log, config.jobPollSeconds);
  const learning = await startLearningWorkers(jobs, db.pool, writer, log, {
    ...config.learning,
    pollSeconds: config.jobPollSeconds,
    onHistoryGrew: refits.queueDue,
  });
  const signer = await loadSigner(config.ledger.signingKey, config.dataDir);
  const checkpoints = new CheckpointPublisher(db.pool, new TreeCache(db.pool), signer, log, config.ledger);
  writer.onCommit((tenantId, events) => checkpoints.committed(tenantId, events));
  checkpoints.start();
  const keys = new KeyCache(db.pool, config.keyCacheMs);
  writer.onCommit((_tenantId, events) => {
    for (const e of events) {
      if (e.type !== 'api_key.revoked') continue;
      const { keyId } = e.payload as { keyId: string };
      keys.forget(keyId);
      // Every process ends the key's streams now, not at its next key recheck.
      ledgerBus.announceRevoked(keyId);
    }
  });
  // After a tenant's import burst: its patterns were extracted as it committed, so its ranker may be
  // due a refit; and the term index grew, so its planner statistics may be stale (index-statistics.ts).
  const refreshIndexStatistics = indexStatisticsRefresher(db.pool);
  const imports = new ImportBatcher(writer, (tenantId) =>
    Promise.all([
      refits.queueDue([tenantId]).catch((err: unknown) => log.warn({ err }, 'ranker refit not queued; the next batch retries')),
      refreshIndexStatistics().catch((err: unknown) => log.warn({ err }, 'term index statistics not refreshed; autovacuum will')),
    ]),
  );
  const retention = new Retention(db.pool, writer, log, config.retention);
  retention.start();
  return {
    config,
    db,
    log,
    writer,
    ingest,
    imports,
    jobs,
    learning,
    redactKeys,
    checkpoints,
    ledgerBus,
    ledgerReads: new LedgerReads(db.pool),
    keys,
    retention,
  };
}

/** Answers every accepted write, then stops background work. The caller closes the database. */
export async function stopServices(services: Services): Promise<void> {
  await services.imports.drain();
  await services.ingest.drain();
  await services.retention.stop();
  services.checkpoints.stop();
  await services.learning.drain();
  await stopJobQueue(services.jobs, 30_000);
  // A batch may outlast the stop's timeout: it still completes its jobs through the pool.
  await services.learning.drain();
  // Last: the writes above still announce their commits.
  await services.ledgerBus.stop();
}
