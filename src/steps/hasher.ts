// Step content hashes, computed off the event loop when a batch is large enough. RFC 8785 JSON and
// BLAKE3 in JavaScript were the largest CPU cost of a logSteps call; on the main thread they also
// delayed other requests and the round trips of transactions holding episode and chain-head locks.
import { Piscina } from 'piscina';
import { hashCanonicalTexts } from './hash-rows.ts';
import { prepareStep, stepCanonicalJson, type HashedStep, type PreparedStep } from './prepare.ts';
import type { StepInput } from '../episodes/limits.ts';

export interface StepHashRow {
  /** Lowercase uuid. */
  episodeId: string;
  step: PreparedStep;
}

/** Below this many rows, hashing inline costs less than handing the rows to a thread. */
const MIN_ROWS_FOR_THREAD = 16;

export class StepHasher {
  private pool: Piscina | null = null;

  /** threads: worker threads for hashing; 0 hashes on the calling thread. */
  constructor(private readonly threads: number) {}

  /** A call's validated steps, prepared for storage (redacted, sized) and hashed for its episode. */
  async prepare(episodeId: string, steps: readonly StepInput[], redactKeys: readonly string[]): Promise<HashedStep[]> {
    const prepared = steps.map((s) => prepareStep(s, redactKeys));
    // Hashed as the uuid column holds it (lower case).
    const hashes = await this.hash(prepared.map((step) => ({ episodeId: episodeId.toLowerCase(), step })));
    return prepared.map((step, i) => ({ ...step, contentHash: hashes[i]! }));
  }

  /** The content hashes of the steps (stepContentHash), in order. */
  async hash(rows: StepHashRow[]): Promise<string[]> {
    const texts = rows.map((r) => stepCanonicalJson(r.episodeId, r.step));
    if (this.threads === 0 || rows.length < MIN_ROWS_FOR_THREAD) return hashCanonicalTexts(texts);
    return this.threadPool().run(texts);
  }

  /**
   * Starts the threads and waits until they answer. The server does this at start-up so that its
   * first large calls do not wait for a thread to load; other processes (the CLI, tests) start
   * them on first use, if ever.
   */
  async warm(): Promise<void> {
    if (this.threads === 0) return;
    const pool = this.threadPool();
    await Promise.all(Array.from({ length: this.threads }, () => pool.run([])));
  }

  private threadPool(): Piscina {
    this.pool ??= new Piscina({
      filename: new URL('./hash-worker.mjs', import.meta.url).href,
      minThreads: this.threads,
      maxThreads: this.threads,
      idleTimeout: Number.POSITIVE_INFINITY,
    });
    return this.pool;
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
    this.pool = null;
  }
}
