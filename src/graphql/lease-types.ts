// Lease GraphQL types shared by the lease and episode modules: budgets, the charge an ending
// reports, and the error a start gets once its work item's loop has stopped.

import type { EpisodeLeaseCharge } from '../leases/charge.ts';
import { LoopStoppedError } from '../leases/errors.ts';
import type { LeaseBudget } from '../leases/rules.ts';
import { ErrorInterface } from './base.ts';
import { builder } from './builder.ts';
import { StopReasonRef } from './stop-reasons.ts';

export const LeaseBudgetRef = builder.objectRef<LeaseBudget>('LeaseBudget').implement({
  description: 'An amount per lease resource; null is unlimited (or, in a budget, not limited).',
  fields: (t) => ({
    episodes: t.exposeFloat('episodes', { nullable: true }),
    toolCalls: t.exposeFloat('toolCalls', { nullable: true }),
    tokens: t.exposeFloat('tokens', { nullable: true }),
    wallMs: t.exposeFloat('wallMs', { nullable: true }),
  }),
});

export const LeaseChargeRef = builder.objectRef<EpisodeLeaseCharge>('LeaseCharge').implement({
  description: 'What the finished episode cost its lease (charged after each episode): its hold turned into what it used, the rest released.',
  fields: (t) => ({
    ok: t.exposeBoolean('ok', { description: 'False when the charge overdrew the lease (the deduction failed, INV-EP03).' }),
    exhausted: t.exposeString('exhausted', { nullable: true, description: 'First resource spent out (consumed >= budget).' }),
    overdrawn: t.exposeString('overdrawn', { nullable: true, description: 'First resource whose consumption and the other holds exceed the budget.' }),
    hold: t.field({ type: LeaseBudgetRef, description: 'What the episode held while it ran (0 for what the lease does not limit).', resolve: (c) => c.hold }),
    charged: t.field({
      type: LeaseBudgetRef,
      description: 'What it was charged, on its lease and every ancestor; wall time up to its deadline.',
      resolve: (c) => c.charged,
    }),
    released: t.field({ type: LeaseBudgetRef, description: 'The unused part of the hold, available again.', resolve: (c) => c.released }),
    remainingEpisodes: t.float({ nullable: true, description: 'Unreserved remaining after the charge; likewise below.', resolve: (c) => c.remaining.episodes }),
    remainingToolCalls: t.float({ nullable: true, resolve: (c) => c.remaining.toolCalls }),
    remainingTokens: t.float({ nullable: true, resolve: (c) => c.remaining.tokens }),
    remainingWallMs: t.float({ nullable: true, resolve: (c) => c.remaining.wallMs }),
  }),
});

builder.objectType(LoopStoppedError, {
  name: 'LoopStoppedError',
  description: 'The work item loop of episodes has stopped (or started all its max episodes): no episode starts until resumeWorkItem. Nothing changed.',
  interfaces: [ErrorInterface],
  isTypeOf: (v) => v instanceof LoopStoppedError,
  fields: (t) => ({
    workItemId: t.exposeID('workItemId'),
    stopCondition: t.field({ type: StopReasonRef, resolve: (e) => e.stopCondition }),
  }),
});
