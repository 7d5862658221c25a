// The StopReason GraphQL type: why an episode stopped, and why a work item's loop stopped.

import { canContinue, isSuccessful, type StopReason } from '../stops/stop-reason.ts';
import { builder } from './builder.ts';

export const StopReasonRef = builder.objectRef<StopReason>('StopReason').implement({
  description:
    'Why an episode, or a work item loop of episodes, stopped: completed, budget exhausted, max episodes, blocked, escalated, cancelled, failed or error.',
  fields: (t) => ({
    kind: t.string({ resolve: (r) => r.kind, description: 'completed, budget_exhausted, max_episodes, blocked, escalated, error, cancelled, failed' }),
    resource: t.string({ nullable: true, resolve: (r) => ('resource' in r ? r.resource : null) }),
    reason: t.string({ nullable: true, resolve: (r) => ('reason' in r ? (r.reason ?? null) : 'message' in r ? r.message : null) }),
    recoverable: t.boolean({ nullable: true, resolve: (r) => ('recoverable' in r ? r.recoverable : null) }),
    isSuccessful: t.boolean({ resolve: (r) => isSuccessful(r) }),
    canContinue: t.boolean({ resolve: (r) => canContinue(r) }),
  }),
});
