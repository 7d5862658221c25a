// completeEpisode with its learning: the ending (reward and reflection included, finish.ts), the
// credit for the retrievals the agent used, and pattern extraction when asked for synchronously,
// all in the one completing transaction. Asynchronous extraction is queued after commit (jobs.ts).

import type { WriteContext } from '../core/write-context.ts';
import type { Outcome } from '../episodes/outcome.ts';
import type { EpisodeRow } from '../episodes/row.ts';
import { type ExtractionMode, type ExtractionReport, extractEpisodePatterns } from '../learning/extract.ts';
import type { EpisodeObservation } from '../learning/patterns.ts';
import type { EpisodeFacts } from '../learning/store.ts';
import type { EpisodeLeaseCharge } from '../leases/charge.ts';
import { creditRetrievals, type FeedbackReport } from '../retrieval/receipts.ts';
import type { StopReason } from '../stops/stop-reason.ts';
import { completeEpisode } from './end.ts';
import type { BatchedEnding } from './finish.ts';

export interface LearningOptions {
  extractPatterns: ExtractionMode;
  usedRetrievals: readonly string[];
  /** A past run's real end (importing it); null: now. */
  endedAt?: Date | null;
  /** Set: an import batch's ending, whose index rows and experience the batch writes with its other runs' (finish.ts). */
  batch?: BatchedEnding;
  /** The episode's row as the caller locked it in this transaction (an import's step batch): not locked and read again. */
  locked?: EpisodeRow;
}

export interface CompletionResult {
  leaseCharge: EpisodeLeaseCharge | null;
  /** The work item loop's stop condition after this episode (null: it may go on). */
  stopCondition: StopReason | null;
  extraction: ExtractionReport | null;
  feedback: FeedbackReport | null;
  /** What the experience was computed from, as stored (finish.ts). */
  facts: EpisodeFacts | null;
  /** The ending's observation of the episode (finish.ts). */
  observation: EpisodeObservation | null;
}

export async function completeAndLearn(ctx: WriteContext, episodeId: string, outcome: Outcome, options: LearningOptions): Promise<CompletionResult> {
  const { leaseCharge, stopCondition, facts, observation } = await completeEpisode(
    ctx,
    episodeId,
    outcome,
    options.endedAt ?? null,
    options.batch,
    options.locked,
  );
  const feedback = await creditRetrievals(ctx, episodeId, options.usedRetrievals, outcome);
  const extraction = options.extractPatterns === 'sync' ? await extractEpisodePatterns(ctx, episodeId, 'sync') : null;
  return { leaseCharge, stopCondition, extraction, feedback, facts, observation };
}
