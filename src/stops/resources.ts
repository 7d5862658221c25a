// What can run out and stop an episode or its work item's loop: an episode budget's resources
// (enforced in src/episodes/budget.ts) and a lease's (src/leases/rules.ts). Declared here, below
// both, because a stop reason names them.

/** An episode budget's resources, in the order an exhaustion is reported (episodes/budget.ts says why). */
export const BUDGET_RESOURCES = ['wall_time', 'tokens', 'tool_calls', 'steps'] as const;
export type BudgetResource = (typeof BUDGET_RESOURCES)[number];

/** Lease resources in the seed's Budget order (episodes, tool calls, tokens, wall ms). */
export const LEASE_RESOURCES = ['episodes', 'tool_calls', 'tokens', 'wall_time'] as const;
export type LeaseResource = (typeof LEASE_RESOURCES)[number];

/** An episode budget resource, or a lease resource when the lease charge ran out (INV-EP03). */
export type ExhaustedResource = BudgetResource | LeaseResource;
