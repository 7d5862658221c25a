// What ending an episode answers: the episode, its lease charge and its loop's stop condition, and
// for completeEpisode what it learned (the extraction run) and the credit given to the retrievals it used.

import type { EpisodeLeaseCharge } from '../leases/charge.ts';
import type { CompletionResult } from '../lifecycle/complete.ts';
import type { FeedbackReport } from '../retrieval/receipts.ts';
import type { StopReason } from '../stops/stop-reason.ts';
import { builder } from './builder.ts';
import { episodeField } from './episode-payloads.ts';
import { LeaseChargeRef } from './lease-types.ts';
import { ExtractionRef } from './patterns.ts';
import { StopReasonRef } from './stop-reasons.ts';

const FeedbackRef = builder.objectRef<FeedbackReport>('RetrievalFeedback').implement({
  fields: (t) => ({
    retrievalIds: t.exposeIDList('retrievalIds'),
    target: t.exposeFloat('target', { description: '+1 success, -1 failure; credits move 0.3 of the way towards it.' }),
    episodes: t.exposeInt('episodes', { description: 'Episodes credited or debited.' }),
    patterns: t.exposeInt('patterns', { description: 'Patterns credited or debited.' }),
    confirmed: t.exposeInt('confirmed', {
      description: 'Served episodes credited: for a success that reports artifacts, those that changed one of its files (the others get target 0).',
    }),
    uses: t.exposeInt('uses', {
      description: "Uses recorded (one per retrieval and episode it served): ranking applies each to later queries that resemble the retrieval's query.",
    }),
  }),
});

type FinishShape = { episodeId: string } & Partial<CompletionResult> & { leaseCharge: EpisodeLeaseCharge | null; stopCondition: StopReason | null };

export const FinishPayload = builder.objectRef<FinishShape>('FinishEpisodePayload').implement({
  fields: (t) => ({
    episode: episodeField(t),
    leaseCharge: t.field({ type: LeaseChargeRef, nullable: true, resolve: (p) => p.leaseCharge }),
    stopCondition: t.field({
      type: StopReasonRef,
      nullable: true,
      description:
        "The work item loop's stop condition after this episode (in priority order: budget > the holon's stop > max episodes); null: the loop may go on, or the episode has no work item.",
      resolve: (p) => p.stopCondition,
    }),
    extraction: t.field({
      type: ExtractionRef,
      nullable: true,
      description: 'The run of extractPatterns: SYNC; null when queued.',
      resolve: (p) => p.extraction ?? null,
    }),
    feedback: t.field({ type: FeedbackRef, nullable: true, description: 'Credit given for usedRetrievals.', resolve: (p) => p.feedback ?? null }),
  }),
});
