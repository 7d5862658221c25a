// The episode enums of the API. Values are the domain's in UPPER_CASE; `lower` maps one back.
import { builder } from './builder.ts';

export const EPISODE_STATUSES = ['RUNNING', 'BLOCKED', 'COMPLETED', 'FAILED', 'CANCELLED', 'ESCALATED'] as const;
export const OUTCOME_KINDS = ['SUCCESS', 'PARTIAL', 'FAILURE', 'UNKNOWN'] as const;
export const COMPLEXITIES = ['SIMPLE', 'MODERATE', 'COMPLEX'] as const;
export const EPISODE_MODES = ['LIVE', 'DRY_RUN'] as const;
export const BUDGET_POLICIES = ['FAIL', 'CONVERGE'] as const;

export const EpisodeStatusEnum = builder.enumType('EpisodeStatus', { values: EPISODE_STATUSES });
export const OutcomeKindEnum = builder.enumType('OutcomeKind', { values: OUTCOME_KINDS });
export const ComplexityEnum = builder.enumType('Complexity', { values: COMPLEXITIES });
export const ModeEnum = builder.enumType('EpisodeMode', { values: EPISODE_MODES });
export const PolicyEnum = builder.enumType('BudgetExhaustedPolicy', {
  description: 'What the server does when a token or step budget runs out (wall time always fails).',
  values: BUDGET_POLICIES,
});

/** An enum value as the domain spells it: 'DRY_RUN' -> 'dry_run', typed as such. */
export const lower = <T extends string>(value: T) => value.toLowerCase() as Lowercase<T>;
