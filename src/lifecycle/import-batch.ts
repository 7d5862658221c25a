// Group commit for importRun: the runs a tenant's concurrent importRun calls send while its
// batches commit are imported together in the next transaction (one chain-head append, one write
// of the term index's shared rows for all of them), each call answered after that commit. The
// term index's shared rows serialise every ending of a tenant, so one write of them per batch
// instead of one per run is where an import's time goes (docs/BENCHMARKS.md, issue 31).
import { must } from '../core/must.ts';
import type { Writer } from '../write.ts';
import { type ImportRunResult, importRuns, type RunToImport } from './import-run.ts';

interface Pending {
  run: RunToImport;
  resolve(result: ImportRunResult): void;
  reject(err: unknown): void;
}

interface TenantQueue {
  pending: Pending[];
  flushing: number;
  /** A batch committed since afterCommit last ran. */
  committed: boolean;
}

/** Batches of one tenant in flight at once: two overlap one batch's steps and completions with the other's index write and commit. */
const MAX_CONCURRENT_FLUSHES = 2;

/**
 * Runs in one transaction: about a third of what an import keeps in flight (the CLI's default
 * concurrency is 32), so that while two batches commit the next one is already gathering. The 350
 * development runs: 16 to a batch 10.2-10.4 s, 10 to a batch 9.4-9.5 s (docs/BENCHMARKS.md).
 */
const MAX_RUNS = 10;

export class ImportBatcher {
  private readonly queues = new Map<string, TenantQueue>();
  private readonly idle = new Set<() => void>();

  constructor(
    private readonly writer: Writer,
    /** After a tenant's batches have all committed (its runs answered): its history grew, as after a queued extraction batch. */
    private readonly afterCommit: (tenantId: string) => Promise<unknown> = async () => undefined,
    /** Runs in one transaction at most. */
    private readonly maxRuns = MAX_RUNS,
  ) {}

  submit(tenantId: string, run: RunToImport): Promise<ImportRunResult> {
    return new Promise((resolve, reject) => {
      let q = this.queues.get(tenantId);
      if (!q) this.queues.set(tenantId, (q = { pending: [], flushing: 0, committed: false }));
      q.pending.push({ run, resolve, reject });
      // With a batch committing, the calls arriving meanwhile gather for the next one.
      if (q.flushing < MAX_CONCURRENT_FLUSHES) void this.flush(tenantId, q);
    });
  }

  /** Resolves once every submitted run is answered (graceful shutdown). */
  drain(): Promise<void> {
    if (!this.queues.size) return Promise.resolve();
    return new Promise((done) => this.idle.add(done));
  }

  private async flush(tenantId: string, q: TenantQueue) {
    q.flushing += 1;
    while (q.pending.length) {
      const batch = q.pending.splice(0, this.maxRuns);
      await this.commit(tenantId, batch);
      q.committed = true;
    }
    // Once per burst, not per batch (what it does reads the history later anyway), by the last flush
    // out; the queue stays held meanwhile, so drain() waits for it, and runs that commit meanwhile
    // (their own flush) have it run again. Its failures are its own to report (services.ts logs them).
    while (q.flushing === 1 && !q.pending.length && q.committed) {
      q.committed = false;
      await this.afterCommit(tenantId).catch(() => undefined);
    }
    q.flushing -= 1;
    if (q.flushing || q.pending.length) return;
    this.queues.delete(tenantId);
    if (this.queues.size) return;
    for (const done of this.idle) done();
    this.idle.clear();
  }

  private async commit(tenantId: string, batch: Pending[]) {
    try {
      const results = await this.writer.run(tenantId, (w) =>
        importRuns(
          w,
          batch.map((p) => p.run),
        ),
      );
      batch.forEach((p, i) => p.resolve(must(results[i])));
    } catch (err) {
      // One bad run must not fail its neighbours: each is imported again alone.
      if (batch.length === 1) return must(batch[0]).reject(err);
      for (const p of batch) await this.writer.run(tenantId, (w) => importRuns(w, [p.run])).then(([r]) => p.resolve(must(r)), p.reject);
    }
  }
}
