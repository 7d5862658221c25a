// Group commit for step writes: concurrent logStep/logSteps calls of a tenant wait a short window,
// then share one transaction (one multi-row insert, one chain-head lock; the insert and the ledger
// append are one statement). Each caller is answered only after that commit. While a batch
// commits, the next one gathers.
import type pg from 'pg';
import { must } from '../core/must.ts';
import type { NewLedgerEvent } from '../core/write-context.ts';
import { withTransaction } from '../db/tx.ts';
import { appendEvents, type LeadingWrite } from '../ledger/store/store.ts';
import type { Writer } from '../write.ts';
import { applyStepBatch, type StepBatchOutcome, type StepBatchRequest, type StopForBudget } from './apply.ts';

interface Pending {
  request: StepBatchRequest;
  resolve(outcome: StepBatchOutcome): void;
  reject(err: unknown): void;
}

interface TenantQueue {
  pending: Pending[];
  timer: NodeJS.Timeout | null;
  flushing: Set<Promise<void>>;
}

/**
 * Batches of one tenant in flight at once. Two overlap one batch's step insert with the other's
 * ledger append and commit (they serialise only on the chain head). More split the waiting calls
 * into smaller commits, each holding the head through its own fsync: with three, 100-step calls
 * from 4 clients committed about 100 rows at a time, and the database path alone ran 11-14k steps/s
 * against 15-17k with two (docs/BENCHMARKS.md).
 */
const MAX_CONCURRENT_FLUSHES = 2;

export interface IngestOptions {
  /** false: every request commits alone, with no coalescing (the naive baseline). */
  enabled: boolean;
  windowMs: number;
  maxRows: number;
  /** Rows waiting beyond this are refused at once (backpressure) instead of queueing without bound. */
  maxPendingRows: number;
}

export class OverloadedError extends Error {
  override name = 'OverloadedError';
}

export class StepIngestor {
  private readonly queues = new Map<string, TenantQueue>();
  private pendingRows = 0;
  private readonly batchListeners: Array<(requests: number, rows: number) => void> = [];

  constructor(
    private readonly pool: pg.Pool,
    private readonly writer: Writer,
    private readonly opts: IngestOptions,
    private readonly stopForBudget: StopForBudget,
  ) {}

  /**
   * Throws OverloadedError when `rows` more steps would not fit the buffer now. Callers check this
   * before they validate and hash a request, so shed work costs next to nothing; submit checks again.
   */
  assertRoom(rows: number): void {
    if (this.pendingRows + rows > this.opts.maxPendingRows) {
      throw new OverloadedError(`ingestion is overloaded (${this.pendingRows} steps waiting); retry shortly`);
    }
  }

  submit(tenantId: string, request: StepBatchRequest): Promise<StepBatchOutcome> {
    try {
      this.assertRoom(request.steps.length);
    } catch (err) {
      return Promise.reject(err);
    }
    if (!this.opts.enabled) return this.commit(tenantId, [request]).then(([outcome]) => must(outcome));
    this.pendingRows += request.steps.length;
    return new Promise((resolve, reject) => {
      const queue = this.queueOf(tenantId);
      queue.pending.push({ request, resolve, reject });
      this.schedule(tenantId, queue);
    });
  }

  /** Steps accepted and not yet committed (a gauge for /metrics). */
  get waitingRows(): number {
    return this.pendingRows;
  }

  /** Called after each group commit with its request and row counts (metrics). */
  onBatch(listener: (requests: number, rows: number) => void): void {
    this.batchListeners.push(listener);
  }

  /** Answers everything accepted so far (graceful shutdown). */
  async drain(): Promise<void> {
    while ([...this.queues.values()].some((q) => q.pending.length || q.flushing.size)) {
      for (const [tenantId, q] of this.queues) {
        if (q.timer) clearTimeout(q.timer), (q.timer = null);
        while (q.pending.length && q.flushing.size < MAX_CONCURRENT_FLUSHES) this.startFlush(tenantId, q);
      }
      await Promise.all([...this.queues.values()].flatMap((q) => [...q.flushing]));
    }
  }

  private queueOf(tenantId: string): TenantQueue {
    let q = this.queues.get(tenantId);
    if (!q) this.queues.set(tenantId, (q = { pending: [], timer: null, flushing: new Set() }));
    return q;
  }

  private schedule(tenantId: string, q: TenantQueue) {
    if (q.flushing.size >= MAX_CONCURRENT_FLUSHES || q.timer || !q.pending.length) return;
    const rows = q.pending.reduce((n, p) => n + p.request.steps.length, 0);
    // With nothing of this tenant committing there is nobody to wait for: the first call goes at
    // once, and the calls arriving while it commits gather for the window.
    if (rows >= this.opts.maxRows || this.opts.windowMs === 0 || q.flushing.size === 0) return this.startFlush(tenantId, q);
    q.timer = setTimeout(() => {
      q.timer = null;
      this.startFlush(tenantId, q);
    }, this.opts.windowMs);
  }

  private takeBatch(q: TenantQueue): Pending[] {
    let rows = 0;
    let n = 0;
    while (n < q.pending.length && (n === 0 || rows + must(q.pending[n]).request.steps.length <= this.opts.maxRows)) {
      rows += must(q.pending[n]).request.steps.length;
      n += 1;
    }
    return q.pending.splice(0, n);
  }

  private startFlush(tenantId: string, q: TenantQueue) {
    const batch = this.takeBatch(q);
    if (!batch.length) return;
    const flushing: Promise<void> = this.flush(tenantId, batch).finally(() => {
      q.flushing.delete(flushing);
      this.schedule(tenantId, q);
    });
    q.flushing.add(flushing);
  }

  private async flush(tenantId: string, batch: Pending[]) {
    const rows = batch.reduce((n, p) => n + p.request.steps.length, 0);
    try {
      const outcomes = await this.commit(
        tenantId,
        batch.map((p) => p.request),
      );
      batch.forEach((p, i) => p.resolve(must(outcomes[i])));
      for (const listener of this.batchListeners) listener(batch.length, rows);
    } catch (err) {
      // One bad request must not fail its neighbours: retry each alone.
      if (batch.length === 1) must(batch[0]).reject(err);
      else await Promise.all(batch.map((p) => this.commit(tenantId, [p.request]).then(([o]) => p.resolve(must(o)), p.reject)));
    } finally {
      this.pendingRows -= rows;
    }
  }

  private async commit(tenantId: string, requests: StepBatchRequest[]): Promise<StepBatchOutcome[]> {
    const events: NewLedgerEvent[] = [];
    let stored: Awaited<ReturnType<typeof appendEvents>> = [];
    // Three round trips a batch: BEGIN with the episodes' lock, the steps with the ledger append, COMMIT.
    const outcomes = await withTransaction(
      this.pool,
      async (client) => {
        let steps: LeadingWrite | undefined;
        const trips = { begin: true, defer: (write: LeadingWrite) => void (steps = write) };
        const result = await applyStepBatch(client, tenantId, requests, new Date(), events, this.stopForBudget, trips);
        stored = await appendEvents(client, tenantId, events, steps);
        return result;
      },
      true,
    );
    this.writer.committed(tenantId, stored);
    return outcomes;
  }
}
